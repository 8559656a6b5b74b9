import { and, asc, eq, inArray, lt, ne, notExists, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { events, webhookAttempts, webhookDeliveries } from '../db/schema';

/**
 * How long events are kept (docs/webhooks.md, "Retention"): a partner catches up through the
 * feed within this window; older events, with their deliveries and every attempt at them,
 * are deleted. An event that an endpoint is still owed (a pending delivery) is kept until it
 * is delivered, given up or skipped, however old.
 */
export interface Retention {
  /** Events created before this are pruned. */
  before: Date;
  /** At most this many events per transaction (a round repeats until fewer are left). */
  batch: number;
}

/**
 * One batch of pruning in one transaction: returns how many events went, or null when
 * another process holds the pruning lock (every worker runs a pruner; one prunes at a time).
 */
export async function pruneEventsOnce(db: Db, r: Retention): Promise<number | null> {
  return db.transaction(async (tx) => {
    const locked = (await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtext('events_retention')) AS got`)) as unknown as { rows: { got: boolean }[] };
    if (!locked.rows[0]?.got) return null;
    const pending = (eventId: typeof events.id) =>
      tx
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.state, 'pending')));
    const old = await tx
      .select({ id: events.id })
      .from(events)
      .where(and(lt(events.createdAt, r.before), notExists(pending(events.id))))
      .orderBy(asc(events.createdAt))
      .limit(r.batch);
    const ids = old.map((e) => e.id);
    if (!ids.length) return 0;
    // A delivery made pending again meanwhile (a redelivery) is left, and keeps its event.
    const settled = and(inArray(webhookDeliveries.eventId, ids), ne(webhookDeliveries.state, 'pending'));
    await tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(settled)));
    await tx.delete(webhookDeliveries).where(settled);
    const gone = await tx
      .delete(events)
      .where(
        and(
          inArray(events.id, ids),
          notExists(tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events.id))),
        ),
      )
      .returning({ id: events.id });
    return gone.length;
  });
}

/** Prunes in batches until fewer than a batch are left (or another process is pruning); returns how many events went. */
export async function pruneEvents(db: Db, r: Retention): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await pruneEventsOnce(db, r);
    if (n === null) return total;
    total += n;
    if (n < r.batch) return total;
  }
}
