import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/client';
import { basketItems, baskets, orderItems, orders, products, productVariants, type PaymentMethod } from '../db/schema';
import { defaultVariantOf } from './catalog';
import { DomainError, notFound, validation } from './errors';
import { isStorableId } from './ids';
import { lineTotal, sum } from './money/money';
import type { DeliveryDetails, OrderWithItems } from './orders';
import { priceColumns, summedPrice, type Markup } from './money/markup';
import { actorNow, currentActor } from '../platform/request-context';

export const MAX_LINE_QUANTITY = 100;

/**
 * The open basket of the partner's user acting now (a connection acting as no user shares the
 * partner's one): an agent fills and checks out their own basket, never a colleague's.
 */
function openBasketOf(partnerId: number) {
  const actor = currentActor();
  const userId = actor?.type === 'user' ? actor.id : null;
  return {
    userId,
    where: and(eq(baskets.partnerId, partnerId), userId === null ? isNull(baskets.userId) : eq(baskets.userId, userId), eq(baskets.status, 'open')),
  };
}

async function openBasket(tx: Tx, partnerId: number) {
  const mine = openBasketOf(partnerId);
  const [existing] = await tx.select().from(baskets).where(mine.where).for('update');
  if (existing) return existing;
  // The partial unique index keeps one open basket per partner and user even if two requests race here.
  await tx.insert(baskets).values({ partnerId, userId: mine.userId }).onConflictDoNothing();
  const [created] = await tx.select().from(baskets).where(mine.where).for('update');
  return created!;
}

export interface PricedLine {
  id: number;
  productId: number;
  variantId: number | null;
  sku: string;
  name: string;
  quantity: number;
  /** The partner's price of one unit: its net with the partner's markup. */
  unitPrice: number;
  /** The catalogue's price of one unit in the wallet's currency (never shown to partners). */
  unitNet: number;
  lineTotal: number;
}

async function pricedLines(db: DbOrTx, basketId: number, currency: string, markup: Markup): Promise<PricedLine[]> {
  const rows = await db
    .select({ item: basketItems, product: products, variant: productVariants })
    .from(basketItems)
    .innerJoin(products, eq(products.id, basketItems.productId))
    .leftJoin(productVariants, eq(productVariants.id, basketItems.variantId))
    .where(eq(basketItems.basketId, basketId))
    .orderBy(asc(basketItems.id));
  return rows.map(({ item, product, variant }) => {
    const catalogueNet = variant?.price ?? product.price;
    const unitNet = markup.net(catalogueNet);
    const unitPrice = markup.sell(catalogueNet);
    return {
      id: item.id,
      productId: product.id,
      variantId: variant?.id ?? null,
      sku: variant?.sku ?? product.sku,
      name: variant ? `${product.name} (${variant.name})` : product.name,
      quantity: item.quantity,
      unitPrice,
      unitNet,
      lineTotal: lineTotal(unitPrice, item.quantity, currency),
    };
  });
}

/** The partner's open basket (id null until the first item is added), its lines priced now. */
export interface Basket {
  id: number | null;
  lines: PricedLine[];
  currency: string;
}

export async function getCurrentBasket(db: DbOrTx, partnerId: number, currency: string, markup: Markup): Promise<Basket> {
  const [basket] = await db.select().from(baskets).where(openBasketOf(partnerId).where);
  if (!basket) return { id: null, lines: [], currency };
  return { id: basket.id, lines: await pricedLines(db, basket.id, currency, markup), currency };
}

