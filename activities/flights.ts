import type { BookedFlight } from '../workflows/flight.types';
import type { Db } from '../src/db/client';
import {
  expireFlightIfDue,
  flightBookingById,
  flightBookingOfOrder,
  markFlightBookingFailed,
  recordAirBooking,
  rejectOfflineRefund,
  type TimeLimitCheck,
} from '../src/domain/flights/bookings';
import { completeFlightRefund } from '../src/domain/flights/refunds';
import { DomainError } from '../src/domain/errors';
import { SupplierRejectedError } from '../src/suppliers/errors';
import type { FlightSupplier, Traveler } from '../src/suppliers/flights';
import { FailureType } from '../workflows/failure-types';
import { runActivityStep } from './failures';

/** Airline bookings, time limits and refunds: every call that changes something at the airline. */
export function flightActivities(db: Db, supplier: FlightSupplier) {
  return {
    /** Books the PNR and creates the pending travel order for it. */
    createAirBooking: (input: { bookingId: number; clientReference: string }) =>
      runActivityStep(
        async (): Promise<BookedFlight> => {
          const booking = await flightBookingById(db, input.bookingId);
          try {
            const air = await supplier.book({
              fareSourceCode: booking.fareSourceCode,
              clientReference: input.clientReference,
              travelers: booking.travelers as unknown as Traveler[],
              contact: booking.contact,
            });
            const { order } = await recordAirBooking(db, booking.id, air);
            return {
              bookingId: booking.id,
              orderId: order.id,
              pnr: air.pnr,
              ticketTimeLimit: Date.parse(air.ticket_time_limit),
              totalPriceMinor: air.total_price_minor,
            };
          } catch (err) {
            if (err instanceof SupplierRejectedError) await markFlightBookingFailed(db, booking.id, err.message);
            throw err;
          }
        },
        () => FailureType.holdRefused,
      ),

    expireFlightBooking: (bookingId: number): Promise<TimeLimitCheck> => runActivityStep(() => expireFlightIfDue(db, bookingId, new Date())),

    /** Cancels an unticketed PNR so the seats go back; one the airline already dropped is fine. */
    cancelAirBooking: (pnr: string) =>
      runActivityStep(async () => {
        try {
          return { status: (await supplier.cancel(pnr)).status };
        } catch (err) {
          if (err instanceof SupplierRejectedError && (err.status === 404 || err.status === 410)) return { status: 'gone' };
          throw err;
        }
      }),

    beginFlightRefund: (orderId: number) =>
      runActivityStep(async () => {
        const booking = await flightBookingOfOrder(db, orderId);
        if (!booking?.pnr) throw new DomainError('not_found', `no airline booking for order ${orderId}`);
        return { pnr: booking.pnr };
      }),

    refundAtAirline: (input: { pnr: string; clientReference: string; scenario?: string }) =>
      runActivityStep(
        async () => {
          const air = await supplier.refund(input.pnr, input.clientReference, input.scenario);
          return { refundedMinor: air.refunded_minor ?? null, status: air.status };
        },
        () => FailureType.refundRejected,
      ),

    completeFlightRefund: (input: Parameters<typeof completeFlightRefund>[1]) => runActivityStep(() => completeFlightRefund(db, input)),

    rejectOfflineRefund: (orderId: number) => runActivityStep(() => rejectOfflineRefund(db, orderId)),
  };
}
