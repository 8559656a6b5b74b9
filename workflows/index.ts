export { payOrder } from './pay.workflow';
export { cancelHotelOrder, hotelHoldExpiry, placeHotelHold } from './hotel.workflows';
export { bookFlight, flightTimeLimit, offlineFlightRefund, refundFlight } from './flight.workflows';
export * from './pay.types';
export * from './hotel.types';
export * from './flight.types';
