import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { flightBookings, orders, supplierEvents } from '../db/schema';
import { logInfo } from '../platform/log';
import { startScheduleChange, type ScheduleChangeStarter } from './flights/schedule-change-runs';

/** An event a supplier sent to our webhook route, as far as the engine reads it. */
export interface SupplierEvent {
  id: string;
  type: string;
  /** For `order.airline_initiated_change_detected`: the change, and the supplier's id of its order. */
  change?: { id: string; order_id: string };
}

/** Duffel's announcement of an airline's change to an order. */
export const AIRLINE_CHANGE_DETECTED = 'order.airline_initiated_change_detected';

/**
 * Takes one event from a supplier, once by its id: an event already handled is answered as
 * a duplicate and left alone. An airline's change to one of our orders starts (or joins) its
 * schedule-change workflow; any other type is recorded and ignored. The event counts as
 * handled only once its work was handed on: a delivery whose start failed is taken again on
 * the supplier's retry.
 */
export async function receiveSupplierEvent(
  deps: ScheduleChangeStarter & { db: Db },
  supplier: string,
  event: SupplierEvent,
): Promise<{ duplicate: boolean; started: boolean }> {
  const { db } = deps;
  const [inserted] = await db
    .insert(supplierEvents)
    .values({ supplier, eventId: event.id, type: event.type })
    .onConflictDoNothing()
    .returning({ id: supplierEvents.id });
  if (!inserted) {
    const [seen] = await db
      .select({ handledAt: supplierEvents.handledAt })
      .from(supplierEvents)
      .where(and(eq(supplierEvents.supplier, supplier), eq(supplierEvents.eventId, event.id)));
    if (seen?.handledAt) return { duplicate: true, started: false };
  }
  let started = false;
  if (event.type === AIRLINE_CHANGE_DETECTED && event.change) {
    const [order] = await db
      .select({ orderId: orders.id, partnerId: orders.partnerId })
      .from(flightBookings)
      .innerJoin(orders, eq(orders.id, flightBookings.orderId))
      .where(and(eq(flightBookings.supplier, supplier), eq(flightBookings.supplierBookingRef, event.change.order_id)));
    if (order) {
      await startScheduleChange(deps, { orderId: order.orderId, partnerId: order.partnerId, changeId: event.change.id });
      started = true;
    } else {
      logInfo('a supplier announced a change to an order the engine does not hold', { supplier, eventId: event.id, supplierOrderId: event.change.order_id });
    }
  }
  await db
    .update(supplierEvents)
    .set({ handledAt: sql`now()` })
    .where(and(eq(supplierEvents.supplier, supplier), eq(supplierEvents.eventId, event.id)));
  return { duplicate: false, started };
}
