import { Duffel, DuffelError } from '@duffel/api';
import { logger } from '../../../platform/log';
import { inActivity } from '../../../platform/request-context';
import { callStopSignal, searchDeadline } from '../../deadline';
import { SupplierRejectedError, SupplierUnavailableError } from '../../errors';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../http';

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
 * What Duffel's refusal codes are to our callers: 404 not found; 409 what was asked about
 * changed or is gone (the partner's "no longer available" and "price changed" answers);
 * 410 the order is cancelled. Every other refusal is a 422. The message is our own words
 * with Duffel's code; Duffel's own text is never passed on.
 */
const REFUSAL_STATUS: Record<string, number> = {
  not_found: 404,
  offer_no_longer_available: 409,
  price_changed: 409,
  already_paid: 409,
  order_cancellation_expired: 409,
  result_no_longer_available: 409,
  rate_unavailable: 409,
  quote_no_longer_available: 409,
  already_booked: 409,
  order_change_expired: 409,
  order_change_already_confirmed: 409,
  already_actioned: 409,
  already_cancelled: 410,
};

/** What Duffel's answer to a call that failed means for us. */
export function duffelFailure(what: string, err: unknown): Error {
  if (!(err instanceof DuffelError)) return new SupplierUnavailableError(`Duffel did not answer ${what}: ${(err as Error).message}`);
  const status = err.status ?? err.meta?.status;
  const code = err.errors?.[0]?.code ?? 'unknown';
  if (status === undefined || status >= 500 || status === 429)
    return new SupplierUnavailableError(`Duffel could not answer ${what} (${status ?? 'no status'}, ${code})`);
  const refusal = REFUSAL_STATUS[code] ?? (status === 404 ? 404 : 422);
  if (refusal === 404) return new SupplierRejectedError(`${what}: not found at the supplier (${code})`, 404, code);
  if (refusal === 409) return new SupplierRejectedError(`${what}: no longer available as it was at the supplier (${code})`, 409, code);
  if (refusal === 410) return new SupplierRejectedError(`${what}: cancelled at the supplier (${code})`, 410, code);
  return new SupplierRejectedError(`${what}: refused by the supplier (${code})`, 422, code);
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

/** The call's answer, unless `ms` pass first, the activity it runs in is cancelled or times out, or its search's deadline passes. */
function withTimeout<T>(what: string, ms: number, run: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const cancelled = callStopSignal();
  let stop: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SupplierUnavailableError(`Duffel did not answer ${what} within ${ms} ms`)), ms);
    if (!cancelled) return;
    stop = () => reject(new SupplierUnavailableError(`${what}: stopped waiting for Duffel, the activity was cancelled or its search's deadline passed`));
    if (cancelled.aborted) stop();
    else cancelled.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([run, timeout]).finally(() => {
    clearTimeout(timer);
    if (stop) cancelled?.removeEventListener('abort', stop);
  });
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
  /** One page of a list (a read): its items and the cursor of the next page (null: the last). */
  page<T>(
    what: string,
    run: (sdk: Duffel, after: string | undefined) => Promise<{ data: T[]; meta?: { after?: string | null } }>,
    after?: string,
  ): Promise<{ items: T[]; after: string | null }>;
}

export function duffelCalls(settings: DuffelSettings): DuffelCalls {
  const sdk = new Duffel({ token: settings.token, ...(settings.apiUrl ? { basePath: settings.apiUrl } : {}) });
  const timeoutMs = settings.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const attempts = settings.attempts ?? 3;
  const maxWaitMs = settings.maxWaitMs ?? 10_000;
  const calls: DuffelCalls = {
    sdk,
    async page(what, run, after) {
      const answer = await calls.call(
        what,
        async (d) => {
          const res = await run(d, after);
          return { data: { items: res.data, after: res.meta?.after ?? null } };
        },
        { safe: true },
      );
      return answer;
    },
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
          // Past its search's deadline a call is tried no more: the search has been answered already.
          const last = attempt >= attempts || searchDeadline()?.aborted === true;
          if (status === 429 && !last) {
            const wait = resetWaitMs((err as InstanceType<typeof DuffelError>).headers, Date.now()) ?? 1000 * attempt;
            if (wait <= maxWaitMs) {
              await sleep(Math.max(wait, 50));
              continue;
            }
          }
          const transient = status === null || status >= 500;
          if (transient && opts.safe && !last) {
            await sleep(200 * 2 ** (attempt - 1));
            continue;
          }
          throw duffelFailure(what, err);
        }
      }
    },
  };
  return calls;
}

function log(what: string, status: number | null, started: number, error?: string): void {
  const fields = { supplier: 'duffel', call: what, status, ms: Math.round(performance.now() - started), ...(error ? { error } : {}) };
  if (status === 200 && !inActivity()) logger.debug(fields, 'supplier call');
  else logger.info(fields, 'supplier call');
}
