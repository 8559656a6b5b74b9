import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, reservations } from '../../db/schema';
import { lockReservation } from './reservations';
import { actorNow } from '../../platform/request-context';

export type HoldState = { state: 'expired' } | { state: 'held'; expiresAt: number } | { state: 'paid'; checkOut: string } | { state: 'gone' };

const RECHECK_WHILE_PAYING_MS = 30_000;

/** The hold timer fired: unpaid → expired (dates free again); paying → look again soon; paid → the stay goes on. */
export async function expireHoldIfDue(db: DbOrTx, id: number, now: Date): Promise<HoldState> {
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, id);
    if (order?.status === 'completed' || r.status === 'confirmed') return { state: 'paid', checkOut: r.checkOut };
    if (order?.status === 'processing') return { state: 'held', expiresAt: now.getTime() + RECHECK_WHILE_PAYING_MS };
    if (r.status !== 'held' && r.status !== 'booked') return { state: 'gone' };
    if (r.expiresAt.getTime() > now.getTime()) return { state: 'held', expiresAt: r.expiresAt.getTime() };
    await tx.update(reservations).set({ status: 'expired', updatedAt: now }).where(eq(reservations.id, r.id));
    if (order) await tx.update(orders).set({ status: 'expired', actedBy: actorNow(), updatedAt: now }).where(eq(orders.id, order.id));
    return { state: 'expired' };
  });
}
