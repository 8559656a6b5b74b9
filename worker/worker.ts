import fs from 'node:fs';
import path from 'node:path';
import type { TLSConfig } from '@temporalio/client';
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
import type { WorkflowOutcomes } from '../src/temporal/outcomes';
import type { OutcomeSinks } from '../workflows/outcome.types';
import { grpcCompression } from '../src/temporal/connection';
import { engineDataConverter } from '../src/temporal/payload-codec';
import { DEFAULT_VERSIONING_BEHAVIOR } from '../workflows/versioning';
import { workflowCodeBuildId, type WorkerVersion } from './deployment';
import { requestIdActivityInterceptors } from './interceptors';

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

/** The sink every workflow reports its outcome to on its way out (workflows/interceptors.ts); registered on every worker. */
export function outcomeSinks(outcomes: WorkflowOutcomes | undefined): InjectedSinks<OutcomeSinks> {
  return {
    outcomes: {
      settled: { fn: (info, outcome) => outcomes?.settled(info.workflowId, info.runId, outcome) },
      parked: { fn: (info) => outcomes?.parked(info.workflowId, info.runId) },
      resumed: { fn: (info) => outcomes?.resumed(info.workflowId, info.runId) },
    },
  };
}

/** A worker's connection to Temporal: uncompressed to a Temporal on this machine (grpcCompression); over TLS when `tls` is given. */
export function connectWorker(address: string, tls?: TLSConfig): Promise<NativeConnection> {
  return NativeConnection.connect({ address, grpcCompression: { codec: grpcCompression(address) }, ...(tls ? { tls } : {}) });
}
