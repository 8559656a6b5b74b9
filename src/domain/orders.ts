import { and, asc, count, desc, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { preparedQuery } from '../db/prepared';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { flightBookings, hotelBookings, orderItems, orders, partners } from '../db/schema';
import { notFound } from './errors';
import { isStorableId } from './ids';
import { paginateCounted, type PageSlice } from './pagination';

export type OrderRow = typeof orders.$inferSelect;
export type OrderItemRow = typeof orderItems.$inferSelect;

export interface DeliveryDetails {
  recipient_name: string;
  phone_number?: string;
  email?: string;
  street: string;
  city: string;
  country: string;
  postal_code?: string;
}

/**
 * Where an Interface B order says it is B's (its details' `channel`): a booking or product
 * order B creates to pay at once, by its own saga's child payment and by nothing else.
 */
export const AGENCY_CHANNEL = { channel: 'agency' } as const;

/** Whether an order is Interface B's, settled by its own saga (never paid through Interface A's pay). */
export const isAgencyOrder = (order: Pick<OrderRow, 'details'>): boolean => (order.details as { channel?: unknown } | null)?.channel === AGENCY_CHANNEL.channel;

/** An order and its lines (none but a product order's), in the order they were added. */
export type OrderWithItems = OrderRow & { items: OrderItemRow[] };

const orderById = preparedQuery('order_by_id', (db, name) =>
  db
    .select()
    .from(orders)
    .where(eq(orders.id, sql.placeholder('orderId')))
    .prepare(name),
);

export async function getOrder(db: DbOrTx, orderId: number): Promise<OrderRow | undefined> {
  const [row] = await orderById(db, { orderId });
  return row;
}

/**
 * Orders whose `created_by` (jsonb) is the user `userId`, or every order when it is null: what
 * an agent who sees only their own bookings is shown (docs/decisions/rights.md). `createdBy` is
 * the jsonb of who made the order (an order's column, or an event's snapshot of it).
 */
export const madeByOrAnyone = (createdBy: SQL, userId: number | null | ReturnType<typeof sql.placeholder>) =>
  sql`(${userId}::int is null or (${createdBy}->>'type' = 'user' and (${createdBy}->>'id')::int = ${userId}::int))`;

/**
 * The orders a partner may read: its own and its sub-agencies' (docs/decisions/sub-agencies.md).
 * Every read of orders by partner goes through this (`owner`: the partner column of what is
 * read, the bookings orders are made from); acting on an order (paying, cancelling) stays
 * with the partner that made it.
 */
export const readableBy = (partnerId: number | ReturnType<typeof sql.placeholder>, owner: AnyPgColumn = orders.partnerId) =>
  sql`${owner} in (select ${partners.id} from ${partners} where ${partners.id} = ${partnerId} or ${partners.parentId} = ${partnerId})`;

/**
 * What a list of orders may be narrowed to (extension filters; none given: every order).
 * `travelFrom`/`travelTo`: the day the service starts (a hotel's check-in, a flight's
 * departure, UTC), inclusive; an order with no such day (other services) matches neither.
 * `agent`: orders made by that user.
 */
export interface OrderFilter {
  statuses?: readonly OrderRow['status'][];
  travelFrom?: string;
  travelTo?: string;
  agent?: number;
}

/** The day an order's service starts: its hotel booking's check-in or its flight's departure (UTC). */
const travelDay = sql`coalesce(
  (select ${hotelBookings.checkIn} from ${hotelBookings} where ${hotelBookings.orderId} = ${orders.id}),
  (select (${flightBookings.departureAt} at time zone 'UTC')::date from ${flightBookings} where ${flightBookings.orderId} = ${orders.id})
)`;

/**
 * One of the partner's order lists, newest first: its travel orders (every service but
 * products) or its product orders. A page is one prepared read, each row with the list's
 * length (`count(*) over ()`); partners poll these lists for outcomes. Filters absent are
 * null placeholders, so one prepared statement serves every combination.
 */
function orderList(name: string, products: boolean) {
  const where = () =>
    and(
      readableBy(sql.placeholder('partnerId')),
      products ? eq(orders.service, 'product') : ne(orders.service, 'product'),
      madeByOrAnyone(sql`${orders.createdBy}`, sql.placeholder('ownOf')),
      madeByOrAnyone(sql`${orders.createdBy}`, sql.placeholder('agent')),
      sql`(${sql.placeholder('statuses')}::text[] is null or ${orders.status} = any(${sql.placeholder('statuses')}::text[]))`,
      sql`(${sql.placeholder('travelFrom')}::date is null or ${travelDay} >= ${sql.placeholder('travelFrom')}::date)`,
      sql`(${sql.placeholder('travelTo')}::date is null or ${travelDay} <= ${sql.placeholder('travelTo')}::date)`,
    );
  const counted = preparedQuery(`${name}_count`, (db, n) => db.select({ n: count() }).from(orders).where(where()).prepare(n));
  const page = preparedQuery(`${name}_page`, (db, n) =>
    db
      .select({ order: orders, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(orders)
      .where(where())
      .orderBy(desc(orders.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(n),
  );
  /** `ownOf`: the user whose own orders only are listed; null: every order. */
  return (db: DbOrTx, partnerId: number, pageNumber: number, ownOf: number | null = null, filter: OrderFilter = {}): Promise<PageSlice<OrderRow>> => {
    const params = {
      partnerId,
      ownOf,
      agent: filter.agent ?? null,
      statuses: filter.statuses?.length ? [...filter.statuses] : null,
      travelFrom: filter.travelFrom ?? null,
      travelTo: filter.travelTo ?? null,
    };
    return paginateCounted(
      pageNumber,
      async () => (await counted(db, params))[0]!.n,
      async (offset, limit) => (await page(db, { ...params, limit, offset })).map(({ order, total }) => ({ item: order, total })),
    );
  };
}

/** Travel orders (every service but products), newest first. */
export const listTravelOrders = orderList('travel_orders', false);
const productOrders = orderList('product_orders', true);

/** The lines of a page of orders, in the order they were added (prepared: the ids go as one array). */
const linesOfOrders = preparedQuery('lines_of_orders', (db, name) =>
  db
    .select()
    .from(orderItems)
    .where(sql`${orderItems.orderId} = any(${sql.placeholder('orderIds')}::int[])`)
    .orderBy(asc(orderItems.id))
    .prepare(name),
);

/** Product orders, newest first, each with its lines in the order they were added. */
export async function listProductOrders(db: DbOrTx, partnerId: number, page: number, ownOf: number | null = null): Promise<PageSlice<OrderWithItems>> {
  const found = await productOrders(db, partnerId, page, ownOf);
  const items = found.items.length ? await linesOfOrders(db, { orderIds: found.items.map((r) => r.id) }) : [];
  return { ...found, items: found.items.map((order) => ({ ...order, items: items.filter((i) => i.orderId === order.id) })) };
}

/**
 * This partner's order of one service, or 404: another partner's order does not exist for the
 * caller. To `read` it, a parent agency's own or its sub-agencies'; to act on it, its own.
 */
export async function serviceOrderOf(
  db: DbOrTx,
  partnerId: number,
  orderId: number,
  service: OrderRow['service'],
  access: 'read' | 'act' = 'act',
): Promise<OrderRow> {
  const whose = access === 'read' ? readableBy(partnerId) : eq(orders.partnerId, partnerId);
  const [order] = isStorableId(orderId)
    ? await db
        .select()
        .from(orders)
        .where(and(eq(orders.id, orderId), whose, eq(orders.service, service)))
    : [];
  if (!order) throw notFound(`${service} order ${orderId}`);
  return order;
}

const orderWithItemsById = preparedQuery('order_with_items_by_id', (db, name) =>
  db
    .select({ order: orders, item: orderItems })
    .from(orders)
    .leftJoin(orderItems, eq(orderItems.orderId, orders.id))
    .where(eq(orders.id, sql.placeholder('orderId')))
    .orderBy(asc(orderItems.id))
    .prepare(name),
);

/**
 * An order with its lines, in one statement (a prepared query: every payment's supplier
 * step reads the order, and a product order's lines with it).
 */
export async function getOrderWithItems(db: DbOrTx, orderId: number): Promise<OrderWithItems | undefined> {
  const rows = await orderWithItemsById(db, { orderId });
  if (!rows[0]) return undefined;
  return { ...rows[0].order, items: rows.flatMap((r) => (r.item ? [r.item] : [])) };
}
