import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { hotelBookings, orders } from '../../db/schema';
import type { WalletPolicyStep as PolicyStep } from './prices';
import { DomainError, notFound } from '../errors';
import { serviceOrderOf } from '../orders';
import type { PaymentRun } from '../money/payment-ledger';
import { creditRefund, quoteTerms, withQuote, type QuotedTerms, type RefundResult, type RefundTerms } from '../refund-terms';
import { bookingOfOrder } from './bookings';
import { actorNow } from '../../platform/request-context';

/** The penalty in force at `now`: the last policy step that has begun, capped at the price. */
export function penaltyAt(policy: PolicyStep[], totalMinor: number, now: Date): number {
  const begun = policy.filter((s) => Date.parse(s.from) <= now.getTime());
  const penalty = begun.length ? begun[begun.length - 1]!.penalty_minor : 0;
  return Math.min(Math.max(penalty, 0), totalMinor);
}

/** When the penalty next changes, if it does. */
function nextStepAfter(policy: PolicyStep[], now: Date): number | null {
  const next = policy.map((s) => Date.parse(s.from)).filter((t) => t > now.getTime());
  return next.length ? Math.min(...next) : null;
}

export type CancellationKind = 'paid' | 'unpaid';

export interface CancellationTerms extends RefundTerms {
  kind: CancellationKind;
}

/**
 * What cancelling this partner's hotel order means right now. Another partner's order,
 * or an order that is not a hotel booking, is not found; a finished one is a clear 400.
 */
export async function cancellationTerms(db: DbOrTx, partnerId: number, orderId: number, now: Date): Promise<CancellationTerms> {
  const order = await serviceOrderOf(db, partnerId, orderId, 'hotel');
  if (order.status === 'cancelled') throw new DomainError('validation', `order_id: order ${orderId} is already cancelled`);
  if (order.status === 'processing') throw new DomainError('validation', `order_id: order ${orderId} is being paid; cancel it once the payment has finished`);
  if (order.status !== 'completed' && order.status !== 'pending') {
    throw new DomainError('validation', `order_id: order ${orderId} is ${order.status}; there is nothing to cancel`);
  }
  if (order.status === 'pending') return { order, kind: 'unpaid', penaltyMinor: 0, refundMinor: 0 };
  const booking = await bookingOfOrder(db, order.id);
  const penaltyMinor = penaltyAt(booking?.cancellationPolicy ?? [], order.totalPrice, now);
  return { order, kind: 'paid', penaltyMinor, refundMinor: order.totalPrice - penaltyMinor };
}

/** POST /api/hotel/cancel_display/: the terms now, as a quote that cancel honours until it expires. */
export async function quoteCancellation(db: DbOrTx, partnerId: number, orderId: number, now: Date): Promise<QuotedTerms> {
  const terms = await cancellationTerms(db, partnerId, orderId, now);
  const booking = await bookingOfOrder(db, orderId);
  // A quote never outlives the penalty it shows.
  return quoteTerms(db, partnerId, orderId, terms, now, nextStepAfter(booking?.cancellationPolicy ?? [], now));
}

/** The terms cancel applies: the quote's when one is given (and still valid), else today's. */
export async function termsForCancel(db: DbOrTx, partnerId: number, orderId: number, quoteId: string | undefined, now: Date): Promise<CancellationTerms> {
  const terms = await cancellationTerms(db, partnerId, orderId, now);
  // An unpaid order has nothing to refund: the quote is checked, its amounts are not used.
  return withQuote(db, partnerId, orderId, quoteId, now, terms, terms.kind === 'paid');
}

export interface CancellationStart {
  kind: CancellationKind;
  confirmationNumber: string | null;
  supplierHoldId: string | null;
}

/**
 * First step of the cancellation workflow: what there is to undo at the supplier. An unpaid
 * order is claimed here, from `pending` to `cancelled` in one locked step, so a payment
 * arriving after this point finds it no longer payable; a paid one stays `completed` until
 * its refund is written.
 */
export async function beginCancellation(db: DbOrTx, orderId: number): Promise<CancellationStart> {
  return db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update');
    if (!order) throw notFound(`order ${orderId}`);
    const booking = await bookingOfOrder(tx, orderId);
    if (order.status === 'processing') throw new DomainError('conflict', `order ${orderId} is being paid`);
    if (order.status === 'pending') {
      const now = new Date();
      await tx
        .update(orders)
        .set({ status: 'cancelled', actedBy: actorNow(), updatedAt: now })
        .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')));
      await tx.update(hotelBookings).set({ status: 'cancelled', updatedAt: now }).where(eq(hotelBookings.orderId, orderId));
    }
    const kind: CancellationKind = order.status === 'pending' || (order.status === 'cancelled' && !booking?.confirmationNumber) ? 'unpaid' : 'paid';
    return { kind, confirmationNumber: booking?.confirmationNumber ?? null, supplierHoldId: booking?.supplierHoldId ?? null };
  });
}

export type CancellationResult = RefundResult;

/**
 * Last step: credits the refund (a `refund` ledger row naming the order) and marks the
 * order and booking cancelled, in one transaction. A retry writes nothing more.
 */
export async function completeCancellation(
  db: DbOrTx,
  input: PaymentRun & { orderId: number; kind: CancellationKind; refundMinor: number; penaltyMinor: number },
): Promise<CancellationResult> {
  const paid = input.kind === 'paid';
  return creditRefund(
    db,
    { ...input, refundMinor: paid ? input.refundMinor : 0, penaltyMinor: paid ? input.penaltyMinor : 0 },
    {
      step: 'cancel-refund',
      settledStatus: 'cancelled',
      // A paid order is cancelled from completed; an unpaid one was claimed by beginCancellation.
      from: paid ? ['completed'] : ['pending'],
      note: `cancellation of hotel order ${input.orderId}`,
      onSettled: async (tx, order) => {
        await tx.update(hotelBookings).set({ status: 'cancelled', updatedAt: new Date() }).where(eq(hotelBookings.orderId, order.id));
      },
    },
  );
}
