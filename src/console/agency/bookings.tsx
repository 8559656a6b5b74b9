import { bookingPages } from './booking-page';
import { bookingListPages } from './bookings-list';
import { hotelPages } from './hotel-booking';
import type { AgencyPages } from './kit';

/** The bookings area: hotel search and booking, the bookings list and its export, and one booking's page. */
export const bookingsPages: AgencyPages = (app, kit) => {
  hotelPages(app, kit);
  bookingListPages(app, kit);
  bookingPages(app, kit);
};
