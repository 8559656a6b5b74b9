import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { hotelBookings, orderItems, orders, products, productVariants, type OrderStatus } from '../../db/schema';
import { DomainError, notFound, validation } from '../errors';
import { requestFingerprint, sameRequest } from './idempotency';
import { lineTotal } from '../money/money';
import { orderBooking } from '../hotels/bookings';
import { priceColumns, summedPrice } from '../money/markup';
import { ownMarkup, type CatalogueDeps } from '../money/markup-rules';
import { AGENCY_CHANNEL, type OrderRow } from '../orders';
import { actorNow } from '../../platform/request-context';

/**
 * The order of an agency booking, created once: a retried step finds the order it made. A
 * hold that ended before it (its deadline passed while the saga was held up: a worker down,
 * a step retried) is a conflict: nothing was charged, and the agency books again.
 */
export async function orderAgencyBooking(db: DbOrTx, partnerId: number, bookingId: number): Promise<{ orderId: number }> {
  const [b] = await db.select().from(hotelBookings).where(eq(hotelBookings.id, bookingId));
  if (!b) throw notFound(`booking ${bookingId}`);
  if (b.orderId !== null) return { orderId: b.orderId };
  try {
    const { order } = await orderBooking(db, partnerId, bookingId, AGENCY_CHANNEL);
    return { orderId: order.id };
  } catch (err) {
    // orderBooking's refusals are of the booking's state; for a booking B has just held, only an ended hold.
    if (err instanceof DomainError && err.code === 'validation') {
      throw new DomainError('conflict', `the room's hold for this booking ended before the booking was paid; nothing was charged; book again`);
    }
    throw err;
  }
}

/**
 * An agency creation that could not be settled: the debit was already reversed by the
 * pay workflow; the order fails (it is not payable later) and the booking is released.
 * Answers the supplier hold to release, if any, and the status the order is left in.
 */
export async function abandonOrder(db: DbOrTx, orderId: number): Promise<{ supplierHoldId: string | null; status: OrderStatus }> {
  return db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update');
    if (!order) throw notFound(`order ${orderId}`);
    const status = order.status === 'pending' ? 'failed' : order.status;
    if (status !== order.status) await tx.update(orders).set({ status, actedBy: actorNow(), updatedAt: new Date() }).where(eq(orders.id, orderId));
    const [b] = await tx.select().from(hotelBookings).where(eq(hotelBookings.orderId, orderId));
    if (b && (b.status === 'held' || b.status === 'prebooked')) {
      await tx.update(hotelBookings).set({ status: 'released', updatedAt: new Date() }).where(eq(hotelBookings.id, b.id));
      return { supplierHoldId: b.supplierHoldId, status };
    }
    return { supplierHoldId: null, status };
  });
}

export interface AgencyProductOrderInput {
  productId: string;
  quantity: number;
  deliveryAddress: { street: string; city: string; country: string; postal_code: string };
  agencyRef?: string;
}

/**
 * POST /v1/products/orders: one product (a variant's SKU, or a product's without
 * variants) in a pending credit order, priced now. Paying it is the workflow's job.
 */
export async function createAgencyProductOrder(
  db: DbOrTx,
  partnerId: number,
  input: AgencyProductOrderInput,
  pricing: CatalogueDeps,
  idempotencyKey?: string,
): Promise<OrderRow> {
  const currency = pricing.currency;
  const fingerprint = requestFingerprint(input);
  if (idempotencyKey) {
    const [same] = await db
      .select()
      .from(orders)
      .where(and(eq(orders.partnerId, partnerId), eq(orders.idempotencyKey, idempotencyKey)));
    if (same) {
      sameRequest(idempotencyKey, same.idempotencyRequest, fingerprint);
      return same;
    }
  }
  const [variant] = await db
    .select({ v: productVariants, p: products })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(eq(productVariants.sku, input.productId));
  let line: { productId: number; variantId: number | null; sku: string; name: string; unit: number; stock: number };
  if (variant) {
    line = {
      productId: variant.p.id,
      variantId: variant.v.id,
      sku: variant.v.sku,
      name: `${variant.p.name} (${variant.v.name})`,
      unit: variant.v.price,
      stock: variant.p.stock,
    };
  } else {
    const [p] = await db.select().from(products).where(eq(products.sku, input.productId));
    const hasVariants = p
      ? (
          await db
            .select({ id: productVariants.id })
            .from(productVariants)
            .where(and(eq(productVariants.productId, p.id)))
        ).length > 0
      : false;
    if (!p || hasVariants) throw validation('product_id', `no product ${input.productId}`);
    line = { productId: p.id, variantId: null, sku: p.sku, name: p.name, unit: p.price, stock: p.stock };
  }
  if (line.stock <= 0) throw validation('product_id', `${input.productId} is out of stock`);
  // Each unit at the partner's price: the catalogue's with the partner's markup.
  const markup = await ownMarkup({ ...pricing, db }, 'products', partnerId);
  const unit = markup.sell(line.unit);
  const total = lineTotal(unit, input.quantity, currency);
  const net = lineTotal(markup.net(line.unit), input.quantity, currency);
  return db.transaction(async (tx) => {
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId,
        service: 'product',
        totalPrice: total,
        currency,
        paymentMethod: 'PARTNER_CREDIT',
        idempotencyKey: idempotencyKey ?? null,
        idempotencyRequest: idempotencyKey ? fingerprint : null,
        details: { ...AGENCY_CHANNEL, delivery_address: input.deliveryAddress, agency_ref: input.agencyRef ?? null },
        ...priceColumns(summedPrice(markup, { net, operator: lineTotal(markup.operatorSell(line.unit), input.quantity, currency), sell: total })),
      })
      .onConflictDoNothing()
      .returning();
    // A concurrent request with the same key won the insert: answer its order.
    if (!order) {
      const [same] = await tx
        .select()
        .from(orders)
        .where(and(eq(orders.partnerId, partnerId), eq(orders.idempotencyKey, idempotencyKey!)));
      sameRequest(idempotencyKey!, same!.idempotencyRequest, fingerprint);
      return same!;
    }
    await tx.insert(orderItems).values({
      orderId: order!.id,
      productId: line.productId,
      variantId: line.variantId,
      sku: line.sku,
      name: line.name,
      quantity: input.quantity,
      unitPrice: unit,
      lineTotal: total,
    });
    return order!;
  });
}
