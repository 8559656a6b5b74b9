import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, type TLSConfig } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import {
  bundleWorkflowCode,
  NativeConnection,
  Runtime,
  Worker,
  type ActivityInterceptorsFactory,
  type InjectedSinks,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { Config } from '../src/config';
import type { Database } from '../src/db/client';
import type { Stack } from '../src/runtime/stack';
import type { WorkflowOutcomes } from '../src/temporal/outcomes';
import type { OutcomeSinks } from '../workflows/outcome.types';
import { logger, logInfo } from '../src/platform/log';
import { temporalPayloadCodec } from '../src/runtime/payload-key';
import { webhookSecrets } from '../src/runtime/secrets-key';
import { workerDependencies } from '../src/runtime/wiring';
import type { SecretBox } from '../src/platform/secret-box';
import { grpcCompression } from '../src/temporal/connection';
import { engineDataConverter } from '../src/temporal/payload-codec';
import { temporalTls } from '../src/temporal/tls';
import { DEFAULT_VERSIONING_BEHAVIOR } from '../workflows/versioning';
import { becomeCurrent, workflowCodeBuildId, type WorkerVersion } from './deployment';
import { requestIdActivityInterceptors } from './interceptors';
import { startEventRetention } from './event-retention';
import { startPersonalDataUpkeep } from './personal-data-upkeep';
import { startScheduleChangePoll } from './schedule-change-poll';
import { startWebhookRelay, webhookRetry } from './webhook-relay';

export interface WorkerConfig {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A pre-built bundle (tests build it once); otherwise the build's (compiled) or the workflows bundled at start (sources). */
  workflowBundle?: { code: string } | { codePath: string };
  /** The worker deployment it is a version of, and the version's build id (unset: workflowCodeBuildId of its bundle). */
  deployment: { name: string; buildId?: string };
  /** More activity interceptors after the engine's own (tests hold a step at a chosen moment); they also see each step of a payment's fast path. */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /** Cache and poller sizes; unset ones keep the SDK's defaults. */
  tuning?: Pick<WorkerOptions, 'maxCachedWorkflows' | 'maxConcurrentWorkflowTaskPolls' | 'maxConcurrentActivityTaskPolls'>;
  /** Where the workflows' outcomes go when an API shares this process (npm start); elsewhere nobody waits here and they are dropped. */
  outcomes?: WorkflowOutcomes;
  /** What every payload is encrypted with (src/temporal/payload-codec.ts): the same key as the clients'. */
  payloadCodec: PayloadCodec;
}

export const WORKFLOWS_PATH = require.resolve('../workflows');
/** Bundled with the workflows: at start here, or by whoever pre-builds a bundle (bundleWorkflowCode). */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../workflows/interceptors')];
/**
 * How the workflows are bundled, wherever it is done (here at start, `npm run build`, the
 * tests). The workflows and their interceptors are preloaded: evaluated once in the worker's
 * reusable V8 context and shared, frozen, by every workflow it runs, instead of evaluated
 * again for each. That holds because no module of workflows/ keeps state of its own at module
 * scope (a workflow's state lives in its function's scope, the SDK's in its activator); the
 * lint rules for workflows/ (eslint.config.mjs) keep it so.
 */
export const WORKFLOW_BUNDLE_OPTIONS = {
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
  preloadModules: [WORKFLOWS_PATH, ...WORKFLOW_INTERCEPTOR_MODULES],
};
/**
 * The compiled engine (`npm run build`, dist/) runs the workflow bundle made with it
 * (scripts/build.ts writes it here); the TypeScript sources (tsx, tests) bundle the
 * workflows when a worker starts.
 */
export const PREBUILT_WORKFLOW_BUNDLE = path.resolve(__dirname, '../workflow-bundle.js');
const COMPILED = path.extname(__filename) === '.js';

/** A worker of the engine and the version it is. */
export interface VersionedWorker {
  worker: Worker;
  version: WorkerVersion;
}

/** The workflow code a worker runs: the given bundle, the build's (compiled), or the workflows bundled now (sources). */
async function workflowCode(given: WorkerConfig['workflowBundle']): Promise<string> {
  const bundle = given ?? (COMPILED ? { codePath: PREBUILT_WORKFLOW_BUNDLE } : undefined);
  if (bundle) return 'code' in bundle ? bundle.code : fs.promises.readFile(bundle.codePath, 'utf8');
  const { code } = await bundleWorkflowCode({ ...WORKFLOW_BUNDLE_OPTIONS, logger: Runtime.instance().logger });
  return code;
}

/**
 * The worker runs the booking workflows and their activities against the injected
 * dependencies, as a version of its worker deployment: each workflow type pinned or
 * auto-upgrade as workflows/versioning.ts says.
 */
export async function createWorker(cfg: WorkerConfig): Promise<VersionedWorker> {
  // The request id of the API request a workflow works for reaches its activities' logs.
  const activity = [requestIdActivityInterceptors, ...(cfg.activityInterceptors ?? [])];
  const code = await workflowCode(cfg.workflowBundle);
  const version: WorkerVersion = { deploymentName: cfg.deployment.name, buildId: cfg.deployment.buildId ?? workflowCodeBuildId(code) };
  const worker = await Worker.create({
    connection: cfg.connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    activities: createActivities(cfg.deps, cfg.activityInterceptors),
    sinks: outcomeSinks(cfg.outcomes),
    ...Object.fromEntries(Object.entries(cfg.tuning ?? {}).filter(([, v]) => v !== undefined)),
    workflowBundle: { code },
    dataConverter: engineDataConverter(cfg.payloadCodec),
    interceptors: { activity },
    workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: DEFAULT_VERSIONING_BEHAVIOR },
  });
  return { worker, version };
}

