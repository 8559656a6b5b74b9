/** A refund credited: what the partner got back and what was kept. */
export interface RefundResult {
  orderId: number;
  refundMinor: number;
  penaltyMinor: number;
  ledgerId: number | null;
  currency: string;
}
