import type { DatabaseFailureTypeName } from '../src/platform/database-errors';

/**
 * Every failure type of the engine, in one place: what activities raise (a refusal of the
 * domain, of a supplier, of the database, an outcome left open), what workflows end with, and
 * so what the API can meet. What the API answers for each is in src/domain/errors.ts.
 * Workflow histories record these strings: a replayed run must find them unchanged. Type
 * imports only, so that the workflow bundle can use this file.
 */

/**
 * The domain's refusals (DomainError's codes). An activity raises a DomainError as a failure
 * of the same type (activities/failures.ts); the API answers each with a status per
 * interface (src/domain/errors.ts).
 */
export const DOMAIN_ERROR_CODES = [
  'validation',
  'unauthorized',
  'not_found',
  'not_payable',
  'insufficient_credit',
  'conflict',
  'supplier_failed',
  'currency_unavailable',
  'forbidden',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** The domain refusals a step can raise: retrying cannot change the answer. */
export const DOMAIN_REFUSALS: readonly DomainErrorCode[] = ['insufficient_credit', 'not_payable', 'conflict', 'validation', 'not_found'];

/** A supplier's refusals: raised by a supplier step when the supplier answered no, never retried. */
export const FailureType = {
  supplierRejected: 'supplier_rejected',
  /** The supplier no longer has what was held (hold expired or released): the order cannot complete. */
  supplierGone: 'supplier_gone',
  holdRefused: 'hold_refused',
  cancelRejected: 'cancel_rejected',
  refundRejected: 'refund_rejected',
} as const;

/**
 * What a database step fails with (activities/failures.ts classifies the error with
 * src/platform/database-errors.ts): only `unavailable` is retried; `invalidData` (SQLSTATE
 * classes 22 and 23) is the request's fault, `error` the engine's.
 */
export const DatabaseFailureType = {
  unavailable: 'database_unavailable',
  invalidData: 'invalid_data',
  error: 'database_error',
} as const satisfies Record<string, DatabaseFailureTypeName>;

/**
 * Not an answer: the supplier step ran out of attempts without one (timeouts, 5xx). The
 * booking may or may not exist, so the payment asks the supplier before anything else.
 */
export const OUTCOME_UNKNOWN = 'outcome_unknown';

/** What an `outcome_unknown` failure carries in its details: the attempts the supplier step made. */
export interface FinalizeAttemptsDetail {
  attempts: number;
}

/** A webhook delivery attempt the receiver did not take: retried with backoff. */
export const WEBHOOK_NOT_TAKEN = 'webhook_not_taken';

/**
 * The failure types that are a refusal (the domain or a supplier said no): retrying cannot
 * change them, and a step that fails with one is not ridden out or parked.
 */
export const REFUSAL_TYPES: readonly string[] = [...DOMAIN_REFUSALS, ...Object.values(FailureType)];

/** Whether a failure type is a refusal (REFUSAL_TYPES), not an outcome left open or a part down. */
export const isRefusalType = (type: string | undefined): boolean => type !== undefined && REFUSAL_TYPES.includes(type);

/** What the pay workflow fails with; the API maps each to a status (src/domain/errors.ts). */
export const PayFailure = {
  insufficientCredit: 'insufficient_credit',
  notPayable: 'not_payable',
  reversed: 'payment_reversed',
  /** The debit itself failed (the database, not the partner): nothing was charged. */
  debitFailed: 'debit_failed',
  /** An operator chose to compensate a parked payment. */
  operatorCompensated: 'operator_compensated',
} as const;

/** What a residence stay change fails with when the host did not take it. */
export const ResidenceFailure = {
  /**
   * A change the host did not answer through the step's tries, undone here because the
   * host, asked, did not hold it or could not be asked.
   */
  hostUnanswered: 'host_unanswered',
  /**
   * A change the host did not take whose undo could not be written at once: it is owed,
   * written in the background and parked for an operator while it fails.
   */
  undoOwed: 'undo_owed',
} as const;

/** What a flight change that did not happen fails with: the airline said no, and any debit was credited back. */
export const FlightChangeFailure = { reversed: 'change_reversed' } as const;

type ValueOf<T> = T[keyof T];

/** Every failure type above: what the API's answers (src/domain/errors.ts) are keyed by. */
export type FailureTypeName =
  | DomainErrorCode
  | ValueOf<typeof FailureType>
  | ValueOf<typeof DatabaseFailureType>
  | typeof OUTCOME_UNKNOWN
  | typeof WEBHOOK_NOT_TAKEN
  | ValueOf<typeof PayFailure>
  | ValueOf<typeof FlightChangeFailure>
  | ValueOf<typeof ResidenceFailure>;
