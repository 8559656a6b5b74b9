import { simulatorFlightSupplier } from './adapters/simulator/flights';
import { simulatorHotelSupplier } from './adapters/simulator/hotels';
import { httpConfirmingSupplier, type ConfirmingSupplier } from './confirmations';
import type { FlightSupplier } from './flights';
import type { HotelSupplier } from './hotels';
import { httpProductSupplier, type ProductSupplier } from './products';

export interface Suppliers {
  productSupplier: ProductSupplier;
  hotelSupplier: HotelSupplier;
  flightSupplier: FlightSupplier;
  tourOperator: ConfirmingSupplier;
  residenceHost: ConfirmingSupplier;
  visaAgency: ConfirmingSupplier;
}

/** Every supplier adapter, speaking HTTP to one base URL (the simulator serves them all). */
export function httpSuppliers(baseUrl: string): Suppliers {
  return {
    productSupplier: httpProductSupplier(baseUrl),
    hotelSupplier: simulatorHotelSupplier(baseUrl),
    flightSupplier: simulatorFlightSupplier(baseUrl),
    tourOperator: httpConfirmingSupplier(baseUrl, 'tours/bookings'),
    residenceHost: httpConfirmingSupplier(baseUrl, 'residence/bookings'),
    visaAgency: httpConfirmingSupplier(baseUrl, 'visa/applications'),
  };
}
