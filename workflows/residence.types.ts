import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentRun } from './payment-run.types';

export const reservationWorkflowId = (reservationId: number) => `residence-reservation:r${reservationId}`;

export interface ReservationInput {
  reservationId: number;
  expiresAt: number;
  /** Sandbox only: the host accepts a cancellation by itself after this long. */
  autoAcceptCancelMs: number | null;
}

export interface StayChange {
  checkIn: string;
  checkOut: string;
  guests: number;
  /** Sandbox: what the simulated host does with the change (X-Sandbox-Scenario). */
  scenario?: string;
}

/** Why an operator decision other than retry does not apply to a reservation parked at `undoing_change`. */
export const STAY_UNDO_REFUSALS = {
  confirm: 'the host did not take the change, so there is nothing to confirm: retry writes its undo',
  compensate: 'the undo is the compensation: retry writes it',
} as const;

/** Why compensate does not apply to a reservation parked at `cancelling_at_host`. */
export const CANCEL_AT_HOST_REFUSALS = {
  compensate: 'the host accepted the cancellation, which is not undone here: retry tells the host again, confirm records that it did cancel',
} as const;

/** The partner changes the stay's dates or guests: re-priced, the difference through the wallet. */
export const modifyStayUpdate = defineUpdate<ModificationResult, [StayChange]>('modifyStay');
/** The partner cancels: an unpaid hold is released at once, a paid stay waits for the host. */
export const requestCancelUpdate = defineUpdate<{ kind: 'released' | 'requested'; refundMinor: number }, []>('requestCancel');
/** The host accepts a requested cancellation (an operator, or the sandbox partner standing in). */
export const acceptCancelSignal = defineSignal<[{ operator: string }]>('acceptCancel');
export const reservationStateQuery = defineQuery<string>('reservationState');

export interface HeldDates {
  reservationId: number;
  expiresAt: number;
}

export interface HoldDatesInput {
  partnerId: number;
  holdRef: string;
  propertyId: number;
  checkIn: string;
  checkOut: string;
  guests: number;
  leadGuest: Record<string, unknown>;
  ttlMs: number;
  currency: string;
}

export interface ModificationResult {
  previousTotalMinor: number;
  newTotalMinor: number;
  differenceMinor: number;
  ledgerId: number | null;
  currency: string;
}

/** What undoes change `seq` of a stay: the stay it goes back to, and why. */
export interface StayUndo extends PaymentRun {
  reservationId: number;
  seq: number;
  previous: Stay;
  reason: string;
}

/** A stay as it stands: what a change is measured against, and what an undone one returns to. */
export interface Stay {
  checkIn: string;
  checkOut: string;
  guests: number;
  totalMinor: number;
  /** The host's confirmation number: whom a change is told to (null before the host confirmed). */
  confirmationNumber: string | null;
}
