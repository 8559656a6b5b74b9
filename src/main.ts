/**
 * `npm start`: the whole engine in one process, for a laptop or a demo: Temporal dev
 * server (unless TEMPORAL_ADDRESS is set), database migrations, supplier simulator,
 * worker, the public API and the admin API. Production runs `npm run api` and
 * `npm run worker` as separate processes instead.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from './config';
import { openDatabase } from './db/client';
import { seedCatalog } from './db/seed/seed';
import { createAdminApp } from './http/admin/app';
import { createApp } from './http/app';
import { healthCheck } from './http/health';
import { listen, type RunningServer } from './http/listen';
import { logError, logInfo } from './http/log';
import { ensureAdminToken } from './runtime/admin-token';
import { ensureTemporal } from './runtime/temporal';
import { startSimulator } from './suppliers/simulator/app';
import { httpProductSupplier } from './suppliers/products';
import { createWorker } from '../worker/worker';

async function main() {
  const config = loadConfig(process.env, { sandbox: true });
  const log = (msg: string) => logInfo(msg);
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => logError('error while stopping', err));
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  try {
    const admin = ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR);
    const temporal = await ensureTemporal(config, log);
    stops.push(() => temporal.stop());

    const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
    stops.push(() => database.close());
    await seedCatalog(database.db);
    log(`database ready (${database.kind}${database.kind === 'pglite' ? ` in ${config.DATA_DIR}/pglite` : ''}), migrations applied`);

    let supplierUrl = config.SUPPLIER_URL;
    if (!supplierUrl) {
      const simulator = await startSimulator({ port: config.SIMULATOR_PORT, slowMs: config.SANDBOX_SLOW_MS });
      stops.push(() => simulator.close());
      supplierUrl = simulator.url;
    }

    const nativeConnection = await NativeConnection.connect({ address: temporal.address });
    stops.push(() => nativeConnection.close());
    const worker = await createWorker({
      connection: nativeConnection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      deps: { db: database.db, productSupplier: httpProductSupplier(supplierUrl) },
    });
    const running = worker.run();
    running.catch((err) => logError('worker stopped with an error', err));
    stops.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
    });

    const connection = await Connection.connect({ address: temporal.address });
    stops.push(() => connection.close());
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    const health = healthCheck({
      db: database.db,
      temporal: client,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workerRunning: () => worker.getState() === 'RUNNING',
    });

    const servers: RunningServer[] = [];
    servers.push(
      await listen(
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
      ),
    );
    servers.push(await listen(createAdminApp({ db: database.db, adminToken: admin.token, currency: config.CURRENCY, health }).fetch, config.ADMIN_PORT, config.ADMIN_HOST));
    for (const s of servers) stops.push(() => s.close());

    const [api, adminServer] = servers;
    console.log(
      [
        'travel booking engine is up',
        `  API (Interface A):  http://127.0.0.1:${api!.port}/api/   docs: http://127.0.0.1:${api!.port}/api/docs`,
        `  health:             http://127.0.0.1:${api!.port}/healthz`,
        `  admin API:          ${adminServer!.url}  (token: ${admin.file ?? 'ADMIN_TOKEN'})`,
        `  Temporal:           ${temporal.address}${temporal.uiUrl ? `   Web UI: ${temporal.uiUrl}` : ''}`,
        `  supplier:           ${supplierUrl}${config.SUPPLIER_URL ? '' : ' (built-in simulator)'}`,
        `  sandbox scenarios:  ${config.SANDBOX ? 'on' : 'off'}`,
      ].join('\n'),
    );
  } catch (err) {
    logError('start-up failed', err);
    await stopAll();
    process.exit(1);
  }
}

void main();
