import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * The workflow id is the payment's identity: the partner's idempotency key, or the order
 * when no key is given. Temporal refuses a second live run with the same id, so a
 * repeated request joins the payment already under way instead of paying again.
 */
export const payWorkflowId = (partnerId: number, req: { idempotencyKey?: string; orderId: number }) =>
  req.idempotencyKey ? `pay:p${partnerId}:key:${req.idempotencyKey}` : `pay:p${partnerId}:order:${req.orderId}`;

/**
 * Where a payment shows itself from its start: its starter (the API, or Interface B's parent
 * workflow) sets these search attributes in the start request, so the workflow does not
 * upsert them as a command of its own.
 */
export const PAY_START_ATTRIBUTES = { stage: 'debiting', orderStatus: 'processing' } as const;

export interface PayInput {
  partnerId: number;
  orderId: number;
  /** Sandbox scenario forwarded to the supplier simulator; never set in production. */
  scenario?: string;
  /**
   * The order exists only to be paid now (Interface B's bookings and product orders): a
   * payment that fails fails the order too. Its reversal releases the order and then fails
   * it (also when the debit never took it), and the payment ends with OrderStatus `failed`.
   */
  failsOrder?: boolean;
}

/** What the debit answers (src/domain/money/payment-ledger.ts). */
export interface DebitResult {
  ledgerId: number;
  orderId: number;
  amountMinor: number;
  balanceAfterMinor: number;
  availableAfterMinor: number;
  currency: string;
}

export interface PayResult {
  orderId: number;
  orderStatus: 'completed';
  ledgerId: number;
  amountMinor: number;
  balanceAfterMinor: number;
  availableAfterMinor: number;
  currency: string;
  supplierRef: string;
}

/**
 * What an operator decides for a payment parked in needs_attention (admin CLI: order
 * retry|confirm|compensate); a parked cancellation takes the same signal, retry only
 * (workflows/park.ts). Which apply depends on where it is parked (PayState.parkedAt):
 * before the supplier's answer all three; after it (`completing`) retry or confirm, both
 * of which run the completion again, never compensate; while its debit is being reversed
 * (`compensating`) retry or compensate, both of which run the reversal again.
 */
export interface OperatorDecision {
  action: 'retry' | 'confirm' | 'compensate';
  operator: string;
  reason: string;
  /** For confirm: the supplier's reference the operator found (else the order records the operator's confirmation). */
  supplierRef?: string;
}

/** Where a payment waits for an operator: the supplier step (outcome unknown), the completion after the supplier confirmed, or the reversal of its debit. */
export type ParkedAt = 'finalizing' | 'completing' | 'compensating';

export interface PayState {
  orderId: number;
  stage: string;
  step: string;
  lastError: string | null;
  /**
   * How many times the supplier step was run: the first, then one more per operator retry.
   * Each run tries the supplier up to its budget (FINALIZE_ATTEMPTS) before its outcome counts
   * as unknown.
   */
  supplierRounds: number;
  /**
   * The calls made to the supplier by the runs that have finished, as the step counted them
   * (Temporal's attempt number, the one a lastError "after N attempts" names); a run under way
   * is counted when it ends.
   */
  supplierAttempts: number;
  /** Set while step is needs_attention. */
  parkedAt?: ParkedAt;
  /** The supplier's reference once it confirmed: past the pivot, the payment is never compensated. */
  supplierRef?: string;
  /** The activity that failed for good, while parked at completing or compensating. */
  failedStep?: string;
}

/** An operator's decision for a parked payment or cancellation (the pay workflow and workflows/park.ts handle it). */
export const operatorDecisionSignal = defineSignal<[OperatorDecision]>('operatorDecision');
/** Where a payment stands (admin order inspect). */
export const payStateQuery = defineQuery<PayState>('payState');
