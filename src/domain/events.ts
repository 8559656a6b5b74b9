import { and, asc, eq, getTableColumns, gt, isNotNull, notInArray, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { preparedQuery } from '../db/prepared';
import { events, orders } from '../db/schema';
import { agencyLowBalanceView, lowBalanceView } from './money/credit-alerts';
import { agencyOrderView, travelOrderView } from './order-view';
import { madeByOrAnyone, readableBy, type OrderRow } from './orders';

/**
 * What a partner hears about, and when (docs/webhooks.md). Order events are written by the
 * database itself, in the transaction that moves the order (migration 0012's trigger), so
 * no code path can change an order without its event; so is `wallet.low_balance`, with the
 * wallet's movement (migration 0022's trigger); the others by `recordOrderEvent` and
 * `recordEvent` in the transaction of their change.
 */
export const EVENT_TYPES = {
  'order.processing': 'A payment took the money and is with the supplier',
  'order.completed': 'The supplier confirmed, ticketed or issued what was paid for',
  'order.payment_reversed': 'The supplier said no: the debit was credited back and the order is payable again (pending) or gone (failed)',
  'order.expired': 'A hold or ticket time limit ran out before payment',
  'order.failed': 'An order can no longer be had (any debit it made was credited back first, in an order.payment_reversed)',
  'order.cancelled': 'An order was cancelled: an unpaid hold released, or a paid order cancelled with its refund in the ledger',
  'refund.requested': 'A refund was asked for and waits for a decision',
  'refund.completed': 'A refund was credited to the wallet',
  'refund.rejected': 'A refund request was turned down; the order is completed again',
  'visa.decided': 'The embassy approved or rejected a visa application',
  'order.changed': "A ticketed flight was changed at the partner's request: new legs and tickets, and its price moved by the change",
  'order.services_added': 'Bags were added to a ticketed flight, paid from the wallet',
  'reservation.modified': "A villa stay's dates or guests changed (and its price with them)",
  'reservation.cancelled': 'A villa stay was cancelled (the host accepted)',
  'booking.cancelled': 'An Interface B hotel booking was cancelled',
  'product_order.shipped': 'A product order was handed over for shipping',
  'webhook_endpoint.disabled': 'One of your webhook endpoints kept failing and was disabled',
  'order.schedule_changed':
    'The airline changed a ticketed flight: data is the order, its schedule_change the legs removed and added, until when you may decide (decide_by) and what happens if you do not (default_decision); sent once more as a reminder before the deadline (reminded_at set)',
  'order.schedule_change_resolved':
    "An airline's schedule change ended: accepted (the order has its new legs), cancelled with a full refund, or replaced by a change you made; the order's schedule_change says which, and who decided (resolved_by)",
  'wallet.low_balance': 'Your credit left (available / credit limit) fell below one of your alert thresholds: data is the wallet and the threshold',
} as const;

/**
 * Events only operators see: written to the outbox like the others, but never in a
 * partner's feed and never delivered (the fan-out skips them, migration 0015). A parked
 * payment stays `processing` for its partner until an operator decides.
 */
export const OPERATOR_EVENT_TYPES = {
  'order.needs_attention': 'A payment or cancellation parked for an operator; data is the order, with where it parked and why (needs_attention)',
} as const;
export type OperatorEventType = keyof typeof OPERATOR_EVENT_TYPES;
const OPERATOR_ONLY = Object.keys(OPERATOR_EVENT_TYPES) as OperatorEventType[];
export const isOperatorEvent = (type: string): type is OperatorEventType => Object.hasOwn(OPERATOR_EVENT_TYPES, type);

export type EventType = keyof typeof EVENT_TYPES;
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];
export const isEventType = (s: string): s is EventType => Object.hasOwn(EVENT_TYPES, s);

export type EventRow = typeof events.$inferSelect;

/**
 * An event's public id: its position, given as its transaction committed (migration 0014).
 * Every committed event has one; the row's own id is internal (deliveries point at it).
 */
