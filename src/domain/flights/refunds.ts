import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { flightBookings } from '../../db/schema';
import { DomainError } from '../errors';
import type { PaymentRun } from '../money/payment-ledger';
import { creditRefund, quoteTerms, withQuote, type QuotedTerms, type RefundResult, type RefundTerms } from '../refund-terms';
import { flightBookingOfOrder, flightOrderOf, supplierOrderIdOf } from './bookings';
import type { CancellationQuote, FlightSupplier } from '../../suppliers/flights';
import type { Money } from '../../suppliers/money';
import { pricerFor, pricingIn, type PricingDeps } from '../money/pricing';
import { supplierRead } from '../supplier-reads';

export type { RefundTerms } from '../refund-terms';

/** What refund terms are asked of: the database, the airline that holds the orders, and how its amounts are priced. */
export interface RefundDeps {
  db: DbOrTx;
  /** The airline a booking was made with. */
  supplierOf(name: string): FlightSupplier;
  pricing: PricingDeps;
}

/** Terms the airline quoted: its cancellation quote, to confirm as it is. */
export interface AirlineTerms extends RefundTerms {
  airlineQuote: CancellationQuote;
}

/**
 * An online refund: ticketed, not yet flown, what the airline's cancellation quote refunds,
 * in the wallet's currency at today's rate (never more than the order cost); the rest is the
 * penalty.
 */
export async function refundTerms(deps: RefundDeps, partnerId: number, orderId: number, now: Date): Promise<AirlineTerms> {
  const { db } = deps;
  const order = await flightOrderOf(db, partnerId, orderId);
  if (order.status === 'refunded') throw new DomainError('validation', `order_id: order ${orderId} is already refunded`);
  if (order.status !== 'completed') throw new DomainError('validation', `order_id: order ${orderId} is ${order.status}; only a ticketed order can be refunded`);
  const booking = await flightBookingOfOrder(db, orderId);
  if (!booking || booking.departureAt.getTime() <= now.getTime()) {
    throw new DomainError('validation', `order_id: the flight of order ${orderId} has departed; ask for an offline refund (air_refund_offline)`);
  }
  const supplierOrderId = supplierOrderIdOf(booking);
  if (!supplierOrderId) throw new DomainError('validation', `order_id: order ${orderId} has no airline order to refund`);
  const airlineQuote = await supplierRead('order_id', () => deps.supplierOf(booking.supplier).quoteCancellation(supplierOrderId));
  const pricer = await pricerFor(pricingIn(deps.pricing, order.currency), [airlineQuote.refund], now);
  const refundMinor = Math.min(pricer.minor(airlineQuote.refund), order.totalPrice);
  return { order, penaltyMinor: order.totalPrice - refundMinor, refundMinor, airlineQuote };
}

/** POST /api/flights/air_refund_display/: the airline's terms, quoted until the airline's quote or the departure ends, whichever is first. */
export async function quoteRefund(deps: RefundDeps, partnerId: number, orderId: number, now: Date): Promise<QuotedTerms> {
  const terms = await refundTerms(deps, partnerId, orderId, now);
  const booking = await flightBookingOfOrder(deps.db, orderId);
  const airlineEnds = terms.airlineQuote.expires_at ? Date.parse(terms.airlineQuote.expires_at) : Infinity;
  return quoteTerms(deps.db, partnerId, orderId, terms, now, Math.min(booking!.departureAt.getTime(), airlineEnds));
}

/**
 * The terms the refund applies, with the airline's quote to confirm: a partner's quote (still
 * valid) is honoured while the airline refunds at least as much; otherwise today's terms.
 */
export async function termsForRefund(deps: RefundDeps, partnerId: number, orderId: number, quoteId: string | undefined, now: Date): Promise<AirlineTerms> {
  const today = await refundTerms(deps, partnerId, orderId, now);
  const terms = await withQuote(deps.db, partnerId, orderId, quoteId, now, today);
  if (terms.refundMinor > today.refundMinor) {
    throw new DomainError('validation', `quote_id: the airline now refunds less than quoted; ask for a new quote (air_refund_display)`, 'quote_id');
  }
  return terms;
}

export type FlightRefundResult = RefundResult;

/** Credits a flight refund (online, or an operator's offline decision) and marks order and booking refunded. */
export async function completeFlightRefund(
  db: DbOrTx,
  input: PaymentRun & {
    orderId: number;
    refundMinor: number;
    penaltyMinor: number;
    how: 'online' | 'offline';
    /** What the airline refunds (its confirmed cancellation quote), which the partner gets at today's rate. */
    supplierRefund?: Money;
    /** What `supplierRefund` is worth in the wallet's currency today, when the partner gets another amount (default: `refundMinor`). */
    supplierRefundValuedMinor?: number;
  },
): Promise<FlightRefundResult> {
  return creditRefund(db, input, {
    step: 'flight-refund',
    ...(input.supplierRefund ? { supplierRefund: { amount: input.supplierRefund, valuedMinor: input.supplierRefundValuedMinor ?? input.refundMinor } } : {}),
    settledStatus: 'refunded',
    // Online from completed; offline once an operator decides the request (refund_requested).
    from: ['completed', 'refund_requested'],
    note: `${input.how} refund of flight order ${input.orderId}`,
    onSettled: async (tx, order) => {
      await tx.update(flightBookings).set({ status: 'refunded', updatedAt: new Date() }).where(eq(flightBookings.orderId, order.id));
    },
  });
}
