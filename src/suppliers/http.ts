import { request } from 'undici';
import { logger } from '../platform/log';
import { inActivity } from '../platform/request-context';
import { callStopSignal } from './deadline';
import { SupplierRejectedError, SupplierUnavailableError } from './errors';

import { currentScenario } from '../sandbox/context';
import { SANDBOX_SCENARIO_HEADER } from '../sandbox/scenarios';

/** How long one call may take when its adapter does not say (SUPPLIER_CALL_TIMEOUT_MS's default). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/**
 * One JSON call to a supplier: 2xx is the answer, 4xx a rejection (final), 5xx, an answer
 * that is not JSON, or no answer at all is transient. The scenario header only means something to the simulator:
 * it is the call's own (`scenario`), or the one the call is made under (src/sandbox/context.ts).
 * Sent with undici's `request` (Node's own HTTP client under `fetch`, without building a
 * WHATWG Request, Headers and Response for each call).
 */
export async function callSupplier<T>(url: string, init: { method: 'GET' | 'POST'; body?: unknown; scenario?: string; timeoutMs?: number }): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const scenario = init.scenario ?? currentScenario();
  if (scenario) headers[SANDBOX_SCENARIO_HEADER] = scenario;
  const started = performance.now();
  let status: number;
  let retryAfter: string | string[] | undefined;
  let text: string;
  try {
    const res = await request(url, {
      method: init.method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: stopsWith(callStopSignal(), AbortSignal.timeout(init.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS)),
    });
    status = res.statusCode;
    retryAfter = res.headers['retry-after'];
    text = await res.body.text();
  } catch (err) {
    logCall(url, init.method, null, started, (err as Error).message);
    throw new SupplierUnavailableError(`supplier unreachable: ${(err as Error).message}`);
  }
  logCall(url, init.method, status, started);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    // An answer that is not JSON says nothing the engine can act on: as if none came.
    if (status < 400 || status >= 500) throw new SupplierUnavailableError(`supplier answered ${status} with a body that is not JSON`);
    body = {};
  }
  const message = (body as { error?: string }).error ?? `HTTP ${status}`;
  // Too many requests is no refusal of this one: it is transient, after the wait the supplier names.
  if (status === 429) throw new SupplierUnavailableError(`supplier rate limit: ${message}`, retryAfterOf(typeof retryAfter === 'string' ? retryAfter : null));
  if (status >= 400 && status < 500) throw new SupplierRejectedError(message, status);
  if (status < 200 || status >= 300) throw new SupplierUnavailableError(`supplier error ${status}: ${message}`);
  return body as T;
}

/** The call's own timeout, in an activity its cancellation, in a search its deadline: whichever comes first stops the call. */
function stopsWith(other: AbortSignal | undefined, timeout: AbortSignal): AbortSignal {
  return other ? AbortSignal.any([other, timeout]) : timeout;
}

/** A Retry-After of whole seconds (the form suppliers send), at least 1; undefined when absent or a date. */
function retryAfterOf(value: string | null): number | undefined {
  const seconds = value && /^\d{1,6}$/.test(value.trim()) ? Number(value) : undefined;
  return seconds === undefined ? undefined : Math.max(seconds, 1);
}

/**
 * One line per supplier call: method, path (no query), status (null: no answer) and
 * duration; the logger adds the request id and, in an activity, workflow and activity.
 * An activity's calls (holds, bookings, tickets: a few per payment) and every failure at
 * info; the API's own calls, all reads (searches, rate checks), at debug when they
 * succeed: the request's own line already covers them, and they are the many.
 */
function logCall(url: string, method: string, status: number | null, started: number, error?: string): void {
  const fields = { method, path: new URL(url).pathname, status, ms: Math.round(performance.now() - started), ...(error ? { error } : {}) };
  const ok = status !== null && status < 400;
  if (ok && !inActivity()) logger.debug(fields, 'supplier call');
  else logger.info(fields, 'supplier call');
}
