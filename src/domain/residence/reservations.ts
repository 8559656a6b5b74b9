import { and, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { orders, reservations } from '../../db/schema';
import { notFound } from '../errors';
import { isStorableId } from '../ids';
import { readableBy } from '../orders';

export type ReservationRow = typeof reservations.$inferSelect;

/**
 * Finding and locking a reservation. The residence's other jobs each have a file here:
 * catalogue.ts (properties), availability.ts (dates taken), stay-rules.ts, holds.ts,
 * booking.ts, expiry.ts, cancellation.ts, modification.ts (wallet changes), view.ts.
 */

/**
 * A reservation of this partner, or 404: another partner's does not exist for the caller. To
 * `read` it, a parent agency's own or its sub-agencies'; to act on it, its own.
 */
export async function reservationOf(db: DbOrTx, partnerId: number, id: number, access: 'read' | 'act' = 'act'): Promise<ReservationRow> {
  const whose = access === 'read' ? readableBy(partnerId, reservations.partnerId) : eq(reservations.partnerId, partnerId);
  const [r] = isStorableId(id)
    ? await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.id, id), whose))
    : [];
  if (!r) throw notFound(`reservation ${id}`);
  return r;
}

export async function reservationOfOrder(db: DbOrTx, orderId: number): Promise<ReservationRow | undefined> {
  const [r] = await db.select().from(reservations).where(eq(reservations.orderId, orderId));
  return r;
}

/** Locks a reservation and its order (order first, as payments do). */
export async function lockReservation(tx: Tx, id: number) {
  const [peek] = await tx.select({ orderId: reservations.orderId }).from(reservations).where(eq(reservations.id, id));
  if (!peek) throw notFound(`reservation ${id}`);
  const [order] = peek.orderId === null ? [] : await tx.select().from(orders).where(eq(orders.id, peek.orderId)).for('update');
  const [r] = await tx.select().from(reservations).where(eq(reservations.id, id)).for('update');
  return { r: r!, order };
}
