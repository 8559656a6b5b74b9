import type { Context } from 'hono';
import { asUnavailable, PartUnavailableError, RETRY_AFTER_SECONDS, type HealthReport } from './model';
import { logger } from '../platform/log';

// "Answer" is this codebase's one word for what an interface sends back to a request (a route's answer, WORKFLOW_ANSWERS, a supplier's answer).

/**
 * A request that met a part that is down: 503 with Retry-After, in the interface's shape
 * (`shape` builds its body from the message). Null when `err` is about something else.
 */
export function unavailableAnswer(err: unknown, c: Context, shape: (message: string) => object): Response | null {
  const down = asUnavailable(err);
  if (!(down instanceof PartUnavailableError)) return null;
  logger.warn({ part: down.part, detail: down.detail, path: c.req.path }, 'answered 503: a part is down');
  c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  return c.json(shape(down.message), 503);
}

/**
 * `GET /admin/healthz` (operators only): the last background round; 503 with Retry-After and
 * each part's check, with its cause, while one is down.
 */
export function healthz(c: Context, report: HealthReport & { supplier_breakers?: unknown[] }) {
  if (!report.ok) c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  return c.json(report, report.ok ? 200 : 503);
}

/**
 * The public `GET /healthz`: healthy or not, `{ok: true}` or 503 `{ok: false}` with Retry-After,
 * and nothing else: the causes name hosts, addresses and queues (the detail is `healthz`'s).
 */
export function publicHealthz(c: Context, report: HealthReport) {
  if (!report.ok) c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  return c.json({ ok: report.ok }, report.ok ? 200 : 503);
}
