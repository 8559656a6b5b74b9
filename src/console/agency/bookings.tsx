import { bookingPages } from './booking-page';
import { bookingListPages } from './bookings-list';
import { flightPages } from './flight-booking';
import { hotelPages } from './hotel-booking';
import type { AgencyPages } from './kit';

/** The bookings area: hotel and flight search and booking, the bookings list and its export, and one booking's page. */
export const bookingsPages: AgencyPages = (app, kit) => {
  hotelPages(app, kit);
  flightPages(app, kit);
  bookingListPages(app, kit);
  bookingPages(app, kit);
};
