/**
 * `npm start`: the whole engine in one process, for a laptop or a demo: Temporal dev
 * server (unless TEMPORAL_ADDRESS is set), database migrations, supplier simulator,
 * worker, the public API and the admin API. Production runs `npm run api` and
 * `npm run worker` as separate processes instead.
 */
import { loadConfig } from './config';
import { logError, logInfo } from './platform/log';
import { ensureAdminToken } from './runtime/admin-token';
import { seedCatalog } from './db/seed/seed';
import { startApiHealth } from './runtime/api-health';
import { openMigratedDatabase } from './runtime/database';
import { runProcess } from './runtime/process';
import { openProcessFile, stopLeftoverDevServer } from './runtime/process-file';
import { serveHttp } from './runtime/serve-http';
import { supplierUrl } from './runtime/supplier-url';
import { devServerDbFile, ensureTemporal, temporalClient, temporalConnection } from './temporal/connection';
import { WorkflowOutcomes } from './temporal/outcomes';
import { installWorkerRuntime } from '../worker/runtime';
import { runWorker } from '../worker/worker';

runProcess(
  'the engine',
  async (stack) => {
    const config = loadConfig(process.env, { sandbox: true });
    const admin = ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR);
    // An engine killed outright may have left its dev server behind (where no parent-death
    // signal exists): stop it, so it frees the port. The file is recorded from here on and
    // removed last, once the dev server has stopped.
    await stopLeftoverDevServer(config.DATA_DIR, devServerDbFile(config.DATA_DIR), (msg) => logInfo(msg));
    const processes = openProcessFile(config.DATA_DIR);
    processes.record('engine', process.pid);
    stack.add(async () => processes.remove());
    const temporal = await ensureTemporal(
      config,
      (msg) => logInfo(msg),
      stack,
      (pid) => processes.record('temporal', pid),
    );

    const database = await openMigratedDatabase(config, stack);
    await seedCatalog(database.db);
    logInfo('database ready, migrations applied', { kind: database.kind });
    const supplier = await supplierUrl(config, stack);
    const coreMetricsUrl = installWorkerRuntime(config);
    // The API hears how the runs of this process's worker end from the worker itself.
    const outcomes = new WorkflowOutcomes();
    const { worker, connection } = await runWorker(config, temporal.address, database, supplier.url, stack, outcomes);
    // The API's client shares the worker's connection, so that payments start eagerly: the
    // server hands the first workflow task back in the start answer, to the worker that shares it.
    const apiConnection = await temporalConnection(temporal.address, stack, connection);
    // The worker is in this process: readiness asks it directly, no heartbeat needed.
    const health = await startApiHealth(config, { database, temporalAddress: temporal.address, workerRunning: () => worker.getState() === 'RUNNING' }, stack);
    const client = temporalClient(config, apiConnection, health);

    const { api, admin: adminServer } = await serveHttp(
      config,
      {
        database,
        temporal: client,
        health,
        adminToken: admin.token,
        supplierUrl: supplier.url,
        metrics: { role: 'all-in-one', coreMetricsUrl },
        eagerStart: true,
        outcomes,
      },
      stack,
    );

    console.log(
      [
        'travel booking engine is up',
        `  API (Interface A):  http://127.0.0.1:${api.port}/api/   docs: http://127.0.0.1:${api.port}/api/docs`,
        `  health:             http://127.0.0.1:${api.port}/healthz`,
        `  admin API:          ${adminServer.url}  (token in ${admin.file ?? 'ADMIN_TOKEN'}; metrics at ${adminServer.url}/metrics)`,
        `  Temporal:           ${temporal.address}${temporal.uiUrl ? `   Web UI: ${temporal.uiUrl}` : ''}`,
        `  supplier:           ${supplier.url}${supplier.builtIn ? ' (built-in simulator)' : ''}`,
        `  sandbox scenarios:  ${config.SANDBOX ? 'on' : 'off'}`,
      ].join('\n'),
    );
  },
  { error: logError },
);
