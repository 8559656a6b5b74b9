import type { BookedFlight } from '../workflows/flight.types';
import type { Db } from '../src/db/client';
import {
  expireFlightIfDue,
  flightBookingById,
  flightBookingOfOrder,
  markFlightBookingFailed,
  flightBookingBySupplierRef,
  recordAirBooking,
  supplierOrderIdOf,
  rejectOfflineRefund,
  type TimeLimitCheck,
} from '../src/domain/flights/bookings';
import { completeFlightRefund } from '../src/domain/flights/refunds';
import { DomainError } from '../src/domain/errors';
import { SupplierRejectedError } from '../src/suppliers/errors';
import { pricingIn, type PricingDeps } from '../src/domain/money/pricing';
import { pricerForBooking, supplierPriceOf } from '../src/domain/money/supplier-price';
import { flightMarkup } from '../src/domain/flights/service';
import { withScenario } from '../src/sandbox/context';
import type { ChosenService } from '../src/suppliers/flight-after-sale';
import type { CancellationQuote, FlightSupplier, Traveler } from '../src/suppliers/flights';
import { FailureType } from '../workflows/failure-types';
import { runActivityStep } from './failures';

/** Airline bookings, time limits and refunds: every call that changes something at the airline. */
export function flightActivities(db: Db, supplierOf: (name: string) => FlightSupplier, pricing: PricingDeps) {
  /** The airline that holds the order with this supplier id (a booking's recorded supplier). */
  const holderOf = async (supplierRef: string) => supplierOf((await flightBookingBySupplierRef(db, supplierRef))?.supplier ?? 'simulator');

  return {
    /** Holds the offer at the airline and creates the pending travel order for it, at the partner's price. */
    createAirBooking: (input: { bookingId: number; clientReference: string; scenario?: string }) =>
      runActivityStep(
        async (): Promise<BookedFlight> => {
          const booking = await flightBookingById(db, input.bookingId);
          try {
            const air = await withScenario(input.scenario, () =>
              supplierOf(booking.supplier).hold({
                offerId: booking.fareSourceCode,
                clientReference: input.clientReference,
                travelers: booking.travelers as unknown as Traveler[],
                contact: booking.contact,
                ...(booking.services?.length ? { services: booking.services as ChosenService[] } : {}),
              }),
            );
            const now = new Date();
            // Priced in the currency the booking was made in: its partner's wallet's.
            const inWallet = pricingIn(pricing, booking.currency);
            const pricer = await pricerForBooking(inWallet, booking, [air.total, air.refund_penalty], air.total, now);
            const markup = await flightMarkup(inWallet, booking.partnerId, booking.supplier, now);
            const price = {
              parts: markup.price(pricer.minor(air.total)),
              refundPenaltyMinor: air.refund_penalty ? pricer.minor(air.refund_penalty) : null,
              supplier: supplierPriceOf(pricer, air.total),
            };
            const { order } = await recordAirBooking(db, booking.id, air, price);
            return {
              bookingId: booking.id,
              orderId: order.id,
              pnr: air.booking_reference,
              ticketTimeLimit: Date.parse(air.payment_required_by),
              totalPriceMinor: price.parts.sellMinor,
            };
          } catch (err) {
            if (err instanceof SupplierRejectedError) await markFlightBookingFailed(db, booking.id, err.message);
            throw err;
          }
        },
        () => FailureType.holdRefused,
      ),

    expireFlightBooking: (bookingId: number): Promise<TimeLimitCheck> => runActivityStep(() => expireFlightIfDue(db, bookingId, new Date())),

    /** Releases an unpaid airline order (named by its supplier id) so the seats go back; one the airline already dropped is fine. */
    cancelAirBooking: (orderId: string) =>
      runActivityStep(async () => {
        try {
          return { status: (await (await holderOf(orderId)).release(orderId)).status };
        } catch (err) {
          if (err instanceof SupplierRejectedError && (err.status === 404 || err.status === 410)) return { status: 'gone' };
          throw err;
        }
      }),

    /** The airline order a refund cancels: its supplier id (under `pnr`, the name the refund workflow gives it). */
    beginFlightRefund: (orderId: number) =>
      runActivityStep(async () => {
        const booking = await flightBookingOfOrder(db, orderId);
        const supplierOrderId = booking ? supplierOrderIdOf(booking) : null;
        if (!supplierOrderId) throw new DomainError('not_found', `no airline booking for order ${orderId}`);
        return { pnr: supplierOrderId };
      }),

    /** Cancels the issued order at the airline: the quote the partner's terms came from (or a new one) confirmed. */
    refundAtAirline: (input: { pnr: string; clientReference: string; scenario?: string; quote?: CancellationQuote }) =>
      runActivityStep(
        () =>
          withScenario(input.scenario, async () => {
            const supplier = await holderOf(input.pnr);
            const quote = input.quote ?? (await supplier.quoteCancellation(input.pnr));
            const done = await supplier.confirmCancellation(quote, { clientReference: input.clientReference });
            return { refundedMinor: done.refund.amount_minor, status: 'refunded' };
          }),
        () => FailureType.refundRejected,
      ),

    completeFlightRefund: (input: Parameters<typeof completeFlightRefund>[1]) => runActivityStep(() => completeFlightRefund(db, input)),

    rejectOfflineRefund: (orderId: number) => runActivityStep(() => rejectOfflineRefund(db, orderId)),
  };
}
