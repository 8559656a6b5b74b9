export { startDuffelStandIn, createDuffelStandIn } from './stand-in';
export type { DuffelStandIn, DuffelStandInControl, DuffelStandInOptions } from './stand-in';
export { DUFFEL_ROUTES } from './controls';
export type { DuffelRoute, RequestLogEntry } from './controls';
export type { DuffelErrorBody, DuffelErrorObject } from './errors';
export type { CreateOrderRequest, RecordedPayment, StandInOrderCancellation } from './flights';
export type { StandInStaysQuote } from './stays';
export type { BalanceMovement } from './account';
export { AIRPORTS, HOTELS, DUFFEL_AIRWAYS } from './world';
