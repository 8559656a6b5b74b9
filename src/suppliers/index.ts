import { duffelCalls, type DuffelSettings } from './adapters/duffel/client';
import { duffelFlightSupplier } from './adapters/duffel/flights';
import { duffelHotelSupplier } from './adapters/duffel/hotels';
import { simulatorFlightAfterSale } from './adapters/simulator/flight-after-sale';
import { simulatorFlightSupplier } from './adapters/simulator/flights';
import { simulatorHotelSupplier } from './adapters/simulator/hotels';
import { checkedConfirmingSupplier, checkedFlightAfterSale, checkedFlightSupplier, checkedHotelSupplier, checkedProductSupplier } from './contract-checks';
import { httpConfirmingSupplier, type ConfirmingSupplier } from './confirmations';
import type { FlightAfterSale } from './flight-after-sale';
import type { FlightSupplier } from './flights';
import type { HotelSupplier } from './hotels';
import type { PlaceIds } from './place-ids';
import { httpProductSupplier, type ProductSupplier } from './products';

export interface Suppliers {
  productSupplier: ProductSupplier;
  /** The bedbank new hotel bookings are made with (HOTEL_SUPPLIER). */
  hotelSupplier: HotelSupplier;
  /** The bedbank a booking was made with (its recorded supplier), whatever sells new ones now. */
  hotelSupplierOf(name: string): HotelSupplier;
  /** The airline new flight bookings are made with (FLIGHT_SUPPLIER). */
  flightSupplier: FlightSupplier;
  /** The airline a booking was made with (its recorded supplier), whatever sells new ones now. */
  flightSupplierOf(name: string): FlightSupplier;
  /**
   * What happens to a flight order after the sale, at the airline `name` (a booking's recorded
   * supplier; for seats and bags of new offers, `flightSupplier.name`).
   */
  flightAfterSaleOf(name: string): FlightAfterSale;
  tourOperator: ConfirmingSupplier;
  residenceHost: ConfirmingSupplier;
  visaAgency: ConfirmingSupplier;
}

/** Every supplier adapter, speaking HTTP to one base URL (the simulator serves them all), its answers checked against their contracts (./contract-checks.ts). */
export function httpSuppliers(baseUrl: string, callTimeoutMs?: number): Suppliers {
  const flights = checkedFlightSupplier(simulatorFlightSupplier(baseUrl, callTimeoutMs));
  const afterSale = checkedFlightAfterSale({ name: flights.name, ...simulatorFlightAfterSale(baseUrl, callTimeoutMs) });
  const hotels = checkedHotelSupplier(simulatorHotelSupplier(baseUrl, callTimeoutMs));
  return {
    productSupplier: checkedProductSupplier(httpProductSupplier(baseUrl, callTimeoutMs)),
    hotelSupplier: hotels,
    hotelSupplierOf: (name) => (name === hotels.name ? hotels : unconfigured(name)),
    flightSupplier: flights,
    flightSupplierOf: (name) => (name === flights.name ? flights : unconfigured(name)),
    flightAfterSaleOf: (name) => (name === afterSale.name ? afterSale : unconfigured(name)),
    tourOperator: checkedConfirmingSupplier('tours', httpConfirmingSupplier(baseUrl, 'tours/bookings', callTimeoutMs)),
    residenceHost: checkedConfirmingSupplier('residence', httpConfirmingSupplier(baseUrl, 'residence/bookings', callTimeoutMs)),
    visaAgency: checkedConfirmingSupplier('visa', httpConfirmingSupplier(baseUrl, 'visa/applications', callTimeoutMs)),
  };
}

/** Who sells what: the simulator serves every service unless a real supplier is chosen for one. */
export interface SupplierChoice {
  /** The simulator's base URL (SUPPLIER_URL, or the one `npm start` runs). */
  simulatorUrl: string;
  flights: 'simulator' | 'duffel';
  hotels: 'simulator' | 'duffel';
  /** How long one call to the simulator may take (SUPPLIER_CALL_TIMEOUT_MS; Duffel's is in its settings). */
  callTimeoutMs?: number;
  /** Required when a service is `duffel`. */
  duffel?: DuffelSettings;
  /** The integer ids of a supplier's cities and hotels; required when hotels are `duffel`. */
  places?: (supplier: string) => PlaceIds;
}

export function suppliersFor(choice: SupplierChoice): Suppliers {
  const all = httpSuppliers(choice.simulatorUrl, choice.callTimeoutMs);
  if (choice.flights === 'duffel' && !choice.duffel?.token) throw new Error('DUFFEL_ACCESS_TOKEN is required with FLIGHT_SUPPLIER=duffel');
  if (choice.hotels === 'duffel' && !choice.duffel?.token) throw new Error('DUFFEL_ACCESS_TOKEN is required with HOTEL_SUPPLIER=duffel');
  // With a token, Duffel serves the bookings made with it even once it no longer sells new ones.
  const duffel = choice.duffel?.token ? duffelCalls(choice.duffel) : null;
  const flights: Record<string, FlightSupplier> = { simulator: all.flightSupplier };
  const afterSale: Record<string, FlightAfterSale> = { simulator: all.flightAfterSaleOf('simulator') };
  if (duffel) {
    const port = duffelFlightSupplier(duffel);
    flights.duffel = checkedFlightSupplier(port);
    afterSale.duffel = checkedFlightAfterSale(port);
  }
  const hotels: Record<string, HotelSupplier> = { simulator: all.hotelSupplier };
  if (duffel && choice.places) hotels.duffel = checkedHotelSupplier(duffelHotelSupplier(duffel, choice.places('duffel')));
  if (choice.hotels === 'duffel' && !hotels.duffel) throw new Error('HOTEL_SUPPLIER=duffel needs the registry of place ids');
  return {
    ...all,
    flightSupplier: flights[choice.flights]!,
    flightSupplierOf: (name) => flights[name] ?? unconfigured(name),
    flightAfterSaleOf: (name) => afterSale[name] ?? unconfigured(name),
    hotelSupplier: hotels[choice.hotels]!,
    hotelSupplierOf: (name) => hotels[name] ?? unconfigured(name),
  };
}

/** A booking held by a supplier this process is not configured for: retried, and an operator is told, until it is. */
function unconfigured(name: string): never {
  throw new Error(`bookings held by supplier "${name}" cannot be served: this process has no configuration for it (see docs/suppliers.md)`);
}
