import { AsyncLocalStorage } from 'node:async_hooks';
import { activityCancelled } from '../platform/request-context';
import { SupplierUnavailableError } from './errors';

/** The wait a search past its deadline asks for: the supplier is slow now, not gone. */
const DEADLINE_RETRY_AFTER_SECONDS = 5;

/** A search that outlived its deadline (SEARCH_DEADLINE_MS): the supplier is unavailable to it, 503 with Retry-After. */
export class SearchDeadlineError extends SupplierUnavailableError {
  constructor(supplier: string, ms: number) {
    super(`the search at ${supplier} did not finish within its ${ms} ms deadline`, DEADLINE_RETRY_AFTER_SECONDS);
    this.name = 'SearchDeadlineError';
  }
}

const deadlines = new AsyncLocalStorage<AbortSignal>();

/**
 * Aborted when the search this runs in is past its deadline: every supplier call under it
 * (src/suppliers/http.ts, the Duffel client) stops, and tries no more.
 */
export const searchDeadline = (): AbortSignal | undefined => deadlines.getStore();

/**
 * What stops a supplier call besides its own timeout: in an activity, its cancellation (or
 * its timeout); in a search, its deadline. Undefined when neither applies.
 */
export function callStopSignal(): AbortSignal | undefined {
  const signals = [activityCancelled(), searchDeadline()].filter((s): s is AbortSignal => s !== undefined);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/**
 * `run` within one deadline: past `ms` it is answered a SearchDeadlineError and what it
 * still calls is aborted. A deadline opened around it already is the one that holds, so a
 * search's reference list, its search and the supplier's retries share one.
 */
export async function withinSearchDeadline<T>(supplier: string, ms: number, run: () => Promise<T>): Promise<T> {
  if (deadlines.getStore()) return run();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new SearchDeadlineError(supplier, ms);
      controller.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([deadlines.run(controller.signal, run), expired]);
  } finally {
    clearTimeout(timer);
  }
}
