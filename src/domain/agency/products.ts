import type { CatalogueDeps } from '../money/markup-rules';
import { and, asc, eq } from 'drizzle-orm';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { orderItems, orders, productCategories, products, productVariants } from '../../db/schema';
import { fromCatalogue } from '../catalog-cache';
import { notFound, workflowAnswer } from '../errors';
import { rowIdOf } from '../ids';
import { readableBy, type OrderItemRow, type OrderRow } from '../orders';
import type { Partner } from '../partners';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { bookingAttributes } from '../../temporal/workflows';
import { agencyOrderWorkflowId } from '../../../workflows/agency.types';
import { createAgencyProductOrder, type AgencyProductOrderInput } from './orders';
import { settle } from './settle';

/** One thing Interface B sells: a variant, or a product without variants, named by its SKU. */
export interface SellableItem {
  sku: string;
  name: string;
  category: string;
  description: string;
  destinations: string[];
  priceMinor: number;
  inStock: boolean;
  delivery: string;
}

/**
 * Interface B sells each variant as a product of its own: product_id is the variant's SKU
 * (or the product's, when it has no variants), so an order names exactly what is shipped.
 */
function catalogue(db: Db): Promise<SellableItem[]> {
  return fromCatalogue(db, 'agency-catalogue', () => readCatalogue(db));
}

async function readCatalogue(db: Db): Promise<SellableItem[]> {
  const rows = await db
    .select({ p: products, c: productCategories, v: productVariants })
    .from(products)
    .innerJoin(productCategories, eq(productCategories.id, products.categoryId))
    .leftJoin(productVariants, eq(productVariants.productId, products.id))
    .orderBy(asc(products.id), asc(productVariants.price));
  return rows.map(({ p, c, v }) => ({
    sku: v?.sku ?? p.sku,
    name: v ? `${p.name} (${v.name})` : p.name,
    category: c.slug,
    description: p.description,
    destinations: p.destinations,
    priceMinor: v?.price ?? p.price,
    inStock: p.stock > 0,
    delivery: p.delivery,
  }));
}

export async function listProducts(db: Db, q: { category?: string; destination?: string; limit: number }): Promise<SellableItem[]> {
  return (
    (await catalogue(db))
      .filter((p) => !q.category || p.category === q.category)
      // Products usable anywhere (no destinations) fit every destination.
      .filter((p) => !q.destination || p.destinations.length === 0 || p.destinations.includes(q.destination.toUpperCase()))
      .slice(0, q.limit)
  );
}

export async function productDetail(db: Db, productId: string): Promise<SellableItem> {
  const found = (await catalogue(db)).find((p) => p.sku === productId);
  if (!found) throw notFound(`product ${productId}`);
  return found;
}

/** An agency product order: one line, one SKU. */
export interface AgencyOrder {
  order: OrderRow;
  item: OrderItemRow | null;
}

/** A product order the agency may read: its own, or one of its sub-agencies'. */
async function orderView(db: Db, partnerId: number, orderId: number): Promise<AgencyOrder> {
  const [order] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), readableBy(partnerId), eq(orders.service, 'product')));
  if (!order) throw notFound(`order ${orderId}`);
  const [item] = await db.select().from(orderItems).where(eq(orderItems.orderId, order.id));
  return { order, item: item ?? null };
}

export async function getOrder(db: Db, partner: Partner, rawId: string): Promise<AgencyOrder> {
  return orderView(db, partner.id, rowIdOf(rawId, 'order'));
}

/** POST /v1/products/orders: the order is created, then paid (debit → fulfilment); 201 only once fulfilled. */
export async function placeOrder(
  deps: { db: Db; temporal: Client; taskQueue: string; waitMs: number; outcomes?: WorkflowOutcomes },
  partner: Partner,
  input: AgencyProductOrderInput,
  pricing: CatalogueDeps,
  idempotencyKey?: string,
  scenario?: string,
): Promise<{ done: boolean; order: AgencyOrder }> {
  const order = await createAgencyProductOrder(deps.db, partner.id, input, pricing, idempotencyKey);
  const id = order.id;
  const done = await settle(
    deps,
    'agencyProductOrder',
    {
      workflowId: agencyOrderWorkflowId(id),
      args: [{ partnerId: partner.id, orderId: id, ...(scenario ? { scenario } : {}) }],
      attributes: bookingAttributes({ partnerId: partner.id, orderId: id, service: 'product', stage: 'debiting' }),
    },
    workflowAnswer('agencyProductOrder'),
  );
  return { done, order: await orderView(deps.db, partner.id, id) };
}
