import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { flightBookings } from '../../db/schema';
import { DomainError } from '../errors';
import type { PaymentRun } from '../payment-ledger';
import { creditRefund, quoteTerms, withQuote, type QuotedTerms, type RefundResult, type RefundTerms } from '../refund-terms';
import { flightBookingOfOrder, flightOrderOf } from './bookings';

export type { RefundTerms } from '../refund-terms';

/** An online refund per the fare rules: ticketed, not yet flown, total minus the fare's refund penalty. */
export async function refundTerms(db: DbOrTx, partnerId: number, orderId: number, now: Date): Promise<RefundTerms> {
  const order = await flightOrderOf(db, partnerId, orderId);
  if (order.status === 'refunded') throw new DomainError('validation', `order_id: order ${orderId} is already refunded`);
  if (order.status !== 'completed') throw new DomainError('validation', `order_id: order ${orderId} is ${order.status}; only a ticketed order can be refunded`);
  const booking = await flightBookingOfOrder(db, orderId);
  if (!booking || booking.departureAt.getTime() <= now.getTime()) {
    throw new DomainError('validation', `order_id: the flight of order ${orderId} has departed; ask for an offline refund (air_refund_offline)`);
  }
  const penaltyMinor = Math.min(booking.refundPenalty ?? order.totalPrice, order.totalPrice);
  return { order, penaltyMinor, refundMinor: order.totalPrice - penaltyMinor };
}

/** POST /api/flights/air_refund_display/. */
export async function quoteRefund(db: DbOrTx, partnerId: number, orderId: number, now: Date): Promise<QuotedTerms> {
  const terms = await refundTerms(db, partnerId, orderId, now);
  const booking = await flightBookingOfOrder(db, orderId);
  return quoteTerms(db, partnerId, orderId, terms, now, booking!.departureAt.getTime());
}

/** The terms the refund applies: the quote's when one is given (and still valid), else today's. */
export async function termsForRefund(db: DbOrTx, partnerId: number, orderId: number, quoteId: string | undefined, now: Date): Promise<RefundTerms> {
  return withQuote(db, partnerId, orderId, quoteId, now, await refundTerms(db, partnerId, orderId, now));
}

export type FlightRefundResult = RefundResult;

/** Credits a flight refund (online, or an operator's offline decision) and marks order and booking refunded. */
export async function completeFlightRefund(
  db: DbOrTx,
  input: PaymentRun & { orderId: number; refundMinor: number; penaltyMinor: number; how: 'online' | 'offline' },
): Promise<FlightRefundResult> {
  return creditRefund(db, input, {
    step: 'flight-refund',
    settledStatus: 'refunded',
    note: `${input.how} refund of flight order ${input.orderId}`,
    onSettled: async (tx, order) => {
      await tx.update(flightBookings).set({ status: 'refunded', updatedAt: new Date() }).where(eq(flightBookings.orderId, order.id));
    },
  });
}
