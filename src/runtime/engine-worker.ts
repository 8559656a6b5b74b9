import os from 'node:os';
import { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { PayloadCodec } from '@temporalio/common';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { logger, logInfo } from '../platform/log';
import type { SecretBox } from '../platform/secret-box';
import type { ShutdownList } from '../platform/shutdown-list';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { engineDataConverter } from '../temporal/payload-codec';
import { temporalTls } from '../temporal/tls';
import { becomeCurrent } from '../../worker/deployment';
import { startEventRetention } from '../../worker/event-retention';
import { startPersonalDataUpkeep } from '../../worker/personal-data-upkeep';
import { startScheduleChangePoll } from '../../worker/schedule-change-poll';
import { startWebhookRelay, webhookRetry } from '../../worker/webhook-relay';
import { connectWorker, createWorker, type VersionedWorker, type WorkerConfig } from '../../worker/worker';
import { temporalPayloadCodec } from './payload-key';
import { webhookSecrets } from './secrets-key';
import { workerDependencies } from './wiring';

/** What a worker of the engine works with. */
export interface WorkerDeps {
  connection: NativeConnection;
  database: Database;
  supplierUrl: string;
  /** What webhook signing secrets are sealed with (./secrets-key.ts). */
  secrets: SecretBox;
  /** What Temporal payloads are encrypted with (./payload-key.ts). */
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
 * (./wiring.ts), and next to it the outbox's relay: it wakes the webhook delivery
 * workflows this worker runs. `extra` is what a test adds: a pre-built bundle, activity
 * interceptors, how long an idle delivery workflow waits before it ends.
 */
export async function startEngineWorker(
  config: Config,
  deps: WorkerDeps,
  extra: Pick<WorkerConfig, 'workflowBundle' | 'activityInterceptors'> & { webhookIdleMs?: number } = {},
): Promise<EngineWorker> {
  const { worker, version } = await createWorker({
    connection: deps.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deployment: { name: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID },
    deps: workerDependencies(config, deps),
    tuning: {
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskPolls: config.WORKER_WORKFLOW_TASK_POLLERS,
      maxConcurrentActivityTaskPolls: config.WORKER_ACTIVITY_TASK_POLLERS,
    },
    outcomes: deps.outcomes,
    payloadCodec: deps.payloadCodec,
    workflowBundle: extra.workflowBundle,
    activityInterceptors: extra.activityInterceptors,
  });
  const running = worker.run();
  running.catch(() => undefined);
  const client = new Client({ connection: deps.connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: engineDataConverter(deps.payloadCodec) });
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
    db: deps.database.db,
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
  shutdown: ShutdownList,
  /** This process's API hears the outcomes here (npm start). */
  outcomes?: WorkflowOutcomes,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await connectWorker(address, temporalTls(config));
  shutdown.add(() => connection.close());
  const payloadCodec = temporalPayloadCodec(config);
  const running = await startEngineWorker(config, {
    connection,
    database,
    supplierUrl: supplier,
    secrets: webhookSecrets(config),
    payloadCodec,
    outcomes,
  });
  shutdown.add(() => running.stop());
  const retention = startEventRetention({ db: database.db, days: config.EVENT_RETENTION_DAYS });
  shutdown.add(() => retention.stop());
  const upkeep = startPersonalDataUpkeep({ db: database.db, days: config.PERSONAL_DATA_RETENTION_DAYS });
  shutdown.add(() => upkeep.stop());
  const poll = startScheduleChangePoll({
    db: database.db,
    client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: engineDataConverter(payloadCodec) }),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    afterSaleOf: workerDependencies(config, { database, supplierUrl: supplier, secrets: webhookSecrets(config) }).flightAfterSaleOf,
    minutes: config.SCHEDULE_CHANGE_POLL_MINUTES,
  });
  shutdown.add(() => poll.stop());
  return { worker: running.worker, connection };
}
