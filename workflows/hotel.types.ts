import type { Contact, GuestDetails } from '../src/suppliers/hotels';
/** The hold workflow's input: a new hold, or guests for a prebooked one. */
export type PlaceHoldInput =
  | { mode: 'create'; bookingId: number; clientReference: string; scenario?: string }
  | { mode: 'guests'; bookingId: number; guests: GuestDetails[][]; contact: Contact };

/** One hold workflow per booking and step (prebook, book, create): asking again joins it. */
export const holdWorkflowId = (bookingId: number, mode: PlaceHoldInput['mode']) => `hotel-hold:b${bookingId}:${mode}`;
export const holdExpiryWorkflowId = (bookingId: number) => `hotel-hold-expiry:b${bookingId}`;
/** One cancellation per order: asking again joins it. */
export const cancelWorkflowId = (partnerId: number, orderId: number) => `cancel:p${partnerId}:order:${orderId}`;

export interface CancelHotelInput {
  orderId: number;
  partnerId: number;
  refundMinor: number;
  penaltyMinor: number;
  scenario?: string;
}

export interface PlacedHold {
  bookingId: number;
  status: 'prebooked' | 'held';
  expiresAt: number;
  totalPriceMinor: number;
  currency: string;
}
