import { HealthMonitor, temporalCheck, type HealthTiming } from './model';
import { ping, type Db } from '../db/client';
import { liveWorkers } from '../db/worker-heartbeats';

/**
 * The API's readiness: the database answers, Temporal answers, and a worker serves the task
 * queue: in the all-in-one process its own worker runs; otherwise a worker process stamped
 * its heartbeat recently (worker/heartbeat.ts), as Temporal's poller lists cannot tell
 * within minutes that every worker is gone.
 */
export function apiHealthMonitor(opts: {
  db: Db;
  connection: Parameters<typeof temporalCheck>[0];
  taskQueue: string;
  timing: HealthTiming;
  workerRunning?: () => boolean;
}): HealthMonitor {
  return new HealthMonitor(
    {
      database: () => ping(opts.db),
      temporal: temporalCheck(opts.connection, opts.timing.timeoutMs),
      worker: async () => {
        if (opts.workerRunning) {
          if (!opts.workerRunning()) throw new Error('the in-process worker is not running');
          return;
        }
        const live = await liveWorkers(opts.db, opts.taskQueue);
        if (live === 0) throw new Error(`no worker heartbeat on task queue ${opts.taskQueue}`);
        return `${live} worker${live === 1 ? '' : 's'} on task queue ${opts.taskQueue}`;
      },
    },
    opts.timing,
  );
}
