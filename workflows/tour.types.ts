export const tourPrebookExpiryWorkflowId = (prebookId: number) => `tour-prebook-expiry:p${prebookId}`;

export interface HeldTourSeats {
  prebookId: number;
  expiresAt: number;
}
