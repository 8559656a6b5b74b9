import type { Context } from 'hono';
import { logger } from '../platform/log';
import { SearchBudgetSpentError, SupplierRejectedError, SupplierUnavailableError } from '../suppliers/errors';

/** The wait a 503 asks for when the supplier did not say. */
export const SUPPLIER_RETRY_AFTER_SECONDS = 5;

/**
 * What a supplier's failure answers on either interface, in one place, whatever route met it:
 * a supplier that did not answer, or the engine's budget for its searches spent, is 503 with
 * `Retry-After`; a refusal no flow turned into the partner's own error (a reference list
 * refused, a request the supplier calls invalid) is 502, in the engine's words with the
 * supplier's code, never its text. `shape` builds the interface's body from the message. Null
 * when `err` is about something else.
 */
export function supplierFailureAnswer(err: unknown, c: Context, shape: (message: string) => object): Response | null {
  if (err instanceof SupplierUnavailableError) {
    c.header('Retry-After', String(err.retryAfterSeconds ?? SUPPLIER_RETRY_AFTER_SECONDS));
    return c.json(shape(err instanceof SearchBudgetSpentError ? err.message : 'the supplier is unavailable right now; try again shortly'), 503);
  }
  if (err instanceof SupplierRejectedError) {
    logger.warn({ path: c.req.path, supplierStatus: err.status, supplierCode: err.code, err: err.message }, 'a supplier refused a call no flow answers');
    const code = err.code ? ` (${err.code})` : '';
    return c.json(shape(`the supplier refused this request${code}; try again later`), 502);
  }
  return null;
}
