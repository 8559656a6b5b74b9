import type { NativeConnection } from '@temporalio/worker';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { seedCatalog } from '../db/seed/seed';
import type { RunningServer } from '../platform/listen';
import { logInfo } from '../platform/log';
import { devServerDbFile, ensureTemporal, temporalClient, temporalConnection, type TemporalEndpoint } from '../temporal/connection';
import { WorkflowOutcomes } from '../temporal/outcomes';
import { installWorkerRuntime } from '../../worker/runtime';
import { runWorker } from './engine-worker';
import { ensureAdminToken } from './admin-token';
import { startApiHealth } from './api-health';
import { openMigratedDatabase } from './database';
import { temporalPayloadCodec } from './payload-key';
import { openProcessFile, stopLeftoverDevServer } from './process-file';
import { serveHttp, type PublicRoutes } from './serve-http';
import type { Stack } from '../platform/stack';
import { supplierUrl } from './supplier-url';

/** The whole engine of one process, as started by startEngine. */
export interface Engine {
  api: RunningServer;
  admin: RunningServer;
  /** Where the admin token was written (null: ADMIN_TOKEN). */
  adminTokenFile: string | null;
  temporal: TemporalEndpoint;
  supplier: { url: string; builtIn: boolean };
  database: Database;
  /** The API's Temporal client. */
  client: TemporalClient;
  /** The worker's connection: a worker added on it is one the client can start workflows on eagerly. */
  workerConnection: NativeConnection;
  /** What this process's worker tells the API of the runs it closes. */
  outcomes: WorkflowOutcomes;
}

/**
 * The whole engine in this process (`npm start`): Temporal dev server (unless
 * TEMPORAL_ADDRESS is set), database migrations, supplier simulator (unless SUPPLIER_URL is
 * set), worker, the public API and the admin API. `routes` adds routes to the public app
 * behind its whole stack (the benchmark engine's yardstick: scripts/bench/engine).
 */
export async function startEngine(config: Config, stack: Stack, opts: { routes?: PublicRoutes } = {}): Promise<Engine> {
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
  // The API's client shares the worker's connection, so that workflows start eagerly: the
  // server hands the first workflow task back in the start answer, to the worker that shares it.
  const apiConnection = await temporalConnection(temporal.address, stack, connection);
  // The worker is in this process: readiness asks it directly, no heartbeat needed.
  const health = await startApiHealth(config, { database, temporalAddress: temporal.address, workerRunning: () => worker.getState() === 'RUNNING' }, stack);
  const client = temporalClient(config, apiConnection, health, temporalPayloadCodec(config));

  const servers = await serveHttp(
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
      temporalUiUrl: temporal.uiUrl,
      ...(opts.routes ? { routes: opts.routes } : {}),
    },
    stack,
  );
  return { ...servers, adminTokenFile: admin.file, temporal, supplier, database, client, workerConnection: connection, outcomes };
}
