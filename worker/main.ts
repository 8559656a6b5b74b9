/**
 * `npm run worker`: a Temporal worker only, for production (scale it horizontally).
 * Connects to PostgreSQL (DATABASE_URL), a Temporal cluster (TEMPORAL_ADDRESS) and the
 * supplier (SUPPLIER_URL: the API reads from the same supplier the worker books with).
 * Serves its Prometheus metrics (its own series and Temporal Core's) and /healthz on
 * WORKER_METRICS_HOST:WORKER_METRICS_PORT.
 */
import { loadConfig } from '../src/config';
import { logError, logInfo } from '../src/platform/log';
import type { Worker } from '@temporalio/worker';
import type { Database } from '../src/db/client';
import { seedCatalog } from '../src/db/seed/seed';
import { openMigratedDatabase } from '../src/runtime/database';
import { runProcess } from '../src/runtime/process';
import { requireSupplierUrl } from '../src/runtime/supplier-url';
import { runWorker } from '../src/runtime/engine-worker';
import { ensureAdminToken } from '../src/runtime/admin-token';
import { ensureTemporal } from '../src/temporal/connection';
import { serveWorkerMetrics } from './metrics';
import { startPresence } from './presence';
import { installWorkerRuntime } from './runtime';

runProcess(
  'the worker',
  async (stack) => {
    const config = loadConfig();
    const supplier = requireSupplierUrl(config);
    // Core's exporter is only read through the worker's own endpoint: without one, no exporter.
    const coreMetricsUrl = config.WORKER_METRICS_PORT === 0 ? undefined : installWorkerRuntime(config);
    // Up first, so a slow start (migrations, bundling the workflows) is a 503 on /healthz.
    let worker: Worker | undefined;
    let temporalAddress: string | undefined;
    let database: Database | undefined;
    const presence = await startPresence(config, { worker: () => worker, temporalAddress: () => temporalAddress, database: () => database }, stack);
    const metrics = await serveWorkerMetrics(
      config,
      { coreMetricsUrl, health: presence.health, adminToken: () => ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR).token },
      stack,
    );
    const temporal = await ensureTemporal(config, (msg) => logInfo(msg), stack);
    temporalAddress = temporal.address;
    const opened = await openMigratedDatabase(config, stack);
    await seedCatalog(opened.db);
    database = opened;
    ({ worker } = await runWorker(config, temporal.address, database, supplier, stack));
    // Stopping: the heartbeat goes first (the API sees this worker gone at once), then the worker drains.
    stack.add(() => presence.stop());
    logInfo('worker running', { taskQueue: config.TEMPORAL_TASK_QUEUE, temporal: temporal.address, supplier, metrics: metrics && `${metrics.url}/metrics` });
  },
  { error: logError },
);
