import type { Db } from '../src/db/client';
import type { FlightSupplier } from '../src/suppliers/flights';
import type { HotelSupplier } from '../src/suppliers/hotels';
import type { ProductSupplier } from '../src/suppliers/products';
import { finalizeActivities } from './finalize';
import { flightActivities } from './flights';
import { hotelActivities } from './hotels';
import { paymentActivities } from './payments';

export interface ActivityDeps {
  db: Db;
  productSupplier: ProductSupplier;
  hotelSupplier: HotelSupplier;
  flightSupplier: FlightSupplier;
}

/** Activities are built from injected dependencies, so the worker (and tests) decide what they talk to. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...paymentActivities(deps.db),
    ...finalizeActivities(deps),
    ...hotelActivities(deps.db, deps.hotelSupplier),
    ...flightActivities(deps.db, deps.flightSupplier),
  };
}

export type BookingActivities = ReturnType<typeof createActivities>;
export type { BookedFlight } from './flights';
export type { PlacedHold, PlaceHoldInput } from './hotels';
