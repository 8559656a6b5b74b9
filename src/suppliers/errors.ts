/**
 * The supplier answered and said no (sold out, invalid request, rejected): retrying the
 * same request cannot help, so the saga compensates. Anything else a supplier call throws
 * (timeouts, 5xx, connection errors) is transient and retried.
 */
export class SupplierRejectedError extends Error {
  constructor(
    message: string,
    /** The supplier's HTTP status: 404 unknown, 409 sold out or not ready, 410 the hold is gone, 422 refused. */
    readonly status = 422,
    /** The supplier's own code for the refusal, when it gives one (Duffel's `errors[0].code`). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'SupplierRejectedError';
  }
}

export class SupplierUnavailableError extends Error {
  constructor(
    message: string,
    /** Seconds the supplier (or the engine's budget for it) says to wait before asking again, when it says. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'SupplierUnavailableError';
  }
}

/**
 * A search turned away before it reached the supplier: the searches a second the engine may
 * send it (SEARCH_BUDGETS) are spent, and no answer it may serve instead is kept. Its message
 * is the partner's.
 */
export class SearchBudgetSpentError extends SupplierUnavailableError {
  constructor(supplier: string, retryAfterSeconds: number) {
    super(`searches with ${supplier} are at their limit right now; try again in ${retryAfterSeconds} s`, retryAfterSeconds);
    this.name = 'SearchBudgetSpentError';
  }
}
