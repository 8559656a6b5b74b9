import { Connection } from '@temporalio/client';
import { healthTiming, type HealthMonitor } from '../health/model';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { apiHealthMonitor } from '../health/api-checks';
import { temporalTls } from '../temporal/tls';
import type { ShutdownList } from '../platform/shutdown-list';

/**
 * The API's readiness, checked in the background from now on (src/health/api-checks.ts): its own
 * worker in `npm start` (`workerRunning`), the workers' heartbeats otherwise. Temporal is
 * probed over a connection of its own: a worker's native connection (shared by the client
 * in `npm start`) retries a call for about 10 s whatever its deadline.
 */
export async function startApiHealth(
  config: Config,
  deps: { database: Database; temporalAddress: string; workerRunning?: () => boolean },
  shutdown: ShutdownList,
): Promise<HealthMonitor> {
  const probe = Connection.lazy({ address: deps.temporalAddress, tls: temporalTls(config) });
  shutdown.add(() => probe.close());
  const health = apiHealthMonitor({
    db: deps.database.db,
    connection: probe,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    timing: healthTiming(config),
    workerRunning: deps.workerRunning,
  });
  await health.start();
  shutdown.add(() => health.stop());
  return health;
}
