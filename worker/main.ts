/**
 * `npm run worker`: a Temporal worker only, for production (scale it horizontally).
 * Connects to PostgreSQL (DATABASE_URL), a Temporal cluster (TEMPORAL_ADDRESS) and the
 * supplier (SUPPLIER_URL: the API reads from the same supplier the worker books with).
 */
import { loadConfig } from '../src/config';
import { logError, logInfo } from '../src/http/log';
import { installWorkerRuntime, openMigratedDatabase, requireSupplierUrl, runProcess, runWorker } from '../src/runtime/services';
import { ensureTemporal } from '../src/runtime/temporal';

runProcess(
  'the worker',
  async (stack) => {
    const config = loadConfig();
    const temporal = await ensureTemporal(config, (msg) => logInfo(msg));
    stack.add(() => temporal.stop());
    const database = await openMigratedDatabase(config, stack);
    const supplier = requireSupplierUrl(config);
    const metrics = installWorkerRuntime(config);
    await runWorker(config, temporal.address, database, supplier, stack);
    logInfo('worker running', { taskQueue: config.TEMPORAL_TASK_QUEUE, temporal: temporal.address, supplier, metrics });
  },
  { error: logError },
);
