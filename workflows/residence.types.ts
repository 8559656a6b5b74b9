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
}
