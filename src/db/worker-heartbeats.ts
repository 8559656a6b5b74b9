import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from './client';
import { workerHeartbeats } from './schema';

/** A worker counts as present while its last heartbeat is younger than this many of its intervals. */
export const MISSED_HEARTBEATS = 3;

/** Stamps a worker's heartbeat with the database's clock. */
export async function recordHeartbeat(db: Db, w: { identity: string; taskQueue: string; intervalMs: number }): Promise<void> {
  await db
    .insert(workerHeartbeats)
    .values({ identity: w.identity, taskQueue: w.taskQueue, intervalMs: w.intervalMs })
    .onConflictDoUpdate({ target: workerHeartbeats.identity, set: { lastSeen: sql`now()`, intervalMs: w.intervalMs } });
}

/** A worker that stops on purpose (or cannot serve) says so at once, instead of going stale. */
export async function forgetWorker(db: Db, identity: string): Promise<void> {
  await db.delete(workerHeartbeats).where(eq(workerHeartbeats.identity, identity));
}

/** Rows of workers gone for an hour (killed, never to say goodbye) are of no use to anybody. */
export async function pruneHeartbeats(db: Db): Promise<void> {
  await db.delete(workerHeartbeats).where(lt(workerHeartbeats.lastSeen, sql`now() - interval '1 hour'`));
}

/** How many workers stamped a heartbeat on the task queue within MISSED_HEARTBEATS of their intervals. */
export async function liveWorkers(db: Db, taskQueue: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(workerHeartbeats)
    .where(
      and(
        eq(workerHeartbeats.taskQueue, taskQueue),
        gt(workerHeartbeats.lastSeen, sql`now() - ${workerHeartbeats.intervalMs} * ${MISSED_HEARTBEATS} * interval '1 millisecond'`),
      ),
    );
  return Number(row?.n ?? 0);
}