export function publicId(e: Pick<EventRow, 'id' | 'position'>): number {
  if (e.position === null) throw new Error(`event ${e.id} is not committed yet: it has no position`);
  return e.position;
}

/** Writes an event about an order, with the order's row as it stands in `tx` (as the trigger does). */
export async function recordOrderEvent(tx: DbOrTx, type: EventType, orderId: number): Promise<void> {
  await tx.execute(
    sql`INSERT INTO events (type, partner_id, order_id, data) SELECT ${type}, o.partner_id, o.id, to_jsonb(o) FROM orders o WHERE o.id = ${orderId}`,
  );
}

/** Where a workflow parked for an operator, and why: the `needs_attention` of an order.needs_attention event's data. */
export interface ParkedNote {
  /** The order parked; null for a residence stay's cancellation, which names its reservation. */
  orderId: number | null;
  reservationId?: number;
  workflowId: string;
  parkedAt: string;
  lastError: string | null;
}

/**
 * Writes the operator-only event of a workflow parked for an operator: the order (a
 * reservation's, for a stay) as it stands, with where the workflow parked and why.
 */
export async function recordNeedsAttention(db: DbOrTx, note: ParkedNote): Promise<void> {
  const type: OperatorEventType = 'order.needs_attention';
  const orderOf = note.orderId ?? sql`(SELECT r.order_id FROM reservations r WHERE r.id = ${note.reservationId ?? null}::int)`;
  await db.execute(
    sql`INSERT INTO events (type, partner_id, order_id, data)
        SELECT ${type}, o.partner_id, o.id, to_jsonb(o) || jsonb_build_object('needs_attention', jsonb_build_object(
          'workflow_id', ${note.workflowId}::text, 'parked_at', ${note.parkedAt}::text, 'last_error', ${note.lastError}::text))
        FROM orders o WHERE o.id = ${orderOf}`,
  );
}

/** Writes an event whose data is given as it is to be shown (not an order). */
export async function recordEvent(tx: DbOrTx, input: { type: EventType; partnerId: number; data: Record<string, unknown> }): Promise<void> {
  await tx.insert(events).values(input);
}

const orderColumns = Object.entries(getTableColumns(orders));

/**
 * An order row from the snapshot an event holds (`to_jsonb` of the row: the columns' own
 * names and JSON values), read through each column's own driver mapping.
 */
export function orderFromSnapshot(data: Record<string, unknown>): OrderRow {
  return Object.fromEntries(
    orderColumns.map(([key, column]) => {
      const raw = data[column.name];
      return [key, raw === null || raw === undefined ? null : column.mapFromDriverValue(raw)];
    }),
  ) as OrderRow;
}

export interface EventPage {
  events: EventRow[];
  /** How many events match after the cursor, this page's included. */
  total: number;
}

/**
 * A partner's events after `after` (a public event id; 0 from the start), in the order they
 * committed, of one type if asked; for a parent agency, its sub-agencies' order events with
 * its own (webhooks deliver each partner's own only). Ids are given at commit, so a reader
 * that saw N will never find a new event below N.
 */
/** A page of the feed as `reader` may see it: an agent who sees only their own bookings reads only the events of the orders they made. */
export async function listEvents(
  db: DbOrTx,
  reader: { id: number; principal: { ownBookingsOf: number | null } },
  q: { after: number; type?: EventType; limit: number; orderId?: number },
): Promise<EventPage> {
  const partnerId = reader.id;
  const ownOf = reader.principal.ownBookingsOf;
  const orderId = q.orderId ?? null;
  const rows = q.type
    ? await eventsOfTypeAfter(db, { partnerId, after: q.after, type: q.type, limit: q.limit, ownOf, orderId })
    : await eventsAfter(db, { partnerId, after: q.after, limit: q.limit, ownOf, orderId });
  // An empty page is an empty remainder: no events match after the cursor.
  return { events: rows.map((r) => r.event), total: rows[0]?.total ?? 0 };
}

/**
 * A page of the feed and how many events match after the cursor (`count(*) over ()`, taken
 * before the limit), in one prepared read: partners poll it.
 */
