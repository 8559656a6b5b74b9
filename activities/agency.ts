import type { Db } from '../src/db/client';
import { abandonOrder, orderAgencyBooking } from '../src/domain/agency/orders';
import { runActivityStep } from './failures';

/** Steps of Interface B's settle-at-creation sagas that are not already steps of A's. */
export function agencyActivities(db: Db) {
  return {
    orderAgencyBooking: (input: { partnerId: number; bookingId: number }) => runActivityStep(() => orderAgencyBooking(db, input.partnerId, input.bookingId)),
    abandonOrder: (orderId: number) => runActivityStep(() => abandonOrder(db, orderId)),
  };
}
