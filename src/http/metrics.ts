import { Hono, type Context } from 'hono';
import { healthz, publicHealthz } from '../health/answers';
import { sameSecret } from '../domain/operator-tokens';
import { METRICS_CONTENT_TYPE, registryFor, renderMetrics, type MetricsRole } from '../platform/metrics';
import type { Health } from '../health/model';

export interface MetricsSource {
  /** Which entry point this process is: it decides which of the engine's series it serves. */
  role: MetricsRole;
  /** The in-process Temporal Core exporter (`http://127.0.0.1:PORT/metrics`), appended; absent without a worker. */
  coreMetricsUrl?: string;
}

/** `GET /metrics`: the admin API puts it behind the operator token; the worker's metrics port serves it on a private address. */
export function metricsHandler(source: MetricsSource, beforeScrape?: () => Promise<void>) {
  const registry = registryFor(source.role);
  return async (c: Context) => {
    await beforeScrape?.();
    return c.text(await renderMetrics(registry, source.coreMetricsUrl), 200, { 'content-type': METRICS_CONTENT_TYPE });
  };
}

/**
 * The worker process's only HTTP server (`npm run worker`, on WORKER_METRICS_HOST:
 * WORKER_METRICS_PORT): `/metrics` with the worker's own series and the Temporal Core
 * worker metrics in one scrape; `/healthz`: 200 `{ok: true}` while the worker runs and
 * reaches Temporal and the database, else 503 `{ok: false}`; and `/admin/healthz` with the
 * bootstrap admin token (`Authorization: Bearer`): each part's check and what is down
 * (worker/heartbeat.ts).
 */
export function createWorkerMetricsApp(opts: { coreMetricsUrl?: string; health: Health; adminToken: string }) {
  const app = new Hono();
  app.get('/metrics', metricsHandler({ role: 'worker', coreMetricsUrl: opts.coreMetricsUrl }));
  app.get('/healthz', (c) => publicHealthz(c, opts.health.report()));
  app.get('/admin/healthz', (c) => {
    const auth = c.req.header('authorization') ?? '';
    if (!auth.startsWith('Bearer ') || !sameSecret(auth.slice(7).trim(), opts.adminToken)) return c.json({ error: 'missing or invalid admin token' }, 401);
    return healthz(c, opts.health.report());
  });
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  return app;
}
