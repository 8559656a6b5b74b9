import { setWorkflowOptions } from '@temporalio/workflow';
import { agencyHotelBooking, agencyProductOrder } from './agency.workflows';
import { bookFlight, flightTimeLimit, offlineFlightRefund, refundFlight } from './flight.workflows';
import { cancelHotelOrder, hotelHoldExpiry, placeHotelHold } from './hotel.workflows';
import { payOrder } from './pay.workflow';
import type { Workflows } from './registry.types';
import { reserveResidence, residenceReservation } from './residence.workflows';
import { prebookTour, tourPrebookExpiry } from './tour.workflows';
import { VERSIONING_BEHAVIOR } from './versioning';
import { visaApplication } from './visa.workflows';
import { deliverWebhooks } from './webhook.workflows';

export {
  payOrder,
  cancelHotelOrder,
  hotelHoldExpiry,
  placeHotelHold,
  bookFlight,
  flightTimeLimit,
  offlineFlightRefund,
  refundFlight,
  prebookTour,
  tourPrebookExpiry,
  visaApplication,
  reserveResidence,
  residenceReservation,
  agencyHotelBooking,
  agencyProductOrder,
  deliverWebhooks,
};
export * from './pay.types';
export * from './hotel.types';
export * from './flight.types';
export * from './visa.types';
export * from './residence.types';
export * from './webhook.types';

const registered: Record<keyof Workflows, (...args: never[]) => Promise<unknown>> = {
  payOrder,
  placeHotelHold,
  hotelHoldExpiry,
  cancelHotelOrder,
  bookFlight,
  flightTimeLimit,
  refundFlight,
  offlineFlightRefund,
  prebookTour,
  tourPrebookExpiry,
  visaApplication,
  reserveResidence,
  residenceReservation,
  agencyHotelBooking,
  agencyProductOrder,
  deliverWebhooks,
};
// Each type's versioning behaviour is part of its definition, read by the worker when it registers it.
for (const [type, versioningBehavior] of Object.entries(VERSIONING_BEHAVIOR)) {
  setWorkflowOptions({ versioningBehavior }, registered[type as keyof typeof VERSIONING_BEHAVIOR]);
}
