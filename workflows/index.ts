export { payOrder } from './pay.workflow';
export { cancelHotelOrder, hotelHoldExpiry, placeHotelHold } from './hotel.workflows';
export { bookFlight, flightTimeLimit, offlineFlightRefund, refundFlight } from './flight.workflows';
export { prebookTour, tourPrebookExpiry } from './tour.workflows';
export { visaApplication } from './visa.workflows';
export * from './pay.types';
export * from './hotel.types';
export * from './flight.types';
export * from './visa.types';
