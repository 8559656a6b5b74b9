import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Availability, Health } from '../availability';
import type { Config } from '../config';
import { createAdminApp } from '../http/admin/app';
import { createApp } from '../http/app';
import { logger } from '../http/log';
import { createWorkerMetricsApp, type MetricsSource } from '../http/metrics';
import { apiHealthMonitor } from '../http/health';
import { listen, type RunningServer } from '../http/listen';
import { openDatabase, type Database } from '../db/client';
import { seedCatalog } from '../db/seed/seed';
import { startSimulator } from '../suppliers/simulator/app';
import { PinoTemporalLogger } from '../temporal/logger';
import { engineClientInterceptors } from '../temporal/availability';
import { httpSuppliers } from '../suppliers';
import { startWorkerPresence, type WorkerPresence } from '../../worker/presence';
import { createWorker } from '../../worker/worker';

type Stop = () => Promise<unknown>;

/** Collects what a process started, to stop it in reverse order. */
export class Stack {
  private readonly stops: Stop[] = [];
  add(stop: Stop): void {
    this.stops.push(stop);
  }
  async stop(onError: (err: unknown) => void): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(onError);
  }
}

export async function openMigratedDatabase(config: Config, stack: Stack): Promise<Database> {
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    onIdleError: (err) => logger.warn({ err }, 'an idle database connection was closed by the server; the next query opens a new one'),
  });
  stack.add(() => database.close());
  await seedCatalog(database.db);
  return database;
}

/**
 * The API's connection to Temporal: its own, or `workerConnection` (the worker's, in
 * `npm start`) when it should start workflows eagerly on that worker.
 */
export async function temporalConnection(address: string, stack: Stack, workerConnection?: NativeConnection): Promise<Connection | NativeConnection> {
  if (workerConnection) return workerConnection;
  const own = await Connection.connect({ address });
  stack.add(() => own.close());
  return own;
}

/** The engine's Temporal client: refuses what a part that is down cannot serve (src/temporal/availability.ts). */
export function temporalClient(config: Config, connection: Connection | NativeConnection, availability: Availability): Client {
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    interceptors: engineClientInterceptors(availability, connection, config.TEMPORAL_CALL_TIMEOUT_MS),
  });
}

const healthTiming = (config: Config) => ({ intervalMs: config.HEALTH_INTERVAL_MS, timeoutMs: config.HEALTH_TIMEOUT_MS });

/**
 * The API's readiness, checked in the background from now on (src/http/health.ts): its own
 * worker in `npm start` (`workerRunning`), the workers' heartbeats otherwise. Temporal is
 * probed over a connection of its own: a worker's native connection (shared by the client
 * in `npm start`) retries a call for about 10 s whatever its deadline.
 */
export async function startApiHealth(
  config: Config,
  deps: { database: Database; temporalAddress: string; workerRunning?: () => boolean },
  stack: Stack,
): Promise<Health> {
  const probe = Connection.lazy({ address: deps.temporalAddress });
  stack.add(() => probe.close());
  const health = apiHealthMonitor({
    db: deps.database.db,
    connection: probe,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    timing: healthTiming(config),
    workerRunning: deps.workerRunning,
  });
  await health.start();
  stack.add(() => health.stop());
  return health;
}

/** The supplier base URL: SUPPLIER_URL, or the built-in simulator started here. */
export async function supplierUrl(config: Config, stack: Stack): Promise<{ url: string; builtIn: boolean }> {
  if (config.SUPPLIER_URL) return { url: config.SUPPLIER_URL, builtIn: false };
  const simulator = await startSimulator({
    port: config.SIMULATOR_PORT,
    slowMs: config.SANDBOX_SLOW_MS,
    holdTtlMs: config.SIMULATOR_HOLD_TTL_MS,
    prebookTtlMs: config.SIMULATOR_PREBOOK_TTL_MS,
    ticketTimeLimitMs: config.SIMULATOR_TICKET_TIME_LIMIT_MS,
  });
  stack.add(() => simulator.close());
  return { url: simulator.url, builtIn: true };
}

/**
 * Separate API and worker processes must talk to one and the same supplier (a hold placed
 * by the worker is booked from a rate the API found), so neither starts its own simulator.
 */
export function requireSupplierUrl(config: Config): string {
  if (!config.SUPPLIER_URL) throw new Error('SUPPLIER_URL is required for npm run api / npm run worker (run `npm run simulator` for a sandbox supplier)');
  return config.SUPPLIER_URL;
}

/**
 * The Temporal Core runtime of a worker process, installed once, before the first
 * connection: the SDK's logs (and Core's warnings, forwarded) as pino JSON lines on stdout
 * at LOG_LEVEL, and — unless TEMPORAL_CORE_METRICS_PORT is 0 — its own Prometheus exporter
 * (worker metrics: task latencies, slots, pollers) on 127.0.0.1:TEMPORAL_CORE_METRICS_PORT,
 * which nobody scrapes directly: the process appends its text to the /metrics it serves
 * itself (the worker's metrics server, or the admin API in `npm start`). Returns the
 * exporter's URL, or undefined when it is off.
 */
