import { bookingOfOrder, recordConfirmation } from '../../src/domain/hotels/bookings';
import type { Contact, GuestDetails } from '../../src/domain/hotels/guests';
import { withScenario } from '../../src/sandbox/context';
import { gone, type FinalizeDeps, type Finalizer } from './finalizer';

/** Hotels: the held rate is booked for its guests. */
export const hotelFinalizer = ({ db, hotelSupplierOf }: FinalizeDeps): Finalizer => ({
  finalize: async (order, clientReference, scenario) => {
    const booking = await bookingOfOrder(db, order.id);
    if (!booking?.supplierHoldId || booking.status === 'expired' || booking.status === 'released') throw gone(order, 'hotel hold');
    const holdId = booking.supplierHoldId;
    const booked = await withScenario(scenario, () =>
      hotelSupplierOf(booking.supplier).book(holdId, {
        clientReference,
        guests: (booking.guests as GuestDetails[][] | null) ?? [],
        ...(booking.contact ? { contact: booking.contact as Contact } : {}),
      }),
    );
    if (!booked.booking_reference) throw new Error(`the supplier booked hold ${holdId} without a booking reference`);
    await recordConfirmation(db, booking.id, booked.booking_reference);
    return { supplierRef: booked.booking_reference };
  },
  lookup: async (order) => {
    const booking = await bookingOfOrder(db, order.id);
    if (!booking?.supplierHoldId) return { state: 'absent' };
    const hold = await hotelSupplierOf(booking.supplier).retrieve(booking.supplierHoldId);
    if (hold.status !== 'booked' || !hold.booking_reference) return { state: 'absent' };
    await recordConfirmation(db, booking.id, hold.booking_reference);
    return { state: 'done', supplierRef: hold.booking_reference };
  },
});
