import type { ApiDeps } from '../../src/http/deps';
import dns from 'node:dns';
import crypto from 'node:crypto';
import { Connection, type Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { DefaultLogger, Runtime, type ActivityInterceptorsFactory, type Worker } from '@temporalio/worker';
import { sql } from 'drizzle-orm';
import { Client as PgClient } from 'pg';
import type { HealthMonitor, HealthReport } from '../../src/health/model';
import { loadConfig, type Config } from '../../src/config';
import { openDatabase, type Database, type Db } from '../../src/db/client';
import { usePersonalDataKeys } from '../../src/db/personal-data';
import { seedCatalog } from '../../src/db/seed/seed';
import { createAdminApp, type AdminDeps } from '../../src/http/admin/app';
import { createApp } from '../../src/http/app';
import { createRateLimits } from '../../src/http/rate-limit';
import { createWorkerMetricsApp } from '../../src/http/metrics';
import type { SecretBox } from '../../src/platform/secret-box';
import { startApiHealth } from '../../src/runtime/api-health';
import { webhookSecrets } from '../../src/runtime/secrets-key';
import { temporalPayloadCodec } from '../../src/runtime/payload-key';
import { personalDataBox } from '../../src/runtime/personal-data-key';
import { ShutdownList } from '../../src/platform/shutdown-list';
import { supplierUrl } from '../../src/runtime/supplier-url';
import { adminDependencies, apiDependencies, rateBudgets, supplierBreakers } from '../../src/runtime/wiring';
import { temporalClient } from '../../src/temporal/connection';
import type { EncryptionCodec } from '../../src/temporal/payload-codec';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { WorkflowOutcomes } from '../../src/temporal/outcomes';
import { startHeartbeat, type WorkerHeartbeat } from '../../worker/heartbeat';
import type { WorkerVersion } from '../../worker/deployment';
import { startEngineWorker, type EngineWorker } from '../../src/runtime/engine-worker';
import { connectWorker } from '../../worker/worker';
import type { WebhookRetry } from '../../workflows/webhook.types';
import { REPLAY_PAYLOAD_KEY } from './histories';
import { hostPort, startProxy, type CuttableProxy } from './proxy';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghij';
export const CURRENCY = 'IRT';

/** As the engine's processes have them (src/config.ts defaults). */
export const HEALTH_TIMING = { intervalMs: 1000, timeoutMs: 2000 };
export const WORKER_HEARTBEAT_MS = 2000;
export const TEMPORAL_CALL_TIMEOUT_MS = 5000;
export const DATABASE_CONNECT_TIMEOUT_MS = 3000;
/**
 * Out of every other test's way (the contract fuzzer sends thousands of requests per partner,
 * and as many without valid credentials); rate-limits.test.ts sets small ones per partner,
 * security-throttle.test.ts small budgets of its own (StackOptions.env).
 */
export const TEST_RATE_LIMIT_PER_MINUTE = 100_000;

/**
 * A fresh database for one test file: a new PostgreSQL database when DATABASE_URL is set
 * (CI), else an in-memory PGlite. Both get the committed migrations. With `proxy`, the
 * engine reaches PostgreSQL through a cuttable proxy.
 */
export async function freshDatabase(opts: { proxy: boolean; connectTimeoutMs: number }): Promise<Database & { drop(): Promise<void>; proxy?: CuttableProxy }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await openDatabase({});
    return { ...database, drop: async () => undefined };
  }
  const name = `bte_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new PgClient({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const testUrl = new URL(url);
  testUrl.pathname = `/${name}`;
  const proxy = opts.proxy ? await startProxy({ host: testUrl.hostname, port: Number(testUrl.port || 5432) }) : undefined;
  if (proxy) testUrl.host = proxy.address;
  const database = await openDatabase({ url: testUrl.toString(), connectTimeoutMs: opts.connectTimeoutMs });
  return {
    ...database,
    proxy,
    drop: async () => {
      await proxy?.close();
      const c = new PgClient({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * How a test wants its stack. A setting of the engine's is named by its configuration key
 * (src/config.ts), through which it goes; the rest is what only a test can ask for.
 */
export interface StackOptions {
  /** PAY_WAIT_MS (default 20 s). */
  payWaitMs?: number;
  /** SANDBOX_SLOW_MS: how long the simulator's supplier_slow scenario takes (default 3 s). */
  slowMs?: number;
  /** SIMULATOR_HOLD_TTL_MS, SIMULATOR_PREBOOK_TTL_MS: how long the simulated hotel keeps a hold with guests / a prebook. */
  holdTtlMs?: number;
  prebookTtlMs?: number;
  /** SIMULATOR_TICKET_TIME_LIMIT_MS: how long the simulated airline keeps an unticketed booking. */
  ticketTimeLimitMs?: number;
  /** TOUR_PREBOOK_TTL_MS, RESIDENCE_HOLD_TTL_MS: how long our own holds last (tour seats, residence dates; default 10 minutes). */
  tourPrebookMs?: number;
  residenceHoldMs?: number;
  /** SANDBOX_VISA_DECISION_MS: how long the sandbox embassy takes to decide a visa by itself (default 10 minutes). */
  visaDecisionMs?: number;
  /** SANDBOX_HOST_ACCEPT_MS: how long the sandbox host takes to accept a cancellation by itself (default 10 minutes). */
  hostAcceptMs?: number;
  /** SANDBOX (default on). */
  sandbox?: boolean;
  /** More settings, by name, as an operator's environment gives them (e.g. FLIGHT_SUPPLIER, DUFFEL_API_URL). */
  env?: Record<string, string>;
  /** FINALIZE_ATTEMPTS: attempts of a payment's supplier step before the supplier is asked by reference (default 5). */
  finalizeAttempts?: number;
  /** The API's client shares the worker's connection and starts payments eagerly, as `npm start` (default off, as `npm run api`). */
  eagerStart?: boolean;
  /** Activity interceptors for the worker, after the engine's own. */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /**
   * Cuttable TCP proxies between the engine and Temporal (and PostgreSQL, when DATABASE_URL
   * is set), for stack.cut / stack.restore.
   */
  faults?: boolean;
  /**
   * How the API knows that a worker serves its queue: its own worker, as `npm start`
   * (default); or, as `npm run api` next to `npm run worker`, the worker's heartbeat rows
   * (the stack's worker then runs a worker process's heartbeat, and `workerApp` serves its /healthz).
   */
  workerSeenBy?: 'in-process' | 'heartbeat';
  /**
   * The rate limiter's store: the engine's (the table on PostgreSQL, memory on PGlite), or
   * 'table' for the table on PGlite too (rate-limits.test.ts: replicas share it in both modes).
   */
  rateLimitStore?: 'table';
  /** WEBHOOK_RETRY_*: the webhook delivery workflows' retry policy (default: quick, for tests: 200 ms doubling to 1 s, given up after 60 s). */
  webhookRetry?: Partial<WebhookRetry>;
  /** How long a delivery workflow with nothing owed waits before it ends (default: the engine's minute). */
  webhookIdleMs?: number;
  /** WEBHOOK_ALLOWED_PRIVATE_HOSTS: the hosts webhook endpoints may reach on private addresses (default `127.0.0.1`, where tests' receivers listen; '' for none). */
  webhookAllowedPrivateHosts?: string;
  /**
   * How the API hears the outcomes of its own worker's runs (src/temporal/outcomes.ts): as
   * npm start, from the worker (default); or 'untold', waiting for outcomes the worker never
   * tells, as if every run closed on some other worker (the API must fall back to Temporal).
   */
  outcomes?: 'from-worker' | 'untold';
}

export type CuttablePart = 'database' | 'temporal';

export interface TestStack {
  db: Db;
  kind: Database['kind'];
  client: Client;
  taskQueue: string;
  app: ReturnType<typeof createApp>;
  /** Whether the API starts payments eagerly on the worker next door (StackOptions.eagerStart). */
  eagerStart: boolean;
  /** Another API instance on the same database, with rate-limit counters of its own making (as another `npm run api` replica). */
  replica(): ReturnType<typeof createApp>;
  admin: ReturnType<typeof createAdminApp>;
  /** Another admin app on this stack, with some of its dependencies changed (the bad-token limit's default, say). */
  adminWith(overrides: Partial<AdminDeps>): ReturnType<typeof createAdminApp>;
  /** Interface A and B as `app`, with some dependencies of its own (a mailer, …). */
  appWith(overrides: Partial<ApiDeps>): ReturnType<typeof createApp>;
  simulatorUrl: string;
  /** What this stack seals webhook signing secrets with (a key of its own). */
  secrets: SecretBox;
  /** What this stack encrypts Temporal payloads with (a key of its own). */
  payloadCodec: EncryptionCodec;
  /** The API's readiness, as its /healthz and its requests read it. */
  health: HealthMonitor;
  /** The worker process's metrics app (its /healthz), with workerSeenBy 'heartbeat'. */
  workerApp: ReturnType<typeof createWorkerMetricsApp>;
  /** What the API hears from its worker (none with workerSeenBy 'heartbeat': the worker is another process). */
  outcomes: WorkflowOutcomes | undefined;
  /** The running worker; stopWorker/startWorker simulate a stop (or, with crash, a kill: no goodbye) and a restart. */
  worker(): Worker | null;
  stopWorker(opts?: { crash?: boolean }): Promise<void>;
  startWorker(): Promise<void>;
  /** The running worker's version (its deployment and build id). */
  workerVersion(): WorkerVersion | null;
  /**
   * Another worker next to the stack's, of the same code but another build id: a new release
   * rolled out while the stack's worker drains. Stopped with the stack, or by its stop().
   */
  startRelease(buildId: string): Promise<EngineWorker>;
  /** With `faults`: makes a part unreachable for the engine, and reachable again. */
  cut(part: CuttablePart): void;
  /**
   * With `faults`: the answers Temporal sends on the API client's own connection are held
   * back for `ms` (the health probe and the worker keep theirs): a start that went through
   * but whose answer came too late.
   */
  stallClientAnswers(ms: number): void;
  restore(part: CuttablePart): void;
  close(): Promise<void>;
}

/** The SDK's own logs at WARN, once per test process (every stack and worker shares the runtime). */
export function quietWorkerLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by an earlier stack in this process.
  }
}

/**
 * How the stack's APIs resolve webhook hosts at registration: names under `.example` (which
 * no DNS answers, RFC 2606) as a public address, so tests register partners' public
 * endpoints without a network; any other name as the system resolves it. Deliveries resolve
 * with the system's resolver, so nothing is ever sent to that address.
 */
export const PUBLIC_TEST_ADDRESS = '93.184.215.14';
const testResolve = async (host: string): Promise<string[]> =>
  host.endsWith('.example') ? [PUBLIC_TEST_ADDRESS] : (await dns.promises.lookup(host, { all: true })).map((a) => a.address);

/** The webhook delivery workflows' retry policy in tests: quick, so a failed attempt is tried again within a test. */
const TEST_WEBHOOK_RETRY: WebhookRetry = { initialIntervalMs: 200, maximumIntervalMs: 1000, giveUpAfterMs: 60_000, attemptTimeoutMs: 2000 };

/** The stack's configuration, read through the engine's own schema (src/config.ts) as an operator's environment is. */
function stackConfig(opts: StackOptions, temporal: { address: string; namespace: string; taskQueue: string }): Config {
  const retry = { ...TEST_WEBHOOK_RETRY, ...opts.webhookRetry };
  const settings: Record<string, string | number | boolean | undefined> = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: temporal.taskQueue,
    ADMIN_TOKEN,
    // A key of the stack's own: secrets sealed by one stack open in no other.
    WEBHOOK_SECRETS_KEY: crypto.randomBytes(32).toString('base64'),
    // And its own payload key: its histories decrypt with this stack's codec only (those it records, with the replay's).
    TEMPORAL_PAYLOAD_KEY: process.env.RECORD_HISTORIES === '1' ? REPLAY_PAYLOAD_KEY : crypto.randomBytes(32).toString('base64'),
    // And its own personal-data key.
    PERSONAL_DATA_KEY: crypto.randomBytes(32).toString('base64'),
    CURRENCY,
    SANDBOX: opts.sandbox ?? true,
    PAY_WAIT_MS: opts.payWaitMs ?? 20_000,
    FINALIZE_ATTEMPTS: opts.finalizeAttempts,
    TOUR_PREBOOK_TTL_MS: opts.tourPrebookMs ?? 600_000,
    RESIDENCE_HOLD_TTL_MS: opts.residenceHoldMs ?? 600_000,
    SANDBOX_VISA_DECISION_MS: opts.visaDecisionMs ?? 600_000,
    SANDBOX_HOST_ACCEPT_MS: opts.hostAcceptMs ?? 600_000,
    RATE_LIMIT_PER_MINUTE: TEST_RATE_LIMIT_PER_MINUTE,
    // Every request of a test comes from one address (its socket's, or none through app.request).
    RATE_LIMIT_PAY_RETRIES_PER_MINUTE: TEST_RATE_LIMIT_PER_MINUTE,
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: TEST_RATE_LIMIT_PER_MINUTE,
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: TEST_RATE_LIMIT_PER_MINUTE,
    HEALTH_INTERVAL_MS: HEALTH_TIMING.intervalMs,
    HEALTH_TIMEOUT_MS: HEALTH_TIMING.timeoutMs,
    WORKER_HEARTBEAT_MS,
    TEMPORAL_CALL_TIMEOUT_MS,
    DATABASE_CONNECT_TIMEOUT_MS,
    // The built-in simulator on a free port.
    SIMULATOR_PORT: 0,
    SANDBOX_SLOW_MS: opts.slowMs ?? 3000,
    SIMULATOR_HOLD_TTL_MS: opts.holdTtlMs,
    SIMULATOR_PREBOOK_TTL_MS: opts.prebookTtlMs,
    SIMULATOR_TICKET_TIME_LIMIT_MS: opts.ticketTimeLimitMs,
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: opts.webhookAllowedPrivateHosts ?? '127.0.0.1',
    WEBHOOK_RETRY_INITIAL_MS: retry.initialIntervalMs,
    WEBHOOK_RETRY_MAX_MS: retry.maximumIntervalMs,
    WEBHOOK_GIVE_UP_MS: retry.giveUpAfterMs,
    WEBHOOK_ATTEMPT_TIMEOUT_MS: retry.attemptTimeoutMs,
    WEBHOOK_RELAY_INTERVAL_MS: 100,
    // Searches straight to the supplier: a test that books a room sees it gone from its next
    // search. The search layer's own test (search-layer.test.ts) turns the cache on.
    SEARCH_TTLS: 'simulator.hotels=0,simulator.flights=0,duffel.hotels=0,duffel.flights=0',
    ...opts.env,
  };
  return loadConfig(Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, value === undefined ? undefined : String(value)])));
}

/**
 * The real parts wired as `npm start` wires them (src/runtime/wiring.ts, worker/worker.ts):
 * Temporal, database, simulator, worker, both APIs. What only a test has: a fresh database
 * and a namespace per stack, cuttable proxies, a worker it stops and starts.
 */
export async function startStack(opts: StackOptions = {}): Promise<TestStack> {
  const address = process.env.TEST_TEMPORAL_ADDRESS;
  const bundle = process.env.TEST_WORKFLOW_BUNDLE;
  if (!address || !bundle) throw new Error('the jest global setup did not run (TEST_TEMPORAL_ADDRESS / TEST_WORKFLOW_BUNDLE missing)');

  quietWorkerLogs();
  const taskQueue = `test-${crypto.randomBytes(6).toString('hex')}`;
  // A namespace per stack: workflow ids come from database ids (order 1, booking 1), and
  // every stack has a fresh database, so stacks sharing a namespace would collide.
  const namespace = taskQueue;
  const config = stackConfig(opts, { address, namespace, taskQueue });
  // What the stack opens, stopped in reverse order by close().
  const shutdown = new ShutdownList();
  const database = await freshDatabase({ proxy: opts.faults === true, connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS });
  shutdown.add(async () => {
    await database.close();
    await database.drop();
  });
  await seedCatalog(database.db);
  const simulator = await supplierUrl(config, shutdown);
  const direct = await Connection.connect({ address });
  await direct.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  // On a cluster with SQL visibility, a fresh namespace's attributes take a registry refresh to be usable.
  await ensureSearchAttributes(direct, namespace);
  // Two proxies: one for the API client's connection, one for everything else (health probe, worker).
  const temporalProxy = opts.faults ? await startProxy(hostPort(address)) : undefined;
  const clientProxy = opts.faults ? await startProxy(hostPort(address)) : undefined;
  shutdown.add(async () => {
    await temporalProxy?.close();
    await clientProxy?.close();
  });
  let connection = direct;
  if (clientProxy) {
    await direct.close();
    connection = await Connection.connect({ address: clientProxy.address });
  }
  shutdown.add(() => connection.close());
  const temporalAddress = temporalProxy?.address ?? address;
  const nativeConnection = await connectWorker(temporalAddress);
  shutdown.add(() => nativeConnection.close());
  // Eager start needs the client on the worker's connection, as `npm start` has it.
  const eagerStart = opts.eagerStart === true;
  const clientConnection = eagerStart ? nativeConnection : connection;

  const seenByHeartbeat = opts.workerSeenBy === 'heartbeat';
  // As npm start: the API hears how its own worker's runs end from the worker (not with a worker "process" of its own).
  const outcomes = seenByHeartbeat ? undefined : new WorkflowOutcomes();
  const reportedTo = opts.outcomes === 'untold' ? undefined : outcomes;
  const secrets = webhookSecrets(config);
  const payloadCodec = temporalPayloadCodec(config);
  usePersonalDataKeys(personalDataBox(config));
  let worker: EngineWorker | null = null;
  let heartbeat: WorkerHeartbeat | null = null;
  const startWorker = async () => {
    worker = await startEngineWorker(
      config,
      { connection: nativeConnection, database, supplierUrl: simulator.url, secrets, payloadCodec, outcomes: reportedTo },
      { workflowBundle: { codePath: bundle }, activityInterceptors: opts.activityInterceptors, webhookIdleMs: opts.webhookIdleMs },
    );
    if (seenByHeartbeat && !heartbeat) {
      heartbeat = await startHeartbeat(config, { worker: () => worker?.worker, temporalAddress: () => temporalAddress, database: () => database }, shutdown);
    }
  };
  const startRelease = async (buildId: string) => {
    const release = await startEngineWorker(
      { ...config, WORKER_BUILD_ID: buildId },
      { connection: nativeConnection, database, supplierUrl: simulator.url, secrets, payloadCodec, outcomes: reportedTo },
      { workflowBundle: { codePath: bundle }, activityInterceptors: opts.activityInterceptors, webhookIdleMs: opts.webhookIdleMs },
    );
    let stopped: Promise<void> | undefined;
    const stop = () => (stopped ??= release.stop());
    shutdown.add(stop);
    return { ...release, stop };
  };
  const stopWorker = async ({ crash = false } = {}) => {
    // A killed worker process says no goodbye: its heartbeat row just stops being stamped.
    await heartbeat?.stop({ forget: !crash });
    heartbeat = null;
    await worker?.stop().catch(() => undefined);
    worker = null;
  };
  await startWorker();
  const health = await startApiHealth(
    config,
    { database, temporalAddress, ...(seenByHeartbeat ? {} : { workerRunning: () => worker?.worker.getState() === 'RUNNING' }) },
    shutdown,
  );
  const client = temporalClient(config, clientConnection, health, payloadCodec);
  const stopped: HealthReport = { ok: false, checks: { worker: { ok: false, detail: 'the worker process is not running' } }, checked_at: null };
  const workerApp = createWorkerMetricsApp({
    adminToken: ADMIN_TOKEN,
    health: { report: () => heartbeat?.health.report() ?? stopped, require: () => undefined },
  });
  const proxies: Record<CuttablePart, CuttableProxy | undefined> = { database: database.proxy, temporal: temporalProxy };
  const proxyOf = (part: CuttablePart) => {
    const proxy = proxies[part];
    if (!proxy) throw new Error(`no proxy in front of ${part}: start the stack with faults${part === 'database' ? ' and DATABASE_URL' : ''}`);
    return proxy;
  };
  const sharedApiDeps = { database, temporal: client, health, secrets, breakers: supplierBreakers(config) };
  // Each API instance counts requests with a limiter of its own making, as each `npm run api` replica does.
  const apiDeps = (heard?: WorkflowOutcomes) => {
    const deps = apiDependencies(config, { ...sharedApiDeps, supplierUrl: simulator.url, eagerStart, outcomes: heard });
    return {
      ...deps,
      webhookUrls: { ...deps.webhookUrls, resolve: testResolve },
      ...(opts.rateLimitStore === 'table' ? { rateLimits: createRateLimits(database, rateBudgets(config), { store: 'table' }) } : {}),
    };
  };
  const app = createApp(apiDeps(outcomes));
  // API and worker in one process, as `npm start`; the Core exporter is off in tests.
  const adminDeps = adminDependencies(config, {
    ...sharedApiDeps,
    adminToken: ADMIN_TOKEN,
    metrics: { role: 'all-in-one' },
    payloadCodec,
    supplierUrl: simulator.url,
  });
  // Tests try many bad tokens on purpose (test/integration/security-operators.test.ts checks the default).
  const admin = createAdminApp({ ...adminDeps, webhookUrls: { ...adminDeps.webhookUrls, resolve: testResolve }, badTokensPerMinute: 100_000 });

  return {
    db: database.db,
    kind: database.kind,
    client,
    taskQueue,
    app,
    eagerStart,
    replica: () => createApp(apiDeps()),
    outcomes,
    admin,
    adminWith: (overrides) => createAdminApp({ ...adminDeps, ...overrides }),
    appWith: (overrides) => createApp({ ...apiDeps(), ...overrides }),
    simulatorUrl: simulator.url,
    secrets,
    payloadCodec,
    health,
    workerApp,
    worker: () => worker?.worker ?? null,
    workerVersion: () => worker?.version ?? null,
    startRelease,
    // The API's readiness is read from its last round: refresh it, as the next round would within a second.
    stopWorker: async (o) => {
      await stopWorker(o);
      await health.round();
    },
    startWorker: async () => {
      await startWorker();
      await health.round();
    },
    cut: (part) => {
      proxyOf(part).cut();
      if (part === 'temporal') clientProxy!.cut();
    },
    restore: (part) => {
      proxyOf(part).restore();
      if (part === 'temporal') clientProxy!.restore();
    },
    stallClientAnswers: (ms) => {
      if (!clientProxy) throw new Error('no proxy in front of Temporal: start the stack with faults');
      clientProxy.stall(ms);
    },
    close: async () => {
      temporalProxy?.restore();
      clientProxy?.restore();
      database.proxy?.restore();
      await stopWorker();
      const errors: unknown[] = [];
      await shutdown.stop((err) => errors.push(err));
      if (errors.length > 0) throw errors[0];
    },
  };
}

/** Every wallet's balance is the sum of its signed movements, and its credit limit the sum of its grants. */
export async function ledgerDiscrepancies(db: Db): Promise<unknown[]> {
  const result = await db.execute(sql`
    select w.partner_id, w.balance_minor, w.credit_limit_minor,
      coalesce(sum(case when l.type <> 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0) as ledger_balance,
      coalesce(sum(case when l.type = 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0) as ledger_credit
    from wallets w left join ledger_entries l on l.partner_id = w.partner_id
    group by w.partner_id, w.balance_minor, w.credit_limit_minor
    having w.balance_minor <> coalesce(sum(case when l.type <> 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0)
        or w.credit_limit_minor <> coalesce(sum(case when l.type = 'credit_grant' then (case l.direction when 'credit' then l.amount_minor else -l.amount_minor end) end), 0)`);
  return (result as unknown as { rows: unknown[] }).rows;
}

/**
 * Registers the hooks every integration file wants: a stack for the file, the ledger
 * invariant checked after every test, and the stack closed at the end.
 */
export function useStack(assign: (stack: TestStack) => void, opts: StackOptions = {}): void {
  let stack: TestStack | undefined;
  beforeAll(async () => {
    stack = await startStack(opts);
    assign(stack);
  });
  afterEach(async () => {
    expect(await ledgerDiscrepancies(stack!.db)).toEqual([]);
  });
  afterAll(async () => {
    await stack?.close();
  });
}
