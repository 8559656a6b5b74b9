import type { NativeConnection } from '@temporalio/worker';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { seedCatalog } from '../db/seed/seed';
import type { RunningServer } from '../platform/listen';
import { logInfo } from '../platform/log';
import type { ShutdownList } from '../platform/shutdown-list';
import { devServerDbFile, ensureTemporal, temporalClient, temporalConnection, type TemporalEndpoint } from '../temporal/connection';
import { WorkflowOutcomes } from '../temporal/outcomes';
import { temporalTls } from '../temporal/tls';
import { serveWorkerMetrics } from '../../worker/metrics';
import { startHeartbeat } from '../../worker/heartbeat';
import { installWorkerRuntime } from '../../worker/runtime';
import { ensureAdminToken } from './admin-token';
import { startApiHealth } from './api-health';
import { openMigratedDatabase } from './database';
import { runWorker } from './engine-worker';
import { temporalPayloadCodec } from './payload-key';
import { openProcessFile, stopLeftoverDevServer } from './process-file';
import { serveHttp, type PublicRoutes } from './serve-http';
import { requireSupplierUrl, supplierUrl } from './supplier-url';

/*
 * How each process of the engine starts, in one place: `npm start` (startEngine), `npm run
 * api` (startApi) and `npm run worker` (startWorkerProcess) share their steps here; the
 * worker and its neighbours are ./engine-worker.ts, the parts' wiring ./wiring.ts, which the
 * tests' stack (test/support/stack.ts) starts its engine with too.
 */

/** The database migrated and its catalogue seeded: the first thing every process needs of it. */
async function openSeededDatabase(config: Config, shutdown: ShutdownList): Promise<Database> {
  const database = await openMigratedDatabase(config, shutdown);
  await seedCatalog(database.db);
  return database;
}

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
export async function startEngine(config: Config, shutdown: ShutdownList, opts: { routes?: PublicRoutes } = {}): Promise<Engine> {
  const admin = ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR);
  // An engine killed outright may have left its dev server behind (where no parent-death
  // signal exists): stop it, so it frees the port. The file is recorded from here on and
  // removed last, once the dev server has stopped.
  await stopLeftoverDevServer(config.DATA_DIR, devServerDbFile(config.DATA_DIR), (msg) => logInfo(msg));
  const processes = openProcessFile(config.DATA_DIR);
  processes.record('engine', process.pid);
  shutdown.add(async () => processes.remove());
  const temporal = await ensureTemporal(
    config,
    (msg) => logInfo(msg),
    shutdown,
    (pid) => processes.record('temporal', pid),
  );

  const database = await openSeededDatabase(config, shutdown);
  logInfo('database ready, migrations applied', { kind: database.kind });
  const supplier = await supplierUrl(config, shutdown);
  const coreMetricsUrl = installWorkerRuntime(config);
  // The API hears how the runs of this process's worker end from the worker itself.
  const outcomes = new WorkflowOutcomes();
  const { worker, connection } = await runWorker(config, temporal.address, database, supplier.url, shutdown, outcomes);
  // The API's client shares the worker's connection, so that workflows start eagerly: the
  // server hands the first workflow task back in the start answer, to the worker that shares it.
  const apiConnection = await temporalConnection(temporal.address, shutdown, connection);
  // The worker is in this process: readiness asks it directly, no heartbeat needed.
  const health = await startApiHealth(config, { database, temporalAddress: temporal.address, workerRunning: () => worker.getState() === 'RUNNING' }, shutdown);
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
    shutdown,
  );
  return { ...servers, adminTokenFile: admin.file, temporal, supplier, database, client, workerConnection: connection, outcomes };
}

/**
 * `npm run api`: the public and admin HTTP APIs only, next to separate workers, on a Temporal
 * cluster (TEMPORAL_ADDRESS) and PostgreSQL (DATABASE_URL). No worker in this process:
 * readiness reads the worker processes' heartbeats.
 */
export async function startApi(
  config: Config,
  shutdown: ShutdownList,
): Promise<{ api: RunningServer; admin: RunningServer; temporal: TemporalEndpoint; database: Database }> {
  const admin = ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR);
  const temporal = await ensureTemporal(config, (msg) => logInfo(msg), shutdown);
  const database = await openSeededDatabase(config, shutdown);
  const health = await startApiHealth(config, { database, temporalAddress: temporal.address }, shutdown);
  const connection = await temporalConnection(temporal.address, shutdown, undefined, temporalTls(config));
  const client = temporalClient(config, connection, health, temporalPayloadCodec(config));
  const servers = await serveHttp(
    config,
    { database, temporal: client, health, adminToken: admin.token, supplierUrl: requireSupplierUrl(config), metrics: { role: 'api' } },
    shutdown,
  );
  return { ...servers, temporal, database };
}

/**
 * `npm run worker`: a Temporal worker only, scaled horizontally, with its Prometheus metrics
 * and /healthz on WORKER_METRICS_HOST:WORKER_METRICS_PORT. That endpoint is up first, so a
 * slow start (migrations, bundling the workflows) is a 503 on /healthz.
 */
export async function startWorkerProcess(
  config: Config,
  shutdown: ShutdownList,
): Promise<{ supplier: string; temporal: TemporalEndpoint; metrics: RunningServer | undefined }> {
  const supplier = requireSupplierUrl(config);
  // Core's exporter is only read through the worker's own endpoint: without one, no exporter.
  const coreMetricsUrl = config.WORKER_METRICS_PORT === 0 ? undefined : installWorkerRuntime(config);
  let worker: Worker | undefined;
  let temporalAddress: string | undefined;
  let database: Database | undefined;
  const heartbeat = await startHeartbeat(config, { worker: () => worker, temporalAddress: () => temporalAddress, database: () => database }, shutdown);
  const metrics = await serveWorkerMetrics(
    config,
    { coreMetricsUrl, health: heartbeat.health, adminToken: () => ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR).token },
    shutdown,
  );
  const temporal = await ensureTemporal(config, (msg) => logInfo(msg), shutdown);
  temporalAddress = temporal.address;
  database = await openSeededDatabase(config, shutdown);
  ({ worker } = await runWorker(config, temporal.address, database, supplier, shutdown));
  // Stopping: the heartbeat goes first (the API sees this worker gone at once), then the worker drains.
  shutdown.add(() => heartbeat.stop());
  return { supplier, temporal, metrics };
}
