import { flightBookingOfOrder, recordTickets } from '../../src/domain/flights/bookings';
import { gone, type FinalizeDeps, type Finalizer } from './finalizer';

/** Flights: the airline tickets the PNR booked before payment. */
export const flightFinalizer = ({ db, flightSupplier }: FinalizeDeps): Finalizer => ({
  finalize: async (order, clientReference, scenario) => {
    const booking = await flightBookingOfOrder(db, order.id);
    if (!booking?.pnr || booking.status === 'expired' || booking.status === 'cancelled') throw gone(order, 'airline booking');
    await recordTickets(db, booking.id, await flightSupplier.ticket(booking.pnr, clientReference, scenario));
    return { supplierRef: booking.pnr };
  },
  lookup: async (order) => {
    const booking = await flightBookingOfOrder(db, order.id);
    if (!booking?.pnr) return { state: 'absent' };
    const air = await flightSupplier.booking(booking.pnr);
    if (air.status !== 'ticketed') return { state: 'absent' };
    await recordTickets(db, booking.id, air);
    return { state: 'done', supplierRef: booking.pnr };
  },
});
