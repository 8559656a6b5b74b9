import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../src/db/client';
import { DomainError } from '../src/domain/errors';
import { flightBookingOfOrder, recordTickets } from '../src/domain/flights/bookings';
import { bookingOfOrder, recordConfirmation } from '../src/domain/hotels/bookings';
import { getOrder, getOrderItems, type DeliveryDetails, type OrderRow } from '../src/domain/orders';
import { recordHostConfirmation, reservationOfOrder } from '../src/domain/residence/reservations';
import { prebookOfOrder, recordTourConfirmation } from '../src/domain/tours/prebooks';
import { applicationOfOrder, recordSubmission } from '../src/domain/visa/applications';
import type { Suppliers } from '../src/suppliers';
import type { SupplierConfirmation } from '../src/suppliers/confirmations';
import { SupplierRejectedError } from '../src/suppliers/errors';
import type { FollowUp } from '../workflows/pay.types';
import { visaWorkflowId, type VisaApplicationInput } from '../workflows/visa.types';
import { OUTCOME_UNKNOWN } from '../workflows/failure-types';
import { DEFAULT_FINALIZE_ATTEMPTS } from '../workflows/activity-options';
import { businessErrors } from './failures';

/** How many attempts a payment's supplier step gets before its outcome counts as unknown. */
export interface FinalizeAttempts {
  default: number;
  byService?: Partial<Record<OrderRow['service'], number>>;
}

export interface FinalizeDeps extends Suppliers {
  db: Db;
  finalizeAttempts?: FinalizeAttempts;
}

type Finalized = { supplierRef: string; followUp?: FollowUp };
type LookedUp = ({ state: 'done' } & Finalized) | { state: 'absent' } | { state: 'unknown' };

/**
 * Per service: `finalize` does what the partner paid for (ship, confirm, ticket, submit)
 * under our client reference; `lookup` asks the supplier what became of that request when
 * the answer was lost, and records the same outcome when it was made.
 */
interface Finalizer {
  finalize(order: OrderRow, clientReference: string, scenario?: string): Promise<Finalized>;
  lookup(order: OrderRow, clientReference: string, scenario?: string): Promise<LookedUp>;
}

const isAnswer = (err: unknown) => err instanceof DomainError || err instanceof SupplierRejectedError;

const gone = (order: OrderRow, what: string) => new SupplierRejectedError(`the ${what} of order ${order.id} is no longer available`, 410);

