import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, properties, reservations } from '../../db/schema';
import { DomainError, notFound } from '../errors';
import type { PaymentRun } from '../money/payment-ledger';
import { settleRefund } from '../refunds';
import { refundPercent, type CancellationPolicy } from './pricing';
import { lockReservation } from './reservations';
import { actorNow } from '../../platform/request-context';

export type CancelRequest = { kind: 'released' } | { kind: 'requested'; refundMinor: number; confirmationNumber: string | null };

/**
 * The partner cancels: an unpaid hold is released at once (no money), a paid stay waits
 * for the host, with the refund fixed now by the property's policy.
 */
export async function requestCancel(db: DbOrTx, id: number, now: Date): Promise<CancelRequest> {
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, id);
    if (r.status === 'cancel_requested') return { kind: 'requested', refundMinor: r.cancelRefund ?? 0, confirmationNumber: r.confirmationNumber };
    if (order?.status === 'processing')
      throw new DomainError('validation', `reservation_id: reservation ${id} is being paid; cancel once the payment finished`);
    if (r.status === 'held' || r.status === 'booked') {
      await tx.update(reservations).set({ status: 'cancelled', updatedAt: now }).where(eq(reservations.id, r.id));
      if (order) await tx.update(orders).set({ status: 'cancelled', actedBy: actorNow(), updatedAt: now }).where(eq(orders.id, order.id));
      return { kind: 'released' };
    }
    if (r.status !== 'confirmed') throw new DomainError('validation', `reservation_id: reservation ${id} is ${r.status}`);
    const [p] = await tx.select().from(properties).where(eq(properties.id, r.propertyId));
    const refundMinor = Math.floor((r.totalPrice * refundPercent(p!.cancellationPolicy as CancellationPolicy, r.checkIn, now)) / 100);
    await tx.update(reservations).set({ status: 'cancel_requested', cancelRefund: refundMinor, updatedAt: now }).where(eq(reservations.id, r.id));
    return { kind: 'requested', refundMinor, confirmationNumber: r.confirmationNumber };
  });
}

/** The host accepted: the refund fixed at the request is credited and the stay is cancelled. */
export async function settleCancellation(db: DbOrTx, input: PaymentRun & { reservationId: number }) {
  const [r] = await db.select().from(reservations).where(eq(reservations.id, input.reservationId));
  if (!r?.orderId) throw notFound(`reservation ${input.reservationId}`);
  return settleRefund(db, {
    workflowId: input.workflowId,
    runId: input.runId,
    orderId: r.orderId,
    amountMinor: r.cancelRefund ?? 0,
    step: 'residence-cancel-refund',
    settledStatus: 'cancelled',
    from: ['completed'],
    note: `cancellation of residence reservation ${r.id}`,
    onSettled: async (tx) => {
      await tx.update(reservations).set({ status: 'cancelled', updatedAt: new Date() }).where(eq(reservations.id, r.id));
    },
  });
}
