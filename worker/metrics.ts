import type { Health } from '../src/health/model';
import type { Config } from '../src/config';
import { createWorkerMetricsApp } from '../src/http/metrics';
import { listen, type RunningServer } from '../src/platform/listen';
import type { ShutdownList } from '../src/platform/shutdown-list';

/**
 * The worker process's Prometheus endpoint on WORKER_METRICS_HOST:WORKER_METRICS_PORT
 * (0: none): its prom-client series and the Core exporter's, /healthz (503 until the
 * worker runs, and whenever Temporal or the database does not answer) and, with the admin
 * token (ADMIN_TOKEN, or DATA_DIR/admin-token; read only when the endpoint is on), /admin/healthz naming what is down.
 */
export async function serveWorkerMetrics(
  config: Config,
  deps: { coreMetricsUrl?: string; health: Health; adminToken: () => string },
  shutdown: ShutdownList,
): Promise<RunningServer | undefined> {
  if (config.WORKER_METRICS_PORT === 0) return undefined;
  const app = createWorkerMetricsApp({ coreMetricsUrl: deps.coreMetricsUrl, health: deps.health, adminToken: deps.adminToken() });
  const server = await listen(app.fetch, config.WORKER_METRICS_PORT, config.WORKER_METRICS_HOST);
  shutdown.add(() => server.close());
  return server;
}
