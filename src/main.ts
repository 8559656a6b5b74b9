/**
 * `npm start`: the whole engine in one process, for a laptop or a demo: Temporal dev
 * server (unless TEMPORAL_ADDRESS is set), database migrations, supplier simulator,
 * worker, the public API and the admin API. Production runs `npm run api` and
 * `npm run worker` as separate processes instead.
 */
import { loadConfig } from './config';
import { createAdminApp } from './http/admin/app';
import { createApp } from './http/app';
import { healthCheck } from './http/health';
import { listen } from './http/listen';
import { logError, logInfo } from './http/log';
import { ensureAdminToken } from './runtime/admin-token';
import { openMigratedDatabase, runProcess, runWorker, supplierUrl, temporalClient } from './runtime/services';
import { ensureTemporal } from './runtime/temporal';

runProcess(
  'the engine',
  async (stack) => {
    const config = loadConfig(process.env, { sandbox: true });
    const admin = ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR);
    const temporal = await ensureTemporal(config, (msg) => logInfo(msg));
    stack.add(() => temporal.stop());

    const database = await openMigratedDatabase(config, stack);
    logInfo('database ready, migrations applied', { kind: database.kind });
    const supplier = await supplierUrl(config, stack);
    const worker = await runWorker(config, temporal.address, database, supplier.url, stack);
    const client = await temporalClient(config, temporal.address, stack);
    const health = healthCheck({
      db: database.db,
      temporal: client,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workerRunning: () => worker.getState() === 'RUNNING',
    });

    const api = await listen(
      createApp({
        db: database.db,
        temporal: client,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        payWaitMs: config.PAY_WAIT_MS,
        sandbox: config.SANDBOX,
        currency: config.CURRENCY,
        health,
      }).fetch,
      config.PORT,
      '0.0.0.0',
    );
    stack.add(() => api.close());
    const adminServer = await listen(
      createAdminApp({ db: database.db, adminToken: admin.token, currency: config.CURRENCY, health }).fetch,
      config.ADMIN_PORT,
      config.ADMIN_HOST,
    );
    stack.add(() => adminServer.close());

    console.log(
      [
        'travel booking engine is up',
        `  API (Interface A):  http://127.0.0.1:${api.port}/api/   docs: http://127.0.0.1:${api.port}/api/docs`,
        `  health:             http://127.0.0.1:${api.port}/healthz`,
        `  admin API:          ${adminServer.url}  (token in ${admin.file ?? 'ADMIN_TOKEN'})`,
        `  Temporal:           ${temporal.address}${temporal.uiUrl ? `   Web UI: ${temporal.uiUrl}` : ''}`,
        `  supplier:           ${supplier.url}${supplier.builtIn ? ' (built-in simulator)' : ''}`,
        `  sandbox scenarios:  ${config.SANDBOX ? 'on' : 'off'}`,
      ].join('\n'),
    );
  },
  { error: logError },
);
