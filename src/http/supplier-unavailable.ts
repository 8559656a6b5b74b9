import type { Context } from 'hono';
import { SearchBudgetSpentError, SupplierUnavailableError } from '../suppliers/errors';

/**
 * A supplier that did not answer, or the engine's budget for its searches spent: 503 in the
 * interface's shape (`shape` builds its body from the message), with `Retry-After` when the
 * wait is known. Null when `err` is about something else.
 */
export function supplierUnavailableAnswer(err: unknown, c: Context, shape: (message: string) => object): Response | null {
  if (!(err instanceof SupplierUnavailableError)) return null;
  if (err.retryAfterSeconds) c.header('Retry-After', String(err.retryAfterSeconds));
  return c.json(shape(err instanceof SearchBudgetSpentError ? err.message : 'the supplier is unavailable right now; try again shortly'), 503);
}
