import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { CancellationQuote } from '../src/suppliers/flights';
/** One booking workflow per flight booking; also the client reference the airline gets. */
export const bookFlightWorkflowId = (bookingId: number) => `flight-book:b${bookingId}`;
export const timeLimitWorkflowId = (bookingId: number) => `flight-time-limit:b${bookingId}`;
/** One online refund per order: asking again joins it. */
export const refundWorkflowId = (partnerId: number, orderId: number) => `refund:p${partnerId}:order:${orderId}`;
export const offlineRefundWorkflowId = (orderId: number) => `refund-offline:order:${orderId}`;

/** An operator's decision on an offline refund request (admin CLI: order refund / refund-reject). */
export interface RefundDecision {
  approve: boolean;
  amountMinor?: number;
  operator: string;
  reason?: string;
}

export interface RefundFlightInput {
  orderId: number;
  refundMinor: number;
  penaltyMinor: number;
  /** The airline's cancellation quote the refund confirms (absent in runs started before airlines quoted). */
  airlineQuote?: CancellationQuote;
  /** What the airline's quote refunds, in the wallet's currency today, when the partner gets another amount back (a schedule change's full refund). */
  airlineRefundMinor?: number;
  scenario?: string;
}

/** An operator's decision for a waiting offline refund (signal-with-start: it starts the workflow if need be). */
export const refundDecisionSignal = defineSignal<[RefundDecision]>('refundDecision');
export const refundStateQuery = defineQuery<{ state: 'waiting' | 'decided'; decision: RefundDecision | null }>('refundState');

/** A flight booking's workflow: the booking, the client reference the airline gets, and the sandbox scenario it plays. */
export interface BookFlightInput {
  bookingId: number;
  clientReference: string;
  scenario?: string;
}

export interface BookedFlight {
  bookingId: number;
  orderId: number;
  /** Null until the airline has made the order (Duffel makes one with seats or bags when it is paid). */
  pnr: string | null;
  ticketTimeLimit: number;
  totalPriceMinor: number;
}
