import { recordHostConfirmation } from '../../src/domain/residence/booking';
import { reservationOfOrder } from '../../src/domain/residence/reservations';
import { confirming, gone, type FinalizeDeps, type Finalizer } from './finalizer';

/** Residences: the host confirms the dates held before payment. */
export const residenceFinalizer = ({ db, residenceHost }: FinalizeDeps): Finalizer =>
  confirming(residenceHost, async (order) => {
    const r = await reservationOfOrder(db, order.id);
    if (!r || (r.status !== 'booked' && r.status !== 'confirmed')) throw gone(order, 'held dates');
    return {
      request: { property_id: r.propertyId, check_in: r.checkIn, check_out: r.checkOut, guests: r.guests, lead_guest: r.leadGuest },
      record: async (c) => {
        await recordHostConfirmation(db, r.id, c.reference);
        return { supplierRef: c.reference };
      },
    };
  });
