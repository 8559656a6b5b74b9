/**
 * `npm run worker`: a Temporal worker only, for production (scale it horizontally).
 * Connects to PostgreSQL (DATABASE_URL), a Temporal cluster (TEMPORAL_ADDRESS) and the
 * supplier (SUPPLIER_URL: the API reads from the same supplier the worker books with).
 * Serves its Prometheus metrics (its own series and Temporal Core's) and /healthz on
 * WORKER_METRICS_HOST:WORKER_METRICS_PORT. Started as src/runtime/start.ts says (startWorkerProcess).
 */
import { loadConfig } from '../src/config';
import { logError, logInfo } from '../src/platform/log';
import { runProcess } from '../src/runtime/process';
import { startWorkerProcess } from '../src/runtime/start';

runProcess(
  'the worker',
  async (shutdown) => {
    const config = loadConfig();
    const { supplier, temporal, metrics } = await startWorkerProcess(config, shutdown);
    logInfo('worker running', { taskQueue: config.TEMPORAL_TASK_QUEUE, temporal: temporal.address, supplier, metrics: metrics && `${metrics.url}/metrics` });
  },
  { error: logError },
);
