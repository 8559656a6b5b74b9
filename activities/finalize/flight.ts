import { flightBookingOfOrder, recordTickets, supplierOrderIdOf } from '../../src/domain/flights/bookings';
import { withScenario } from '../../src/sandbox/context';
import { recordedSupplierAmount } from '../../src/domain/money/supplier-price';
import type { ChosenService, Traveler } from '../../src/suppliers/flights';
import { gone, type FinalizeDeps, type Finalizer } from './finalizer';

/** Flights: the airline issues the order held before payment, paid at the amount and currency it was priced at. */
export const flightFinalizer = ({ db, flightSupplierOf }: FinalizeDeps): Finalizer => ({
  finalize: async (order, clientReference, scenario) => {
    const booking = await flightBookingOfOrder(db, order.id);
    const orderId = booking ? supplierOrderIdOf(booking) : null;
    if (!booking || !orderId || booking.status === 'expired' || booking.status === 'cancelled') throw gone(order, 'airline booking');
    // The amount the order was priced at; a booking made before amounts were recorded pays what the airline shows.
    const airline = flightSupplierOf(booking.supplier);
    const amount = recordedSupplierAmount(booking) ?? (await airline.order(orderId)).total;
    // What a supplier that makes the order only when it is paid needs (the seats and bags as the hold recorded them).
    const services = ((booking.services ?? []) as ChosenService[]).map((s) => ({ service_id: s.service_id, quantity: s.quantity }));
    const made = { travelers: booking.travelers as unknown as Traveler[], contact: booking.contact, services };
    const issued = await withScenario(scenario, () => airline.issue(orderId, { clientReference, amount, booking: made }));
    await recordTickets(db, booking.id, issued);
    return { supplierRef: issued.booking_reference ?? booking.pnr ?? orderId };
  },
  lookup: async (order) => {
    const booking = await flightBookingOfOrder(db, order.id);
    const orderId = booking ? supplierOrderIdOf(booking) : null;
    if (!booking || !orderId) return { state: 'absent' };
    const air = await flightSupplierOf(booking.supplier).order(orderId);
    // Paid and not yet ticketed is no answer: the tickets may still come, so nothing may be refunded.
    if (air.status === 'paid') return { state: 'unknown' };
    if (air.status !== 'issued') return { state: 'absent' };
    await recordTickets(db, booking.id, air);
    return { state: 'done', supplierRef: air.booking_reference ?? booking.pnr ?? orderId };
  },
});