export function installWorkerRuntime(config: Config): string | undefined {
  const bindAddress = config.TEMPORAL_CORE_METRICS_PORT === 0 ? undefined : `127.0.0.1:${config.TEMPORAL_CORE_METRICS_PORT}`;
  Runtime.install({
    logger: new PinoTemporalLogger(),
    telemetryOptions: {
      logging: { forward: {} },
      ...(bindAddress ? { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } } : {}),
    },
  });
  return bindAddress && `http://${bindAddress}/metrics`;
}

/**
 * A worker process's presence (worker/presence.ts): its health checked in the background
 * and its heartbeat row, from now on; the parts are getters, filled in as the process starts.
 */
export async function startPresence(
  config: Config,
  parts: { worker: () => Worker | undefined; temporalAddress: () => string | undefined; database: () => Database | undefined },
  stack: Stack,
): Promise<WorkerPresence> {
  const presence = await startWorkerPresence({
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    heartbeatMs: config.WORKER_HEARTBEAT_MS,
    timing: healthTiming(config),
    worker: parts.worker,
    temporalAddress: parts.temporalAddress,
    db: () => parts.database()?.db,
  });
  stack.add(() => presence.stop());
  return presence;
}

/**
 * The worker process's Prometheus endpoint on WORKER_METRICS_HOST:WORKER_METRICS_PORT
 * (0: none): its prom-client series and the Core exporter's, and /healthz (503 until the
 * worker runs, and whenever Temporal or the database does not answer).
 */
export async function serveWorkerMetrics(
  config: Config,
  deps: { coreMetricsUrl?: string; health: Health },
  stack: Stack,
): Promise<RunningServer | undefined> {
  if (config.WORKER_METRICS_PORT === 0) return undefined;
  const app = createWorkerMetricsApp({ coreMetricsUrl: deps.coreMetricsUrl, health: deps.health });
  const server = await listen(app.fetch, config.WORKER_METRICS_PORT, config.WORKER_METRICS_HOST);
  stack.add(() => server.close());
  return server;
}

/** Starts a worker polling the engine's task queue; stopping drains it. */
export async function runWorker(
  config: Config,
  address: string,
  database: Database,
  supplier: string,
  stack: Stack,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address });
  stack.add(() => connection.close());
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: {
      db: database.db,
      ...httpSuppliers(supplier),
      finalizeAttempts: { default: config.FINALIZE_ATTEMPTS, byService: config.FINALIZE_ATTEMPTS_BY_SERVICE },
    },
    tuning: {
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskPolls: config.WORKER_WORKFLOW_TASK_POLLERS,
      maxConcurrentActivityTaskPolls: config.WORKER_ACTIVITY_TASK_POLLERS,
    },
  });
  const running = worker.run();
  stack.add(async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  running.catch(() => undefined);
  return { worker, connection };
}

/** Serves the public API on PORT (all interfaces) and the admin API on ADMIN_HOST:ADMIN_PORT. */
export async function serveHttp(
  config: Config,
  deps: {
    database: Database;
    temporal: TemporalClient;
    health: Health;
    adminToken: string;
    supplierUrl: string;
    metrics: MetricsSource;
    /** The client shares this process's worker connection, so payments can start eagerly. */
    eagerStart?: boolean;
  },
  stack: Stack,
): Promise<{ api: RunningServer; admin: RunningServer }> {
  const api = await listen(
    createApp({
      db: deps.database.db,
      temporal: deps.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      payWaitMs: config.PAY_WAIT_MS,
      payTuning: { localLedgerSteps: config.PAY_LOCAL_LEDGER_STEPS, eagerStart: deps.eagerStart },
      sandbox: config.SANDBOX,
      currency: config.CURRENCY,
      holds: { tourPrebookMs: config.TOUR_PREBOOK_TTL_MS, residenceMs: config.RESIDENCE_HOLD_TTL_MS, visaDecisionMs: config.SANDBOX_VISA_DECISION_MS,
        hostAcceptMs: config.SANDBOX_HOST_ACCEPT_MS,
      },
      ...httpSuppliers(deps.supplierUrl),
      health: deps.health,
    }).fetch,
    config.PORT,
    '0.0.0.0',
  );
  stack.add(() => api.close());
  const admin = await listen(
    createAdminApp({
      db: deps.database.db,
      temporal: deps.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      waitMs: config.PAY_WAIT_MS,
      residenceHoldMs: config.RESIDENCE_HOLD_TTL_MS,
      metrics: deps.metrics,
      adminToken: deps.adminToken,
      currency: config.CURRENCY,
      health: deps.health,
    }).fetch,
    config.ADMIN_PORT,
    config.ADMIN_HOST,
  );
  stack.add(() => admin.close());
  return { api, admin };
}

/** Runs `body`; on SIGINT/SIGTERM or a start-up failure, stops everything it started. */
export function runProcess(name: string, body: (stack: Stack) => Promise<void>, log: { error: (msg: string, err: unknown) => void }): void {
  const stack = new Stack();
  const shutdown = (code: number) => void stack.stop((err) => log.error(`error while stopping ${name}`, err)).then(() => process.exit(code));
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));
  body(stack).catch((err) => {
    log.error(`${name} failed to start`, err);
    shutdown(1);
  });
}
