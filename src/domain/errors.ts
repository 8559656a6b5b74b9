/**
 * What the API answers for a failure, in one place: the domain's errors, the status each
 * code answers on each interface, and what each failure a workflow ends with answers (the
 * failure types are in workflows/failure-types.ts). Each interface shapes its error body in
 * its onError (src/http/partner/app.ts, src/http/agency/app.ts); anything else is an
 * unexpected 500.
 */
import { PartUnavailableError } from '../health/model';
import type { DomainErrorCode, FailureTypeName } from '../../workflows/failure-types';

export type { DomainErrorCode };

/** An error the domain raises on purpose: a refusal the partner is answered with. */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validation = (field: string, message: string) => new DomainError('validation', `${field}: ${message}`, field);
export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);

/** The status each code answers: on Interface A (`partner`) and on Interface B (`agency`). */
export const HTTP_STATUS: Record<DomainErrorCode, { partner: number; agency: number }> = {
  validation: { partner: 400, agency: 422 },
  unauthorized: { partner: 401, agency: 401 },
  not_found: { partner: 404, agency: 404 },
  not_payable: { partner: 400, agency: 409 },
  insufficient_credit: { partner: 402, agency: 402 },
  conflict: { partner: 409, agency: 409 },
  /** The supplier said no and every effect was undone. */
  supplier_failed: { partner: 502, agency: 500 },
  /** The supplier's currency has no current exchange rate into the wallet's: the sale is refused, not guessed. */
  currency_unavailable: { partner: 409, agency: 409 },
  /** The caller's role or connection lacks a right the request needs. */
  forbidden: { partner: 403, agency: 403 },
};

/**
 * What a failure answers: a domain error of that code (`say` rewords the failure's message),
 * or 503 for the database down (`unchanged`: the request was turned away before it changed
 * anything; else it did not complete).
 */
type Answer = DomainErrorCode | { code: DomainErrorCode; say: (message: string) => string } | 'database_down' | 'database_down_unchanged';

/**
 * What the API answers for each failure type a workflow it awaits (or updates) can end
 * with, per operation. A failure type an operation does not list is no answer: the error
 * stays as Temporal gave it (500, logged; a residence change answers it as the request's
 * fault, updateFailure). `everyWorkflow` applies to all of them
 * (workflowAnswer adds it to each operation's answers): a value the database refused is the request's
 * fault, whatever the workflow.
 */
export const WORKFLOW_ANSWERS = {
  everyWorkflow: { invalid_data: { code: 'validation', say: (m) => `a value in the request cannot be stored: ${m}` } },
  /** POST /api/partners/pay/ (the payment: workflows/pay.workflow.ts). */
  pay: {
    insufficient_credit: 'insufficient_credit',
    not_payable: 'not_payable',
    payment_reversed: 'supplier_failed',
    // The debit could not be written (the database, bounded retries spent): nothing was charged, the partner may try again.
    debit_failed: 'database_down_unchanged',
  },
  /** Interface B's hotel booking, settled at creation (its hold, then the payment). */
  agencyHotelBooking: {
    hold_refused: 'validation',
    insufficient_credit: 'insufficient_credit',
    // Only the saga's own child pays the order (Interface A's pay refuses B's orders); this is what else makes it unpayable (a wallet in another currency).
    not_payable: 'not_payable',
    // The hold is priced when the supplier answers it: B's booking carries no price of the search, so a rate gone stale since refuses it there.
    currency_unavailable: 'currency_unavailable',
    // The room's hold ended before the order could be made (src/domain/agency/orders.ts, orderAgencyBooking).
    conflict: 'conflict',
    payment_reversed: { code: 'supplier_failed', say: (m) => `${m}; nothing was charged` },
    // The child payment's debit could not be written (the database, bounded retries spent): nothing was charged, the booking or order failed.
    debit_failed: 'database_down',
  },
  /** Interface B's product order, settled at creation (the payment). */
  agencyProductOrder: {
    insufficient_credit: 'insufficient_credit',
    not_payable: 'not_payable',
    payment_reversed: { code: 'supplier_failed', say: (m) => `${m}; nothing was charged` },
    // The child payment's debit could not be written (the database, bounded retries spent): nothing was charged, the booking or order failed.
    debit_failed: 'database_down',
  },
  flightBooking: { hold_refused: 'validation' },
  flightRefund: { refund_rejected: 'supplier_failed' },
  /** POST /api/flights/air_change_confirm/ (workflows/flight-change.workflow.ts). */
  flightChange: {
    insufficient_credit: 'insufficient_credit',
    validation: 'validation',
    conflict: 'conflict',
    change_reversed: 'supplier_failed',
    // The debit could not be written (the database, bounded retries spent): nothing was charged.
    database_unavailable: 'database_down_unchanged',
  },
  hotelHold: { hold_refused: 'validation' },
  hotelCancel: { cancel_rejected: 'supplier_failed', conflict: 'validation' },
  /** Residence and tour holds. */
  datesHold: { validation: 'validation' },
  /** A residence stay change or cancellation request (a workflow update; src/domain/residence/service.ts, updateFailure). */
  residenceChange: {
    host_unanswered: {
      code: 'supplier_failed',
      say: (m) => `${m}; the change was undone: the stay and the wallet are as they were, try again later`,
    },
    undo_owed: {
      code: 'supplier_failed',
      say: (m) => `${m}: the stay and the wallet show the change until it is; it is retried, and an operator is told if it cannot be written`,
    },
    insufficient_credit: 'insufficient_credit',
    not_found: 'not_found',
    conflict: 'conflict',
    // The database down through the step's tries.
    database_unavailable: 'database_down',
  },
} satisfies Record<string, Partial<Record<FailureTypeName, Answer>>>;

export type AnsweringOperation = keyof typeof WORKFLOW_ANSWERS;

/**
 * The answer of `operation` to a workflow's failure (its type and message), or null when it
 * has none; what every workflow answers comes with it (awaitWorkflow is handed this). A
 * validation names `field` when given.
 */
export function workflowAnswer(operation: AnsweringOperation, field?: string): (f: { type: string; message: string }) => Error | null {
  const own = answerOf(WORKFLOW_ANSWERS[operation], field);
  return (f) => own(f) ?? everyWorkflowAnswer(f);
}

const everyWorkflowAnswer = answerOf(WORKFLOW_ANSWERS.everyWorkflow);

/** The answer of a workflow update's failure: the operation's own answers only (the caller says the rest; residence/service.ts, updateFailure). */
export const updateAnswer = (operation: AnsweringOperation): ((f: { type: string; message: string }) => Error | null) => answerOf(WORKFLOW_ANSWERS[operation]);

function answerOf(answers: Partial<Record<string, Answer>>, field?: string): (f: { type: string; message: string }) => Error | null {
  return (f) => {
    const answer = Object.hasOwn(answers, f.type) ? answers[f.type] : undefined;
    if (answer === undefined) return null;
    if (answer === 'database_down' || answer === 'database_down_unchanged')
      return new PartUnavailableError('database', f.message, answer === 'database_down_unchanged');
    const code = typeof answer === 'string' ? answer : answer.code;
    const message = typeof answer === 'string' ? f.message : answer.say(f.message);
    return code === 'validation' && field ? validation(field, message) : new DomainError(code, message);
  };
}
