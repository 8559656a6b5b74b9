import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

export interface WorkerConfig {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A pre-built bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Cache and poller sizes; unset ones keep the SDK's defaults. */
  tuning?: Pick<WorkerOptions, 'maxCachedWorkflows' | 'maxConcurrentWorkflowTaskPolls' | 'maxConcurrentActivityTaskPolls'>;
}

export const WORKFLOWS_PATH = require.resolve('../workflows');

/** The worker runs the booking workflows and their activities against the injected dependencies. */
export function createWorker(cfg: WorkerConfig): Promise<Worker> {
  return Worker.create({
    connection: cfg.connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    activities: createActivities(cfg.deps),
    ...Object.fromEntries(Object.entries(cfg.tuning ?? {}).filter(([, v]) => v !== undefined)),
    ...(cfg.workflowBundle ? { workflowBundle: cfg.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
  });
}