const feedPage = (name: string, ofType: boolean) =>
  preparedQuery(name, (db, statement) =>
    db
      .select({ event: events, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(events)
      .where(
        and(
          readableBy(sql.placeholder('partnerId'), events.partnerId),
          // A sub-agency's orders are its parent's to read; its wallet and webhooks are its own.
          or(eq(events.partnerId, sql.placeholder('partnerId')), isNotNull(events.orderId)),
          gt(events.position, sql.placeholder('after')),
          madeByOrAnyone(sql`${events.data}->'created_by'`, sql.placeholder('ownOf')),
          sql`(${sql.placeholder('orderId')}::int is null or ${events.orderId} = ${sql.placeholder('orderId')}::int)`,
          ofType ? eq(events.type, sql.placeholder('type')) : notInArray(events.type, OPERATOR_ONLY),
        ),
      )
      .orderBy(asc(events.position))
      .limit(sql.placeholder('limit'))
      .prepare(statement),
  );
const eventsAfter = feedPage('events_after', false);
const eventsOfTypeAfter = feedPage('events_of_type_after', true);

/** An order's events, operators' included, in the order they committed (admin order inspect). */
export async function orderEvents(db: DbOrTx, orderId: number): Promise<EventRow[]> {
  return db.select().from(events).where(eq(events.orderId, orderId)).orderBy(asc(events.position));
}

/** The event with this public id. */
export async function getEvent(db: DbOrTx, publicEventId: number): Promise<EventRow | undefined> {
  const [row] = await db.select().from(events).where(eq(events.position, publicEventId));
  return row;
}

/** A webhook endpoint as shown to its partner (src/domain/webhooks.ts, endpointView): the data of endpoint events. */
export interface EndpointSnapshot {
  id: number;
  url: string;
  event_types: string[];
  /** The interface whose style its deliveries are written in (the one it was registered through). */
  interface: EventStyle;
  status: 'enabled' | 'disabled' | 'deleted';
  disabled_reason: string | null;
  created_at: string;
}

/** A webhook endpoint as Interface B writes one: its B routes answer it, and it is the data of endpoint events in B's style. */
export function agencyEndpointView(e: EndpointSnapshot) {
  return {
    webhook_id: String(e.id),
    url: e.url,
    event_types: e.event_types,
    interface: e.interface,
    status: e.status,
    disabled_reason: e.disabled_reason,
    created_at: e.created_at,
  };
}

const LOW_BALANCE: EventType = 'wallet.low_balance';

/**
 * An event as Interface A's feed shows it and webhooks registered through A carry it. Order
 * events carry the order as Interface A renders it at that moment; `wallet.low_balance` the
 * wallet as A answers it, with the threshold crossed.
 */
export function eventView(e: EventRow) {
  return {
    id: publicId(e),
    type: e.type,
    created_at: e.createdAt.toISOString(),
    order_id: e.orderId,
    data:
      e.orderId !== null
        ? travelOrderView(orderFromSnapshot(e.data))
        : e.type === LOW_BALANCE
          ? lowBalanceView(e.data)
          : (e.data as unknown as EndpointSnapshot),
  };
}
export type EventView = ReturnType<typeof eventView>;

/** The same event in Interface B's style: string ids, the order as B writes one, the endpoint as B's webhook, amounts as numbers. */
export function agencyEventView(e: EventRow) {
  return {
    event_id: String(publicId(e)),
    type: e.type,
    created_at: e.createdAt.toISOString(),
    order_id: e.orderId === null ? null : String(e.orderId),
    data:
      e.orderId !== null
        ? agencyOrderView(orderFromSnapshot(e.data))
        : e.type === LOW_BALANCE
          ? agencyLowBalanceView(e.data)
          : agencyEndpointView(e.data as unknown as EndpointSnapshot),
  };
}

/** Which interface's style an event is written in: the feed's, or the one an endpoint was registered through. */
export type EventStyle = 'a' | 'b';
export const eventInStyle = (e: EventRow, style: EventStyle) => (style === 'b' ? agencyEventView(e) : eventView(e));
