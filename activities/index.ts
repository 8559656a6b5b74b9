import type { Db } from '../src/db/client';
import type { HotelSupplier } from '../src/suppliers/hotels';
import type { ProductSupplier } from '../src/suppliers/products';
import { finalizeActivities } from './finalize';
import { hotelActivities } from './hotels';
import { paymentActivities } from './payments';

export interface ActivityDeps {
  db: Db;
  productSupplier: ProductSupplier;
  hotelSupplier: HotelSupplier;
}

/** Activities are built from injected dependencies, so the worker (and tests) decide what they talk to. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...paymentActivities(deps.db),
    ...finalizeActivities(deps),
    ...hotelActivities(deps.db, deps.hotelSupplier),
  };
}

export type BookingActivities = ReturnType<typeof createActivities>;
export type { PlacedHold, PlaceHoldInput } from './hotels';
