import type { ActorRecord } from '../platform/actor';
import { formatDecimal, toNumber } from './money/money';
import type { ScheduleChangeView } from './flights/schedule-change-view';
import type { OrderRow } from './orders';

/**
 * Who did something, as the interfaces show it (an extension field): an agency's user or API
 * connection, an operator, or the engine; null where nothing was recorded (orders from before
 * agencies had users).
 */
export const actorView = (a: ActorRecord | null | undefined) => (a ? { type: a.type, id: a.id, name: a.name } : null);

/** A moment as the interfaces write it, or null. */
export const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * An order as Interface B writes one (string ids, amounts as numbers): the data of order
 * events in B's feed and in webhooks registered through B.
 */
export function agencyOrderView(o: OrderRow) {
  return {
    order_id: String(o.id),
    service: o.service,
    status: o.status,
    total_price: toNumber(o.totalPrice, o.currency),
    currency: o.currency,
    supplier_ref: o.supplierRef,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    created_by: actorView(o.createdBy),
    acted_by: actorView(o.actedBy),
  };
}

/** A flight order's airline schedule change as its details keep it (scheduleChangeView), when it has one. */
function scheduleChangeOf(o: OrderRow): { schedule_change?: ScheduleChangeView } {
  const sc = (o.details as { schedule_change?: ScheduleChangeView }).schedule_change;
  return sc ? { schedule_change: sc } : {};
}

/**
 * An order as partners see it: Interface A's TravelOrder (its order lists and every
 * service's order), and the data of every order event, in the feeds and in webhooks.
 */
export function travelOrderView(o: OrderRow) {
  return {
    id: o.id,
    service: o.service,
    status: o.status,
    total_price: formatDecimal(o.totalPrice, o.currency),
    currency: o.currency,
    payment_method: o.paymentMethod,
    supplier_ref: o.supplierRef,
    // The service's own progress where it has one beyond the order (a visa application: under_review, approved, ...).
    service_status: (o.details as { service_status?: string }).service_status ?? null,
    // A flight's latest airline schedule change, while it waits for a decision and once it is resolved (src/domain/flights/schedule-changes.ts).
    ...scheduleChangeOf(o),
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    completed_at: isoOrNull(o.completedAt),
    created_by: actorView(o.createdBy),
    acted_by: actorView(o.actedBy),
  };
}
