import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, reservations } from '../../db/schema';
import { notFound, validation } from '../errors';
import { isStorableId } from '../ids';
import { carriedPriceColumns } from '../money/markup';
import type { OrderRow } from '../orders';
import type { ReservationRow } from './reservations';
import { actorNow } from '../../platform/request-context';

/** POST /api/residence/reserve/book/: the held dates become a pending travel order. */
export async function bookReservation(db: DbOrTx, partnerId: number, id: number): Promise<{ order: OrderRow; reservation: ReservationRow }> {
  return db.transaction(async (tx) => {
    const [r] = isStorableId(id)
      ? await tx
          .select()
          .from(reservations)
          .where(and(eq(reservations.id, id), eq(reservations.partnerId, partnerId)))
          .for('update')
      : [];
    if (!r) throw notFound(`reservation ${id}`);
    if (r.orderId !== null) throw validation('reservation_id', `reservation ${id} is already order ${r.orderId}`);
    if (r.status !== 'held' || r.expiresAt.getTime() <= Date.now())
      throw validation('reservation_id', `reservation ${id} is ${r.status === 'held' ? 'expired' : r.status}`);
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId,
        service: 'residence',
        totalPrice: r.totalPrice,
        currency: r.currency,
        paymentMethod: 'PARTNER_CREDIT',
        details: { reservation_id: r.id },
        ...carriedPriceColumns(r),
      })
      .returning();
    const [updated] = await tx
      .update(reservations)
      .set({ status: 'booked', orderId: order!.id, updatedAt: new Date() })
      .where(eq(reservations.id, r.id))
      .returning();
    return { order: order!, reservation: updated! };
  });
}

/** Paid: the host confirmed the stay. */
export async function recordHostConfirmation(db: DbOrTx, id: number, confirmationNumber: string): Promise<void> {
  await db.update(reservations).set({ status: 'confirmed', confirmationNumber, updatedAt: new Date() }).where(eq(reservations.id, id));
}

/** The stay is over. */
export async function completeStay(db: DbOrTx, id: number): Promise<void> {
  await db
    .update(reservations)
    .set({ status: 'completed', updatedAt: new Date() })
    .where(and(eq(reservations.id, id), eq(reservations.status, 'confirmed')));
}
