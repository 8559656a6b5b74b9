import { bookingOfOrder, recordConfirmation } from '../../src/domain/hotels/bookings';
import { gone, type FinalizeDeps, type Finalizer } from './finalizer';

/** Hotels: the bedbank confirms the hold placed before payment. */
export const hotelFinalizer = ({ db, hotelSupplier }: FinalizeDeps): Finalizer => ({
  finalize: async (order, clientReference, scenario) => {
    const booking = await bookingOfOrder(db, order.id);
    if (!booking?.supplierHoldId || booking.status === 'expired' || booking.status === 'released') throw gone(order, 'hotel hold');
    const confirmed = await hotelSupplier.confirm(booking.supplierHoldId, clientReference, scenario);
    if (!confirmed.confirmation_number) throw new Error(`the supplier confirmed hold ${booking.supplierHoldId} without a confirmation number`);
    await recordConfirmation(db, booking.id, confirmed.confirmation_number);
    return { supplierRef: confirmed.confirmation_number };
  },
  lookup: async (order) => {
    const booking = await bookingOfOrder(db, order.id);
    if (!booking?.supplierHoldId) return { state: 'absent' };
    const hold = await hotelSupplier.getHold(booking.supplierHoldId);
    if (hold.status !== 'confirmed' || !hold.confirmation_number) return { state: 'absent' };
    await recordConfirmation(db, booking.id, hold.confirmation_number);
    return { state: 'done', supplierRef: hold.confirmation_number };
  },
});
