import { NativeConnection, Worker, type ActivityInterceptorsFactory, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { requestIdActivityInterceptors } from './interceptors';

export interface WorkerConfig {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A pre-built bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** More activity interceptors after the engine's own (tests hold a step at a chosen moment). */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /** Cache and poller sizes; unset ones keep the SDK's defaults. */
  tuning?: Pick<WorkerOptions, 'maxCachedWorkflows' | 'maxConcurrentWorkflowTaskPolls' | 'maxConcurrentActivityTaskPolls'>;
}

export const WORKFLOWS_PATH = require.resolve('../workflows');
/** Bundled with the workflows: at start here, or by whoever pre-builds a bundle (bundleWorkflowCode). */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../workflows/interceptors')];

/** The worker runs the booking workflows and their activities against the injected dependencies. */
export function createWorker(cfg: WorkerConfig): Promise<Worker> {
  // The request id of the API request a workflow works for reaches its activities' logs.
  const activity = [requestIdActivityInterceptors, ...(cfg.activityInterceptors ?? [])];
  return Worker.create({
    connection: cfg.connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    activities: createActivities(cfg.deps),
    ...Object.fromEntries(Object.entries(cfg.tuning ?? {}).filter(([, v]) => v !== undefined)),
    ...(cfg.workflowBundle
      ? { workflowBundle: cfg.workflowBundle, interceptors: { activity } }
      : { workflowsPath: WORKFLOWS_PATH, interceptors: { activity, workflowModules: WORKFLOW_INTERCEPTOR_MODULES } }),
  });
}
