import crypto from 'node:crypto';
import os from 'node:os';
import { Connection, type TLSConfig } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Config } from '../src/config';
import { HealthMonitor, healthTiming, rootMessage, temporalCheck, type HealthTiming } from '../src/health/model';
import { ping, type Database, type Db } from '../src/db/client';
import { forgetWorker, pruneHeartbeats, recordHeartbeat } from '../src/db/worker-heartbeats';
import { logger } from '../src/platform/log';
import type { ShutdownList } from '../src/platform/shutdown-list';
import { temporalTls } from '../src/temporal/tls';

export interface WorkerHeartbeat {
  /** The worker process's readiness (its /healthz): the worker runs, Temporal and the database answer. */
  health: HealthMonitor;
  /** Stops beating; a worker stopping on purpose also removes its row, so the API sees it gone at once. */
  stop(opts?: { forget?: boolean }): Promise<void>;
}

/**
 * A worker process's heartbeat: its health checked in the background, and a heartbeat row
 * (src/db/worker-heartbeats.ts) stamped every `heartbeatMs` while its worker is RUNNING and
 * reaches Temporal — what the API reads to know, within seconds, that some worker serves the
 * task queue. What it watches are getters: the process serves /healthz before it has connected.
 */
export async function startWorkerHeartbeat(opts: {
  taskQueue: string;
  heartbeatMs: number;
  timing: HealthTiming;
  worker: () => Worker | null | undefined;
  /** The Temporal frontend the worker polls, once known. */
  temporalAddress: () => string | undefined;
  /** How the probe speaks TLS to that frontend (src/temporal/tls.ts). */
  tls?: TLSConfig;
  db: () => Db | undefined;
}): Promise<WorkerHeartbeat> {
  // Probed over a connection of its own: the worker's native connection retries a call for
  // up to 10 s whatever its deadline, so it could not tell within seconds that Temporal is back.
  let probe: Connection | undefined;
  const identity = `${process.pid}@${os.hostname()}/${crypto.randomBytes(4).toString('hex')}`;
  const health = new HealthMonitor(
    {
      worker: async () => {
        const state = opts.worker()?.getState() ?? 'STARTING';
        if (state !== 'RUNNING') throw new Error(`the worker is ${state}`);
        return `${state} on task queue ${opts.taskQueue}`;
      },
      temporal: async () => {
        const address = opts.temporalAddress();
        if (!address) throw new Error('not connected yet');
        probe ??= Connection.lazy({ address, tls: opts.tls });
        await temporalCheck(probe, opts.timing.timeoutMs)();
      },
      database: async () => {
        const db = opts.db();
        if (!db) throw new Error('not opened yet');
        await ping(db);
      },
    },
    opts.timing,
  );
  await health.start();

  let beating = false;
  let pruned = false;
  let temporalDownSince: number | undefined;
  const beat = async () => {
    const db = opts.db();
    if (!db) return;
    const { checks } = health.report();
    const now = Date.now();
    temporalDownSince = checks.temporal?.ok ? undefined : (temporalDownSince ?? now);
    // A worker that is not running pauses at once. One unanswered Temporal probe (a slow round
    // on a busy machine) does not: the heartbeat pauses once Temporal has failed for a whole interval.
    const reachesTemporal = checks.temporal?.ok || (beating && now - temporalDownSince! < opts.heartbeatMs);
    if (checks.worker?.ok && reachesTemporal) {
      await recordHeartbeat(db, { identity, taskQueue: opts.taskQueue, intervalMs: opts.heartbeatMs });
      if (!beating) logger.info({ identity, taskQueue: opts.taskQueue }, 'worker heartbeat started');
      beating = true;
      if (!pruned) await pruneHeartbeats(db);
      pruned = true;
    } else if (beating) {
      // Cannot serve (Temporal unreachable, worker stopping): say so now rather than go stale.
      beating = false;
      logger.warn({ identity, checks }, 'worker heartbeat paused');
      await forgetWorker(db, identity);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;
  let last: Promise<void> = Promise.resolve();
  const loop = () => {
    if (stopped) return;
    // Once per outage, not every beat: /healthz says the rest.
    last = beat().then(
      () => void (failing = false),
      (err: unknown) => {
        if (!failing) logger.warn({ err: rootMessage(err) }, 'worker heartbeat not written');
        failing = true;
      },
    );
    // Not beating (starting, or paused): look again at the next health round, so a worker
    // that can serve again says so within a second rather than a heartbeat interval.
    void last.finally(() => {
      if (!stopped) timer = setTimeout(loop, beating ? opts.heartbeatMs : opts.timing.intervalMs).unref();
    });
  };
  loop();
  await last; // the first heartbeat is written before the caller goes on

  return {
    health,
    async stop({ forget = true } = {}) {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await health.stop();
      await last;
      await probe?.close().catch(() => undefined);
      const db = opts.db();
      if (forget && db) await forgetWorker(db, identity).catch(() => undefined);
    },
  };
}

/**
 * A worker process's heartbeat (startWorkerHeartbeat, above): its health checked in the background
 * and its heartbeat row, from now on; what it watches are getters, filled in as the process starts.
 */
export async function startHeartbeat(
  config: Config,
  watched: { worker: () => Worker | undefined; temporalAddress: () => string | undefined; database: () => Database | undefined },
  shutdown: ShutdownList,
): Promise<WorkerHeartbeat> {
  const heartbeat = await startWorkerHeartbeat({
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    heartbeatMs: config.WORKER_HEARTBEAT_MS,
    timing: healthTiming(config),
    worker: watched.worker,
    temporalAddress: watched.temporalAddress,
    tls: temporalTls(config),
    db: () => watched.database()?.db,
  });
  shutdown.add(() => heartbeat.stop());
  return heartbeat;
}
