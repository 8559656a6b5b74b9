export { payOrder } from './pay.workflow';
export { cancelHotelOrder, hotelHoldExpiry, placeHotelHold } from './hotel.workflows';
export * from './pay.types';
export * from './hotel.types';
