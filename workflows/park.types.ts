import { defineQuery } from '@temporalio/workflow';

/**
 * Where a cancellation waits for an operator: after the supplier cancelled or refunded (its
 * pivot), writing the partner's refund (and the order's cancellation) failed for good; or, in a
 * residence stay's workflow, the undo of a change the host did not take failed for good
 * (`undoing_change`), or telling the host's system of a cancellation the host
 * accepted failed (`cancelling_at_host`).
 */
export type CancellationParkedAt = 'refunding' | 'undoing_change' | 'cancelling_at_host';

export interface CancellationState {
  /** The order cancelled; null for a residence stay, which knows its reservation. */
  orderId: number | null;
  reservationId?: number;
  /** The step under way (`cancelling`, `refunding`, `needs_attention`, `done`). */
  step: string;
  stage: string;
  lastError: string | null;
  /** Set while step is needs_attention. */
  parkedAt?: CancellationParkedAt;
  /** The supplier's reference of what was cancelled (hotel confirmation number, PNR), once the supplier cancelled. */
  supplierRef?: string;
  /** The activity that failed for good, while parked. */
  failedStep?: string;
}

/**
 * What a cancellation or refund workflow (hotel cancellation, flight refund, a residence
 * stay's cancellation) shows an operator: where it stands and, when parked, why. Readable by
 * the API (no workflow bodies imported).
 */
export const cancellationStateQuery = defineQuery<CancellationState>('cancellationState');

/** Why an operator decision other than retry does not apply to a parked cancellation. */
export const CANCELLATION_REFUSALS = {
  confirm: 'the supplier already cancelled; there is nothing to confirm: retry writes the refund',
  compensate: 'the supplier already cancelled and that cannot be undone; retry writes the refund',
} as const;
