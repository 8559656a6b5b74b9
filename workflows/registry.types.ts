import type { AgencyPayment } from './agency.types';
import type { PayInput, PayResult } from './pay.types';
import type { CancelHotelInput, PlacedHold, PlaceHoldInput } from './hotel.types';
import type { BookedFlight, BookFlightInput, RefundFlightInput } from './flight.types';
import type { ChangeFlightInput, ChangeResult } from './flight-change.types';
import type { HeldDates, ReservationInput } from './residence.types';
import type { VisaApplicationInput } from './visa.types';
import type { HeldTourSeats } from './tour.types';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from './webhook.types';
import type { ScheduleChangeInput, ScheduleChangeResult } from './schedule-change.types';
import type { HoldDatesInput } from './residence.types';
import type { PrebookRequest } from './tour.types';
import type { RefundResult as FlightRefundResult } from './refund.types';
import type { RefundResult as CancellationResult } from './refund.types';
import type { VisaDecisionResult } from './visa.types';

/** The workflows the worker registers, by type name; workflows/registry.check.ts holds workflows/index.ts to it. */
export interface Workflows {
  payOrder(input: PayInput): Promise<PayResult>;
  placeHotelHold(input: PlaceHoldInput): Promise<PlacedHold>;
  hotelHoldExpiry(input: { bookingId: number; expiresAt: number }): Promise<{ expired: boolean }>;
  cancelHotelOrder(input: CancelHotelInput): Promise<CancellationResult>;
  bookFlight(input: BookFlightInput): Promise<BookedFlight>;
  flightTimeLimit(input: { bookingId: number; expiresAt: number }): Promise<{ expired: boolean }>;
  refundFlight(input: RefundFlightInput): Promise<FlightRefundResult>;
  changeFlight(input: ChangeFlightInput): Promise<ChangeResult>;
  offlineFlightRefund(input: { orderId: number }): Promise<{ approved: boolean; result: FlightRefundResult | null }>;
  prebookTour(input: PrebookRequest): Promise<HeldTourSeats>;
  tourPrebookExpiry(input: { prebookId: number; expiresAt: number }): Promise<{ expired: boolean }>;
  visaApplication(input: VisaApplicationInput): Promise<VisaDecisionResult>;
  reserveResidence(input: HoldDatesInput & { autoAcceptCancelMs: number | null }): Promise<HeldDates>;
  residenceReservation(input: ReservationInput): Promise<{ outcome: 'expired' | 'released' | 'cancelled' | 'completed' }>;
  agencyHotelBooking(input: AgencyPayment & { bookingId: number }): Promise<{ bookingId: number; orderId: number }>;
  agencyProductOrder(input: AgencyPayment & { orderId: number }): Promise<{ orderId: number }>;
  deliverWebhooks(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult>;
  scheduleChange(input: ScheduleChangeInput): Promise<ScheduleChangeResult>;
}

/** A workflow type name the worker knows. */
export type WorkflowType = keyof Workflows & string;

/**
 * Work that goes on after the payment (a visa application under review): the pay
 * workflow starts it as a workflow of its own that outlives the payment. An activity's
 * result, so it names the workflow by type (checked against the registered workflows).
 */
export type FollowUp = { [K in WorkflowType]: { workflowType: K; workflowId: string; args: Parameters<Workflows[K]> } }[WorkflowType];
