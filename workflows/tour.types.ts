import type { Traveler } from '../src/suppliers/flights';

export const tourPrebookExpiryWorkflowId = (prebookId: number) => `tour-prebook-expiry:p${prebookId}`;

export interface HeldTourSeats {
  prebookId: number;
  expiresAt: number;
}

export interface PrebookRequest {
  partnerId: number;
  holdRef: string;
  tourId: number;
  departureId: number;
  passengers: Traveler[];
  ttlMs: number;
  currency: string;
}
