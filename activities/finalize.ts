import type { Db } from '../src/db/client';
import { DomainError } from '../src/domain/errors';
import { flightBookingOfOrder, recordTickets } from '../src/domain/flights/bookings';
import { bookingOfOrder, recordConfirmation } from '../src/domain/hotels/bookings';
import { recordHostConfirmation, reservationOfOrder } from '../src/domain/residence/reservations';
import { prebookOfOrder, recordTourConfirmation } from '../src/domain/tours/prebooks';
import { applicationOfOrder, recordSubmission } from '../src/domain/visa/applications';
import { visaWorkflowId, type VisaApplicationInput } from '../workflows/visa.types';
import { getOrder, getOrderItems, type DeliveryDetails, type OrderRow } from '../src/domain/orders';
import { SupplierRejectedError } from '../src/suppliers/errors';
import type { Suppliers } from '../src/suppliers';
import type { FollowUp } from '../workflows/pay.types';
import { businessErrors } from './failures';

export interface FinalizeDeps extends Suppliers {
  db: Db;
}

type Finalizer = (order: OrderRow, clientReference: string, scenario?: string) => Promise<{ supplierRef: string; followUp?: FollowUp }>;

/**
 * Finalization is what the partner paid for, per service: products are shipped, a hotel
 * hold is confirmed into a reservation. Each call carries the client reference, so a
 * retry is the same request to the supplier.
 */
export function finalizeActivities(deps: FinalizeDeps) {
  const { db } = deps;
  const finalizers: Partial<Record<OrderRow['service'], Finalizer>> = {
    product: async (order, clientReference, scenario) => {
      const items = await getOrderItems(db, order.id);
      const fulfilment = await deps.productSupplier.fulfil({
        clientReference,
        orderId: order.id,
        items: items.map((i) => ({ sku: i.sku, quantity: i.quantity })),
        delivery: (order.details as { delivery?: DeliveryDetails | null }).delivery ?? null,
        scenario,
      });
      return { supplierRef: fulfilment.fulfilment_id };
    },
    hotel: async (order, clientReference, scenario) => {
      const booking = await bookingOfOrder(db, order.id);
      if (!booking?.supplierHoldId || booking.status === 'expired' || booking.status === 'released') {
        throw new SupplierRejectedError(`the hotel hold of order ${order.id} is no longer available`, 410);
      }
      const confirmed = await deps.hotelSupplier.confirm(booking.supplierHoldId, clientReference, scenario);
      if (!confirmed.confirmation_number) throw new Error(`the supplier confirmed hold ${booking.supplierHoldId} without a confirmation number`);
      await recordConfirmation(db, booking.id, confirmed.confirmation_number);
      return { supplierRef: confirmed.confirmation_number };
    },
    flight: async (order, clientReference, scenario) => {
      const booking = await flightBookingOfOrder(db, order.id);
      if (!booking?.pnr || booking.status === 'expired' || booking.status === 'cancelled') {
        throw new SupplierRejectedError(`the airline booking of order ${order.id} is no longer available`, 410);
      }
      const ticketed = await deps.flightSupplier.ticket(booking.pnr, clientReference, scenario);
      await recordTickets(db, booking.id, ticketed);
      return { supplierRef: booking.pnr };
    },
    tour: async (order, clientReference, scenario) => {
      const prebook = await prebookOfOrder(db, order.id);
      if (!prebook || prebook.status !== 'held') throw new SupplierRejectedError(`the seats of order ${order.id} are no longer held`, 410);
      const confirmed = await deps.tourOperator.confirm(clientReference, { departure_id: prebook.departureId, passengers: prebook.passengers }, scenario);
      await recordTourConfirmation(db, prebook.id, confirmed.reference);
      return { supplierRef: confirmed.reference };
    },
    visa: async (order, clientReference, scenario) => {
      const application = await applicationOfOrder(db, order.id);
      if (!application) throw new DomainError('not_found', `no visa application for order ${order.id}`);
      const submitted = await deps.visaAgency.confirm(
        clientReference,
        { visa_id: application.visaProductId, applicant: application.applicant, travel: { from: application.travelFrom, to: application.travelTo } },
        scenario,
      );
      await recordSubmission(db, application, submitted.reference);
      const args: VisaApplicationInput = { orderId: order.id, applicationId: application.id, sandbox: application.sandboxDecision };
      return { supplierRef: submitted.reference, followUp: { workflowType: 'visaApplication', workflowId: visaWorkflowId(order.id), args: [args] } };
    },
    residence: async (order, clientReference, scenario) => {
      const r = await reservationOfOrder(db, order.id);
      if (!r || r.status !== 'booked') throw new SupplierRejectedError(`the dates of order ${order.id} are no longer held`, 410);
      const confirmed = await deps.residenceHost.confirm(
        clientReference,
        { property_id: r.propertyId, check_in: r.checkIn, check_out: r.checkOut, guests: r.guests, lead_guest: r.leadGuest },
        scenario,
      );
      await recordHostConfirmation(db, r.id, confirmed.reference);
      return { supplierRef: confirmed.reference };
    },
  };

  return {
    /**
     * After a finalization's outcome stayed unknown (retries spent): does the supplier have
     * it under our client reference? `absent` is a definite no (safe to refund); `unknown`
     * means nobody can tell yet, and an operator must decide.
     */
    lookupFinalization: (input: { orderId: number; clientReference: string; scenario?: string }) =>
      businessErrors(async (): Promise<{ state: 'done'; supplierRef: string } | { state: 'absent' } | { state: 'unknown' }> => {
        const order = await getOrder(db, input.orderId);
        if (order?.service !== 'product') return { state: 'unknown' };
        const found = await deps.productSupplier.lookup(input.clientReference, input.scenario);
        return found ? { state: 'done', supplierRef: found.fulfilment_id } : { state: 'absent' };
      }),

    finalizeOrder: (input: { orderId: number; clientReference: string; scenario?: string }) =>
      businessErrors(async () => {
        const order = await getOrder(db, input.orderId);
        if (!order) throw new DomainError('not_found', `order ${input.orderId} not found`);
        const finalize = finalizers[order.service];
        if (!finalize) throw new DomainError('conflict', `no supplier adapter for ${order.service} orders yet`);
        return finalize(order, input.clientReference, input.scenario);
      }),
  };
}