/** Adds a product (or more of one already there) to the partner's current basket. */
export async function addBasketItem(
  db: DbOrTx,
  partnerId: number,
  input: { product: number; quantity: number; variant?: number },
  currency: string,
  markup: Markup,
): Promise<{ item: PricedLine; basket: Basket }> {
  return db.transaction(async (tx) => {
    const [product] = await tx.select().from(products).where(eq(products.id, input.product));
    if (!product) throw validation('product', `no product with id ${input.product}`);
    const variants = await tx.select().from(productVariants).where(eq(productVariants.productId, product.id));
    let variantId: number | null = null;
    if (input.variant !== undefined) {
      if (!variants.some((v) => v.id === input.variant)) {
        throw validation('variant', `product ${product.id} has no variant ${input.variant}`);
      }
      variantId = input.variant;
    } else if (variants.length > 0) {
      const fallback = defaultVariantOf(variants);
      // Only a catalogue that marks no default gets here; the seeded one marks one on every product.
      if (!fallback) throw validation('variant', `product ${product.id} comes in variants; choose one of ${variants.map((v) => v.id).join(', ')}`);
      variantId = fallback.id;
    }
    if (product.stock <= 0) throw validation('product', `product ${product.id} is out of stock`);

    const basket = await openBasket(tx, partnerId);
    const sameLine = and(
      eq(basketItems.basketId, basket.id),
      eq(basketItems.productId, product.id),
      variantId === null ? isNull(basketItems.variantId) : eq(basketItems.variantId, variantId),
    );
    const [existing] = await tx.select().from(basketItems).where(sameLine);
    const quantity = (existing?.quantity ?? 0) + input.quantity;
    if (quantity > MAX_LINE_QUANTITY) {
      throw validation('quantity', `at most ${MAX_LINE_QUANTITY} of one product per basket (already ${existing?.quantity ?? 0})`);
    }
    let itemId: number;
    if (existing) {
      await tx.update(basketItems).set({ quantity }).where(eq(basketItems.id, existing.id));
      itemId = existing.id;
    } else {
      const [row] = await tx.insert(basketItems).values({ basketId: basket.id, productId: product.id, variantId, quantity }).returning();
      itemId = row!.id;
    }
    const lines = await pricedLines(tx, basket.id, currency, markup);
    return { item: lines.find((l) => l.id === itemId)!, basket: { id: basket.id, lines, currency } };
  });
}

export async function removeBasketItem(db: DbOrTx, partnerId: number, itemId: number, currency: string, markup: Markup): Promise<Basket> {
  if (!isStorableId(itemId)) throw notFound(`basket item ${itemId}`);
  return db.transaction(async (tx) => {
    const basket = await openBasket(tx, partnerId);
    const deleted = await tx
      .delete(basketItems)
      .where(and(eq(basketItems.id, itemId), eq(basketItems.basketId, basket.id)))
      .returning({ id: basketItems.id });
    if (deleted.length === 0) throw notFound(`basket item ${itemId}`);
    return { id: basket.id, lines: await pricedLines(tx, basket.id, currency, markup), currency };
  });
}

/**
 * Turns the current basket into a pending product order, priced now (each unit with the
 * partner's markup); the basket is then closed.
 */
export async function checkout(
  db: DbOrTx,
  partnerId: number,
  input: { paymentMethod: PaymentMethod; delivery?: DeliveryDetails },
  currency: string,
  markup: Markup,
): Promise<OrderWithItems> {
  return db.transaction(async (tx) => {
    const basket = await openBasket(tx, partnerId);
    const lines = await pricedLines(tx, basket.id, currency, markup);
    if (lines.length === 0) throw new DomainError('validation', 'basket is empty: add items before checking out');
    const outOfStock = await tx
      .select({ id: products.id })
      .from(products)
      .where(
        and(
          inArray(
            products.id,
            lines.map((l) => l.productId),
          ),
          eq(products.stock, 0),
        ),
      );
    if (outOfStock.length > 0) throw validation('basket', `product ${outOfStock[0]!.id} went out of stock; remove it to check out`);

    const totalPrice = sum(
      lines.map((l) => l.lineTotal),
      currency,
    );
    const net = sum(
      lines.map((l) => lineTotal(l.unitNet, l.quantity, currency)),
      currency,
    );
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId,
        service: 'product',
        totalPrice,
        currency,
        paymentMethod: input.paymentMethod,
        details: { basket_id: basket.id, delivery: input.delivery ?? null },
        ...priceColumns(
          summedPrice(markup, {
            net,
            operator: sum(
              lines.map((l) => lineTotal(markup.operatorSell(l.unitNet), l.quantity, currency)),
              currency,
            ),
            sell: totalPrice,
          }),
        ),
      })
      .returning();
    await tx.insert(orderItems).values(
      lines.map((l) => ({
        orderId: order!.id,
        productId: l.productId,
        variantId: l.variantId,
        sku: l.sku,
        name: l.name,
        quantity: l.quantity,
        unitPrice: l.unitPrice,
        lineTotal: l.lineTotal,
      })),
    );
    await tx.update(baskets).set({ status: 'checked_out' }).where(eq(baskets.id, basket.id));
    const items = await tx.select().from(orderItems).where(eq(orderItems.orderId, order!.id)).orderBy(asc(orderItems.id));
    return { ...order!, items };
  });
}