/** The sink every workflow tells its outcome to on its way out (workflows/interceptors.ts); registered on every worker. */
export function outcomeSinks(outcomes: WorkflowOutcomes | undefined): InjectedSinks<OutcomeSinks> {
  return { outcomes: { settled: { fn: (info, outcome) => outcomes?.tell(info.workflowId, info.runId, outcome) } } };
}

/** A worker's connection to Temporal: uncompressed to a Temporal on this machine (grpcCompression); over TLS when `tls` is given. */
export function connectWorker(address: string, tls?: TLSConfig): Promise<NativeConnection> {
  return NativeConnection.connect({ address, grpcCompression: { codec: grpcCompression(address) }, ...(tls ? { tls } : {}) });
}

/** What a worker of the engine works with. */
export interface WorkerParts {
  connection: NativeConnection;
  database: Database;
  supplierUrl: string;
  /** What webhook signing secrets are sealed with (src/runtime/secrets-key.ts). */
  secrets: SecretBox;
  /** What Temporal payloads are encrypted with (src/runtime/payload-key.ts). */
  payloadCodec: PayloadCodec;
  /** This process's API hears the outcomes here (npm start). */
  outcomes?: WorkflowOutcomes;
}

/** A running worker and the outbox's relay next to it; stop() stops the relay, then drains the worker. */
export interface EngineWorker extends VersionedWorker {
  stop(): Promise<void>;
}

/**
 * Runs a worker polling the engine's task queue, its activities wired from the configuration
 * (src/runtime/wiring.ts), and next to it the outbox's relay: it wakes the webhook delivery
 * workflows this worker runs. `extra` is what a test adds: a pre-built bundle, activity
 * interceptors, how long an idle delivery workflow waits before it ends.
 */
export async function startEngineWorker(
  config: Config,
  parts: WorkerParts,
  extra: Pick<WorkerConfig, 'workflowBundle' | 'activityInterceptors'> & { webhookIdleMs?: number } = {},
): Promise<EngineWorker> {
  const { worker, version } = await createWorker({
    connection: parts.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deployment: { name: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID },
    deps: workerDependencies(config, parts),
    tuning: {
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskPolls: config.WORKER_WORKFLOW_TASK_POLLERS,
      maxConcurrentActivityTaskPolls: config.WORKER_ACTIVITY_TASK_POLLERS,
    },
    outcomes: parts.outcomes,
    payloadCodec: parts.payloadCodec,
    workflowBundle: extra.workflowBundle,
    activityInterceptors: extra.activityInterceptors,
  });
  const running = worker.run();
  running.catch(() => undefined);
  const client = new Client({ connection: parts.connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: engineDataConverter(parts.payloadCodec) });
  if (config.WORKER_BECOMES_CURRENT) {
    try {
      const promotion = await becomeCurrent(client, {
        namespace: config.TEMPORAL_NAMESPACE,
        version,
        identity: `${process.pid}@${os.hostname()}`,
        timeoutMs: config.TEMPORAL_CONNECT_TIMEOUT_MS,
        log: (msg) => logger.warn(msg),
      });
      logInfo('worker version', { ...version, promotion });
    } catch (err) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      throw err;
    }
  } else {
    logInfo('worker version (made current by the deploy)', { ...version });
  }
  const relay = startWebhookRelay({
    db: parts.database.db,
    client,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    retry: webhookRetry(config),
    intervalMs: config.WEBHOOK_RELAY_INTERVAL_MS,
    idleMs: extra.webhookIdleMs,
  });
  return {
    worker,
    version,
    async stop() {
      await relay.stop();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

/** Starts a worker polling the engine's task queue (startEngineWorker) and the event retention; stopping drains it. */
export async function runWorker(
  config: Config,
  address: string,
  database: Database,
  supplier: string,
  stack: Stack,
  /** This process's API hears the outcomes here (npm start). */
  outcomes?: WorkflowOutcomes,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await connectWorker(address, temporalTls(config));
  stack.add(() => connection.close());
  const payloadCodec = temporalPayloadCodec(config);
  const running = await startEngineWorker(config, {
    connection,
    database,
    supplierUrl: supplier,
    secrets: webhookSecrets(config),
    payloadCodec,
    outcomes,
  });
  stack.add(() => running.stop());
  const retention = startEventRetention({ db: database.db, days: config.EVENT_RETENTION_DAYS });
  stack.add(() => retention.stop());
  const upkeep = startPersonalDataUpkeep({ db: database.db, days: config.PERSONAL_DATA_RETENTION_DAYS });
  stack.add(() => upkeep.stop());
  const poll = startScheduleChangePoll({
    db: database.db,
    client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: engineDataConverter(payloadCodec) }),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    afterSaleOf: workerDependencies(config, { database, supplierUrl: supplier, secrets: webhookSecrets(config) }).flightAfterSaleOf,
    minutes: config.SCHEDULE_CHANGE_POLL_MINUTES,
  });
  stack.add(() => poll.stop());
  return { worker: running.worker, connection };
}
