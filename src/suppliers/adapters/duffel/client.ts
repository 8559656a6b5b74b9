import { Duffel, DuffelError } from '@duffel/api';
import { logger } from '../../../platform/log';
import { inActivity } from '../../../platform/request-context';
import { SupplierRejectedError, SupplierUnavailableError } from '../../errors';

export interface DuffelSettings {
  /** A Duffel access token (`duffel_test_…` in test mode, `duffel_live_…` live). */
  token: string;
  /** Duffel's API origin; the SDK's own default is Duffel's production address. */
  apiUrl?: string;
  /** How long one call may take before it counts as unanswered. */
  timeoutMs?: number;
  /** How many times a call Duffel rate-limited (429), or a read that failed in transit, is tried in all. */
  attempts?: number;
  /** The longest wait for a rate limit's reset before the call counts as unavailable. */
  maxWaitMs?: number;
}

/**
 * Duffel's error codes that mean "what you asked about is gone" (409 to our callers: the
 * partner's "no longer available" answers) and "not found" (404). Every other refusal is a
 * 422 in our own words, naming Duffel's code but never passing its text on.
 */
const GONE = new Set(['offer_no_longer_available', 'offer_request_already_booked', 'already_cancelled', 'order_already_cancelled', 'quote_expired', 'rate_unavailable', 'expired']);
const NOT_FOUND = new Set(['not_found', 'resource_not_found']);

/** What Duffel's answer to a call that failed means for us. */
export function duffelFailure(what: string, err: unknown): Error {
  if (!(err instanceof DuffelError)) return new SupplierUnavailableError(`Duffel did not answer ${what}: ${(err as Error).message}`);
  const status = err.status ?? err.meta?.status;
  const code = err.errors?.[0]?.code ?? 'unknown';
  if (status === undefined || status >= 500 || status === 429) return new SupplierUnavailableError(`Duffel could not answer ${what} (${status ?? 'no status'}, ${code})`);
  if (NOT_FOUND.has(code) || status === 404) return new SupplierRejectedError(`${what}: not found at the supplier`, 404);
  if (GONE.has(code)) return new SupplierRejectedError(`${what}: no longer available at the supplier (${code})`, 409);
  return new SupplierRejectedError(`${what}: refused by the supplier (${code})`, 422);
}

/** The wait a 429 asks for: `ratelimit-reset` is an HTTP date, or seconds. */
export function resetWaitMs(headers: { get(name: string): string | null } | undefined, now: number): number | null {
  const reset = headers?.get('ratelimit-reset');
  if (!reset) return null;
  if (/^\d+$/.test(reset)) {
    const n = Number(reset);
    // Seconds until the reset, or (a large number) its Unix time.
    return n > 1e9 ? n * 1000 - now : n * 1000;
  }
  const at = Date.parse(reset);
  return Number.isNaN(at) ? null : at - now;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(what: string, ms: number, run: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SupplierUnavailableError(`Duffel did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}

export interface DuffelCalls {
  sdk: Duffel;
  /**
   * One call to Duffel. A 429 is waited out (its `ratelimit-reset`, within `maxWaitMs`) and
   * tried again, any call; a read (`safe`) is also tried again after a 5xx or no answer. A
   * write that failed in transit is not repeated here: its outcome is open, and the caller
   * looks it up before anything else happens.
   */
  call<T>(what: string, run: (sdk: Duffel) => Promise<{ data: T }>, opts?: { safe?: boolean }): Promise<T>;
}

export function duffelCalls(settings: DuffelSettings): DuffelCalls {
  const sdk = new Duffel({ token: settings.token, ...(settings.apiUrl ? { basePath: settings.apiUrl } : {}) });
  const timeoutMs = settings.timeoutMs ?? 30_000;
  const attempts = settings.attempts ?? 3;
  const maxWaitMs = settings.maxWaitMs ?? 10_000;
  return {
    sdk,
    async call(what, run, opts = {}) {
      for (let attempt = 1; ; attempt++) {
        const started = performance.now();
        try {
          const answer = await withTimeout(what, timeoutMs, run(sdk));
          log(what, 200, started);
          return answer.data;
        } catch (err) {
          const status = err instanceof DuffelError ? (err.status ?? err.meta?.status ?? null) : null;
          log(what, status, started, err instanceof Error ? err.message : String(err));
          const last = attempt >= attempts;
          if (status === 429 && !last) {
            const wait = resetWaitMs((err as InstanceType<typeof DuffelError>).headers, Date.now()) ?? 1000 * attempt;
            if (wait <= maxWaitMs) {
              await sleep(Math.max(wait, 50));
              continue;
            }
          }
          const transient = status === null || status >= 500;
          if (transient && opts.safe && !last && !(err instanceof SupplierUnavailableError && !opts.safe)) {
            await sleep(200 * 2 ** (attempt - 1));
            continue;
          }
          throw duffelFailure(what, err);
        }
      }
    },
  };
}

function log(what: string, status: number | null, started: number, error?: string): void {
  const fields = { supplier: 'duffel', call: what, status, ms: Math.round(performance.now() - started), ...(error ? { error } : {}) };
  if (status === 200 && !inActivity()) logger.debug(fields, 'supplier call');
  else logger.info(fields, 'supplier call');
}
