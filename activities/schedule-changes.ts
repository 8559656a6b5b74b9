import type { Db } from '../src/db/client';
import { flightBookingOfOrder, supplierOrderIdOf } from '../src/domain/flights/bookings';
import { refundTerms } from '../src/domain/flights/refunds';
import { recordScheduleChange, remindScheduleChange, resolveScheduleChange, type ScheduleChangeSettings } from '../src/domain/flights/schedule-changes';
import { DomainError, notFound } from '../src/domain/errors';
import type { PricingDeps } from '../src/domain/money/pricing';
import { pricerFor, pricingIn } from '../src/domain/money/pricing';
import type { FlightAfterSale, ScheduleChange } from '../src/suppliers/flight-after-sale';
import type { FlightSupplier } from '../src/suppliers/flights';
import type { RefundFlightInput } from '../workflows/flight.types';
import { withScenario } from '../src/sandbox/context';
import { runActivityStep } from './failures';

/** What the workflow learns as a change is recorded. */
export interface RecordedScheduleChange {
  partnerId: number;
  status: 'pending' | 'accepted' | 'cancelled' | 'changed';
  resolvedBy: 'partner' | 'default' | 'change' | null;
  decideBy: number;
  remindAt: number | null;
  defaultDecision: 'accept' | 'cancel';
  availableActions: string[];
}

export interface ScheduleChangeActivityDeps {
  db: Db;
  flightSupplierOf(name: string): FlightSupplier;
  flightAfterSaleOf(name: string): FlightAfterSale;
  pricing: PricingDeps;
  scheduleChanges: ScheduleChangeSettings;
}

/** An airline's changes to issued orders: recording them, reminding, accepting at the airline, the refund's terms, and the end. */
export function scheduleChangeActivities(deps: ScheduleChangeActivityDeps) {
  const { db } = deps;
  /** The order's booking: the supplier that holds it and its id there. */
  const heldBy = async (orderId: number) => {
    const booking = await flightBookingOfOrder(db, orderId);
    const supplierOrderId = booking ? supplierOrderIdOf(booking) : null;
    if (!booking || !supplierOrderId) throw notFound(`the airline order of flight order ${orderId}`);
    return { supplier: booking.supplier, supplierOrderId };
  };
  /** The change as the airline has it now. */
  const atAirline = async (supplier: string, supplierOrderId: string, changeId: string): Promise<ScheduleChange> => {
    const change = (await deps.flightAfterSaleOf(supplier).scheduleChanges(supplierOrderId)).find((c) => c.change_id === changeId);
    if (!change) throw new DomainError('not_found', `the airline lists no change ${changeId} on order ${supplierOrderId}`);
    return change;
  };

  return {
    /** Reads the change from the airline and records it, telling the partner once (order.schedule_changed). */
    recordScheduleChange: (input: { orderId: number; changeId: string }) =>
      runActivityStep(async (): Promise<RecordedScheduleChange> => {
        const { supplier, supplierOrderId } = await heldBy(input.orderId);
        const change = await atAirline(supplier, supplierOrderId, input.changeId);
        const { row, remindAt, availableActions } = await recordScheduleChange(db, {
          orderId: input.orderId,
          change,
          supplier,
          settings: deps.scheduleChanges,
          now: new Date(),
        });
        return {
          partnerId: row.partnerId,
          status: row.status,
          resolvedBy: row.resolvedBy,
          decideBy: row.decideBy.getTime(),
          remindAt,
          defaultDecision: row.defaultDecision,
          availableActions,
        };
      }),

    remindScheduleChange: (input: { orderId: number; changeId: string }) => runActivityStep(() => remindScheduleChange(db, { ...input, now: new Date() })),

    /**
     * Accepts the change at the airline and answers the order's legs as the airline now has
     * them. The airline is asked first: an attempt whose answer was lost may have accepted it.
     */
    acceptScheduleChangeAtAirline: (input: { orderId: number; changeId: string; scenario?: string }) =>
      runActivityStep(async () => {
        const { supplier, supplierOrderId } = await heldBy(input.orderId);
        const change = await atAirline(supplier, supplierOrderId, input.changeId);
        if (change.action_taken !== 'accepted') {
          await withScenario(input.scenario, () => deps.flightAfterSaleOf(supplier).acceptScheduleChange(input.changeId));
        }
        return { legs: (await deps.flightSupplierOf(supplier).order(supplierOrderId)).legs };
      }),

    /**
     * The refund of an order cancelled after the airline changed it: everything the partner
     * paid (no penalty), the airline's cancellation quote confirmed as it stands.
     */
    scheduleChangeRefund: (orderId: number) =>
      runActivityStep(async (): Promise<RefundFlightInput & { partnerId: number }> => {
        const booking = await flightBookingOfOrder(db, orderId);
        if (!booking) throw notFound(`flight order ${orderId}`);
        const now = new Date();
        const terms = await refundTerms({ db, supplierOf: deps.flightSupplierOf, pricing: deps.pricing }, booking.partnerId, orderId, now);
        const pricer = await pricerFor(pricingIn(deps.pricing, terms.order.currency), [terms.airlineQuote.refund], now);
        return {
          partnerId: booking.partnerId,
          orderId,
          refundMinor: terms.order.totalPrice,
          penaltyMinor: 0,
          airlineQuote: terms.airlineQuote,
          airlineRefundMinor: pricer.minor(terms.airlineQuote.refund),
        };
      }),

    resolveScheduleChange: (input: Omit<Parameters<typeof resolveScheduleChange>[1], 'now'>) =>
      runActivityStep(async () => {
        const row = await resolveScheduleChange(db, { ...input, now: new Date() });
        return { status: row.status, resolvedBy: row.resolvedBy };
      }),
  };
}
