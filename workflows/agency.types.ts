/** Interface B's hotel booking: one workflow per booking, never re-run. */
export const agencyBookingWorkflowId = (bookingId: number) => `agency-booking:b${bookingId}`;
/** Interface B's product order: one workflow per order, never re-run. */
export const agencyOrderWorkflowId = (orderId: number) => `agency-order:o${orderId}`;

/** What both of Interface B's workflows start with; the payment's part is handed to its child. */
export interface AgencyPayment {
  partnerId: number;
  scenario?: string;
}
