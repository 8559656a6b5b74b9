import { Connection, type Client as TemporalClient } from '@temporalio/client';
import { healthTiming, type Health } from '../availability';
import type { Config } from '../config';
import { createAdminApp } from '../http/admin/app';
import { createApp } from '../http/app';
import { logger } from '../platform/log';
import type { MetricsSource } from '../http/metrics';
import { apiHealthMonitor } from '../http/health';
import { listen, type RunningServer } from '../platform/listen';
import { openDatabase, type Database } from '../db/client';
import { seedCatalog } from '../db/seed/seed';
import { startSimulator } from '../suppliers/simulator/app';
import { httpSuppliers } from '../suppliers';

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
      holds: {
        tourPrebookMs: config.TOUR_PREBOOK_TTL_MS,
        residenceMs: config.RESIDENCE_HOLD_TTL_MS,
        visaDecisionMs: config.SANDBOX_VISA_DECISION_MS,
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
