import { and, asc, count, desc, eq, inArray, ne } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { orderItems, orders } from '../db/schema';
import { notFound } from './errors';
import { isStorableId } from './ids';
import { formatDecimal } from './money';
import { paginate, type Page } from './pagination';

export type OrderRow = typeof orders.$inferSelect;
type OrderItemRow = typeof orderItems.$inferSelect;

export interface DeliveryDetails {
  recipient_name: string;
  phone_number?: string;
  email?: string;
  street: string;
  city: string;
  country: string;
  postal_code?: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function renderTravelOrder(o: OrderRow) {
  return {
    id: o.id,
    service: o.service,
    status: o.status,
    total_price: formatDecimal(o.totalPrice, o.currency),
    currency: o.currency,
    payment_method: o.paymentMethod,
    supplier_ref: o.supplierRef,
    // The service's own progress where it has one beyond the order (a visa application: under_review, approved, ...).
    service_status: ((o.details as { service_status?: string }).service_status ?? null) as string | null,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    completed_at: iso(o.completedAt),
  };
}

export function renderProductOrder(o: OrderRow, items: OrderItemRow[]) {
  return {
    id: o.id,
    status: o.status,
    // Spec §2.1 names the total of a product order total_price_irt.
    total_price_irt: formatDecimal(o.totalPrice, o.currency),
    currency: o.currency,
    payment_method: o.paymentMethod,
    items: items.map((i) => ({
      product: i.productId,
      variant: i.variantId,
      sku: i.sku,
      name: i.name,
      quantity: i.quantity,
      unit_price: formatDecimal(i.unitPrice, o.currency),
      line_total: formatDecimal(i.lineTotal, o.currency),
    })),
    delivery: (o.details as { delivery?: DeliveryDetails | null }).delivery ?? null,
    supplier_ref: o.supplierRef,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    completed_at: iso(o.completedAt),
  };
}

export async function getOrder(db: DbOrTx, orderId: number): Promise<OrderRow | undefined> {
  const [row] = await db.select().from(orders).where(eq(orders.id, orderId));
  return row;
}

/** Travel orders (every service but products), newest first. */
export async function listTravelOrders(db: DbOrTx, partnerId: number, page: number, requestUrl: string): Promise<Page<ReturnType<typeof renderTravelOrder>>> {
  const where = and(eq(orders.partnerId, partnerId), ne(orders.service, 'product'));
  return paginate(
    requestUrl,
    page,
    async () => (await db.select({ n: count() }).from(orders).where(where))[0]!.n,
    async (offset, limit) => (await db.select().from(orders).where(where).orderBy(desc(orders.id)).limit(limit).offset(offset)).map(renderTravelOrder),
  );
}

export async function listProductOrders(db: DbOrTx, partnerId: number, page: number, requestUrl: string): Promise<Page<ReturnType<typeof renderProductOrder>>> {
  const where = and(eq(orders.partnerId, partnerId), eq(orders.service, 'product'));
  return paginate(
    requestUrl,
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
      return rows.map((o) =>
        renderProductOrder(
          o,
          items.filter((i) => i.orderId === o.id),
        ),
      );
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

export async function getOrderItems(db: DbOrTx, orderId: number): Promise<OrderItemRow[]> {
  return db.select().from(orderItems).where(eq(orderItems.orderId, orderId)).orderBy(asc(orderItems.id));
}
