import type { Context } from 'hono';
import { METRICS_CONTENT_TYPE, registryFor, renderMetrics, type MetricsRole } from '../metrics';

export interface MetricsSource {
  /** Which entry point this process is: it decides which of the engine's series it serves. */
  role: MetricsRole;
  /** The in-process Temporal Core exporter (`http://127.0.0.1:PORT/metrics`), appended; absent without a worker. */
  coreMetricsUrl?: string;
}

/** `GET /metrics`: unauthenticated like every scrape target, so only on a private address. */
export function metricsHandler(source: MetricsSource, beforeScrape?: () => Promise<void>) {
  const registry = registryFor(source.role);
  return async (c: Context) => {
    await beforeScrape?.();
    return c.text(await renderMetrics(registry, source.coreMetricsUrl), 200, { 'content-type': METRICS_CONTENT_TYPE });
  };
}
