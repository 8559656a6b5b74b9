import { and, asc, count, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { preparedQuery } from '../db/prepared';
import { orderItems, orders } from '../db/schema';
import { notFound } from './errors';
import { isStorableId } from './ids';
import { paginate, type PageSlice } from './pagination';

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

/** A product order with its lines, in the order they were added. */
export interface ProductOrder {
  order: OrderRow;
  items: OrderItemRow[];
}

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

/** Travel orders (every service but products), newest first. */
export async function listTravelOrders(db: DbOrTx, partnerId: number, page: number): Promise<PageSlice<OrderRow>> {
  const where = and(eq(orders.partnerId, partnerId), ne(orders.service, 'product'));
  return paginate(
    page,
    async () => (await db.select({ n: count() }).from(orders).where(where))[0]!.n,
    async (offset, limit) => db.select().from(orders).where(where).orderBy(desc(orders.id)).limit(limit).offset(offset),
  );
}

export async function listProductOrders(db: DbOrTx, partnerId: number, page: number): Promise<PageSlice<ProductOrder>> {
  const where = and(eq(orders.partnerId, partnerId), eq(orders.service, 'product'));
  return paginate(
    page,
    async () => (await db.select({ n: count() }).from(orders).where(where))[0]!.n,
    async (offset, limit) => {
      const rows = await db.select().from(orders).where(where).orderBy(desc(orders.id)).limit(limit).offset(offset);
      const items = rows.length
        ? await db
            .select()
            .from(orderItems)
            .where(
              inArray(
                orderItems.orderId,
                rows.map((r) => r.id),
              ),
            )
            .orderBy(asc(orderItems.id))
        : [];
      return rows.map((order) => ({ order, items: items.filter((i) => i.orderId === order.id) }));
    },
  );
}

/** This partner's order of one service, or 404: another partner's order does not exist for the caller. */
export async function serviceOrderOf(db: DbOrTx, partnerId: number, orderId: number, service: OrderRow['service']): Promise<OrderRow> {
  const [order] = isStorableId(orderId)
    ? await db
        .select()
        .from(orders)
        .where(and(eq(orders.id, orderId), eq(orders.partnerId, partnerId), eq(orders.service, service)))
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

/** An order and its lines (none but a product order's), in the order they were added. */
export type OrderWithItems = OrderRow & { items: OrderItemRow[] };

/**
 * An order with its lines, in one statement (a prepared query: every payment's supplier
 * step reads the order, and a product order's lines with it).
 */
export async function getOrderWithItems(db: DbOrTx, orderId: number): Promise<OrderWithItems | undefined> {
  const rows = await orderWithItemsById(db, { orderId });
  if (!rows[0]) return undefined;
  return { ...rows[0].order, items: rows.flatMap((r) => (r.item ? [r.item] : [])) };
}