export function finalizeActivities(deps: FinalizeDeps) {
  const { db } = deps;
  const attemptsFor = (service: OrderRow['service']) =>
    deps.finalizeAttempts?.byService?.[service] ?? deps.finalizeAttempts?.default ?? DEFAULT_FINALIZE_ATTEMPTS;

  /** Tour operator, villa host, visa agency: one confirmation per client reference, then recorded. */
  const confirming = (
    supplier: Suppliers['tourOperator'],
    load: (order: OrderRow) => Promise<{ request: Record<string, unknown>; record: (c: SupplierConfirmation) => Promise<Finalized> }>,
  ): Finalizer => ({
    finalize: async (order, clientReference, scenario) => {
      const { request, record } = await load(order);
      return record(await supplier.confirm(clientReference, request, scenario));
    },
    lookup: async (order, clientReference, scenario) => {
      const { record } = await load(order);
      const found = await supplier.lookup(clientReference, scenario);
      return found ? { state: 'done', ...(await record(found)) } : { state: 'absent' };
    },
  });

  const finalizers: Partial<Record<OrderRow['service'], Finalizer>> = {
    product: {
      finalize: async (order, clientReference, scenario) => {
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
      lookup: async (_order, clientReference, scenario) => {
        const found = await deps.productSupplier.lookup(clientReference, scenario);
        return found ? { state: 'done', supplierRef: found.fulfilment_id } : { state: 'absent' };
      },
    },
    hotel: {
      finalize: async (order, clientReference, scenario) => {
        const booking = await bookingOfOrder(db, order.id);
        if (!booking?.supplierHoldId || booking.status === 'expired' || booking.status === 'released') throw gone(order, 'hotel hold');
        const confirmed = await deps.hotelSupplier.confirm(booking.supplierHoldId, clientReference, scenario);
        if (!confirmed.confirmation_number) throw new Error(`the supplier confirmed hold ${booking.supplierHoldId} without a confirmation number`);
        await recordConfirmation(db, booking.id, confirmed.confirmation_number);
        return { supplierRef: confirmed.confirmation_number };
      },
      lookup: async (order) => {
        const booking = await bookingOfOrder(db, order.id);
        if (!booking?.supplierHoldId) return { state: 'absent' };
        const hold = await deps.hotelSupplier.getHold(booking.supplierHoldId);
        if (hold.status !== 'confirmed' || !hold.confirmation_number) return { state: 'absent' };
        await recordConfirmation(db, booking.id, hold.confirmation_number);
        return { state: 'done', supplierRef: hold.confirmation_number };
      },
    },
    flight: {
      finalize: async (order, clientReference, scenario) => {
        const booking = await flightBookingOfOrder(db, order.id);
        if (!booking?.pnr || booking.status === 'expired' || booking.status === 'cancelled') throw gone(order, 'airline booking');
        await recordTickets(db, booking.id, await deps.flightSupplier.ticket(booking.pnr, clientReference, scenario));
        return { supplierRef: booking.pnr };
      },
      lookup: async (order) => {
        const booking = await flightBookingOfOrder(db, order.id);
        if (!booking?.pnr) return { state: 'absent' };
        const air = await deps.flightSupplier.booking(booking.pnr);
        if (air.status !== 'ticketed') return { state: 'absent' };
        await recordTickets(db, booking.id, air);
        return { state: 'done', supplierRef: booking.pnr };
      },
    },
    tour: confirming(deps.tourOperator, async (order) => {
      const prebook = await prebookOfOrder(db, order.id);
      if (!prebook || (prebook.status !== 'held' && prebook.status !== 'confirmed')) throw gone(order, 'tour seats');
      return {
        request: { departure_id: prebook.departureId, passengers: prebook.passengers },
        record: async (c) => {
          await recordTourConfirmation(db, prebook.id, c.reference);
          return { supplierRef: c.reference };
        },
      };
    }),
    residence: confirming(deps.residenceHost, async (order) => {
      const r = await reservationOfOrder(db, order.id);
      if (!r || (r.status !== 'booked' && r.status !== 'confirmed')) throw gone(order, 'held dates');
      return {
        request: { property_id: r.propertyId, check_in: r.checkIn, check_out: r.checkOut, guests: r.guests, lead_guest: r.leadGuest },
        record: async (c) => {
          await recordHostConfirmation(db, r.id, c.reference);
          return { supplierRef: c.reference };
        },
      };
    }),
    visa: confirming(deps.visaAgency, async (order) => {
      const application = await applicationOfOrder(db, order.id);
      if (!application) throw new DomainError('not_found', `no visa application for order ${order.id}`);
      return {
        request: { visa_id: application.visaProductId, applicant: application.applicant, travel: { from: application.travelFrom, to: application.travelTo } },
        record: async (c) => {
          await recordSubmission(db, application, c.reference);
          const args: VisaApplicationInput = { orderId: order.id, applicationId: application.id, sandbox: application.sandboxDecision };
          // After payment the application waits for the embassy in a workflow of its own.
          return { supplierRef: c.reference, followUp: { workflowType: 'visaApplication', workflowId: visaWorkflowId(order.id), args: [args] } };
        },
      };
    }),
  };

  async function finalizerOf(orderId: number) {
    const order = await getOrder(db, orderId);
    if (!order) throw new DomainError('not_found', `order ${orderId} not found`);
    const finalizer = finalizers[order.service];
    if (!finalizer) throw new DomainError('conflict', `no supplier adapter for ${order.service} orders`);
    return { order, finalizer };
  }

  return {
    finalizeOrder: (input: { orderId: number; clientReference: string; scenario?: string }) =>
      businessErrors(async (): Promise<Finalized> => {
        const { order, finalizer } = await finalizerOf(input.orderId);
        try {
          return await finalizer.finalize(order, input.clientReference, input.scenario);
        } catch (err) {
          // A refusal is an answer (businessErrors makes it final). Anything else leaves the
          // outcome open: retried with backoff until this service's budget is spent, then
          // handed back as unknown so the workflow asks the supplier instead of guessing.
          const { attempt } = Context.current().info;
          if (isAnswer(err) || attempt < attemptsFor(order.service)) throw err;
          throw ApplicationFailure.nonRetryable(`no answer from the supplier after ${attempt} attempts: ${(err as Error).message}`, OUTCOME_UNKNOWN);
        }
      }),

    /**
     * After a finalization's outcome stayed unknown (retries spent): does the supplier have
     * it under our client reference? `absent` is a definite no (safe to refund).
     */
    lookupFinalization: (input: { orderId: number; clientReference: string; scenario?: string }) =>
      businessErrors(async (): Promise<LookedUp> => {
        const { order, finalizer } = await finalizerOf(input.orderId);
        return finalizer.lookup(order, input.clientReference, input.scenario);
      }),
  };
}
