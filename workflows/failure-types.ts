/**
 * Failure types that activities raise on purpose and workflows branch on. This file has
 * no imports so the workflow bundle can use it.
 */
export const FailureType = {
  supplierRejected: 'supplier_rejected',
  /** The supplier no longer has what was held (hold expired or released): the order cannot complete. */
  supplierGone: 'supplier_gone',
  holdRefused: 'hold_refused',
  cancelRejected: 'cancel_rejected',
  refundRejected: 'refund_rejected',
} as const;

/** What a database step fails with (activities/failures.ts): only `unavailable` is retried. */
export const DatabaseFailureType = { unavailable: 'database_unavailable', invalidData: 'invalid_data', error: 'database_error' } as const;

/**
 * Not an answer: the supplier step ran out of attempts without one (timeouts, 5xx). The
 * booking may or may not exist, so the payment asks the supplier before anything else.
 */
export const OUTCOME_UNKNOWN = 'outcome_unknown';

/** What an `outcome_unknown` failure carries in its details: the attempts the supplier step made. */
export interface FinalizeAttemptsDetail {
  attempts: number;
}
