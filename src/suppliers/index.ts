import { httpConfirmingSupplier, type ConfirmingSupplier } from './confirmations';
import { httpFlightSupplier, type FlightSupplier } from './flights';
import { httpHotelSupplier, type HotelSupplier } from './hotels';
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
    hotelSupplier: httpHotelSupplier(baseUrl),
    flightSupplier: httpFlightSupplier(baseUrl),
    tourOperator: httpConfirmingSupplier(baseUrl, 'tours/bookings'),
    residenceHost: httpConfirmingSupplier(baseUrl, 'residence/bookings'),
    visaAgency: httpConfirmingSupplier(baseUrl, 'visa/applications'),
  };
}
