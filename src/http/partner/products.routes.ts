import { createRoute, z } from '@hono/zod-openapi';
import {
  addBasketItem,
  checkout,
  getCurrentBasket,
  MAX_LINE_QUANTITY,
  removeBasketItem,
  type Basket as BasketValue,
  type PricedLine,
} from '../../domain/basket';
import { defaultVariantOf, getProduct, listCategories, listProducts, type CategoryRow, type Product as ProductValue } from '../../domain/catalog';
import { formatDecimal, sum } from '../../domain/money/money';
import type { DeliveryDetails, OrderWithItems } from '../../domain/orders';
import { partnerPricing, type ApiDeps } from '../deps';
import type { Partner } from '../../domain/partners';
import type { Markup } from '../../domain/money/markup';
import { ownMarkup } from '../../domain/money/markup-rules';
import { created, ok, partnerRouter } from './router';
import { bodyId, country, email, idString, phone, text } from '../vocabulary';
import { Actor, commonErrors, Decimal, Id, json, jsonBody, partnerOperations, iso } from './schemas';
import { page, PageQuery, parsePage, renderPage } from './paging';
import { actorView } from '../../domain/order-view';

const Category = z.object({ id: z.number().int(), slug: z.enum(['modem', 'sim', 'accessory']).or(z.string()), name: z.string() }).openapi('ProductCategory');

const Product = z
  .object({
    id: z.number().int(),
    sku: z.string(),
    name: z.string(),
    category: Category,
    description: z.string(),
    destinations: z.array(z.string()).openapi({ description: 'ISO 3166-1 alpha-2 countries where it works; empty: anywhere' }),
    price: Decimal.openapi({ description: 'Price of the cheapest variant, or of the product when it has none' }),
    currency: z.string(),
    delivery: z.enum(['digital', 'physical']),
    in_stock: z.boolean(),
    variants: z.array(
      z.object({
        id: z.number().int(),
        sku: z.string(),
        name: z.string(),
        price: Decimal,
        data_gb: z.number().int().nullable(),
        validity_days: z.number().int().nullable(),
      }),
    ),
    default_variant: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Id of the variant a basket item gets when it names none; null when the product has no variants' }),
  })
  .openapi('Product');

const BasketLine = z
  .object({
    id: z.number().int(),
    product: z.number().int(),
    variant: z.number().int().nullable(),
    name: z.string(),
    quantity: z.number().int(),
    unit_price: Decimal,
    line_total: Decimal,
  })
  .openapi('BasketItem');

const Basket = z
  .object({
    id: z.number().int().nullable().openapi({ description: 'null until the first item is added' }),
    items: z.array(BasketLine),
    item_count: z.number().int(),
    total_price: Decimal,
    currency: z.string(),
  })
  .openapi('Basket');

const Delivery = z
  .object({
    recipient_name: text(200),
    phone_number: phone().optional(),
    email: email().optional(),
    street: text(300),
    city: text(100),
    country: country('TR'),
    postal_code: text(20, { blank: true }).optional(),
  })
  .openapi('DeliveryDetails');

export const ProductOrder = z
  .object({
    id: z.number().int().openapi({ description: 'The product_order_id to pay' }),
    status: z.string().openapi({ example: 'pending' }),
    total_price_irt: Decimal,
    currency: z.string(),
    payment_method: z.enum(['PARTNER_CREDIT', 'GATEWAY']),
    items: z.array(
      z.object({
        product: z.number().int(),
        variant: z.number().int().nullable(),
        sku: z.string(),
        name: z.string(),
        quantity: z.number().int(),
        unit_price: Decimal,
        line_total: Decimal,
      }),
    ),
    delivery: Delivery.nullable(),
    supplier_ref: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    created_by: Actor.openapi({ description: 'Who made the order (extension)' }),
    acted_by: Actor.openapi({ description: 'Who last set the order moving (extension)' }),
  })
  .openapi('ProductOrder');

const renderCategory = (c: CategoryRow): z.infer<typeof Category> => ({ id: c.id, slug: c.slug, name: c.name });

function renderProduct({ product: p, category, variants }: ProductValue, currency: string, markup: Markup): z.infer<typeof Product> {
  return {
    id: p.id,
    sku: p.sku,
    name: p.name,
    category: renderCategory(category),
    description: p.description,
    destinations: p.destinations,
    price: formatDecimal(markup.sell(p.price), currency),
    currency,
    delivery: p.delivery,
    in_stock: p.stock > 0,
    variants: variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      name: v.name,
      price: formatDecimal(markup.sell(v.price), currency),
      data_gb: v.dataGb,
      validity_days: v.validityDays,
    })),
    default_variant: defaultVariantOf(variants)?.id ?? null,
  };
}

function renderLine(l: PricedLine, currency: string): z.infer<typeof BasketLine> {
  return {
    id: l.id,
    product: l.productId,
    variant: l.variantId,
    name: l.name,
    quantity: l.quantity,
    unit_price: formatDecimal(l.unitPrice, currency),
    line_total: formatDecimal(l.lineTotal, currency),
  };
}

function renderBasket(b: BasketValue): z.infer<typeof Basket> {
  return {
    id: b.id,
    items: b.lines.map((l) => renderLine(l, b.currency)),
    item_count: b.lines.reduce((n, l) => n + l.quantity, 0),
    total_price: formatDecimal(
      sum(
        b.lines.map((l) => l.lineTotal),
        b.currency,
      ),
      b.currency,
    ),
    currency: b.currency,
  };
}

/** A product order as Interface A answers it (the checkout and the product order list). */
export function renderProductOrder(o: OrderWithItems): z.infer<typeof ProductOrder> {
  return {
    id: o.id,
    status: o.status,
    // Spec §2.1 names the total of a product order total_price_irt.
    total_price_irt: formatDecimal(o.totalPrice, o.currency),
    currency: o.currency,
    payment_method: o.paymentMethod,
    items: o.items.map((i) => ({
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
    created_by: actorView(o.createdBy),
    acted_by: actorView(o.actedBy),
  };
}

const AddItem = z
  .object({
    product: bodyId('product id').openapi({ description: 'Product id' }),
    quantity: z
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_LINE_QUANTITY, `must be at most ${MAX_LINE_QUANTITY}`),
    variant: bodyId('variant id').optional().openapi({ description: "Variant id; left out, the product's default_variant" }),
  })
  .openapi('BasketItemRequest');

const Checkout = z
  .object({
    payment_method: z
      .enum(['PARTNER_CREDIT', 'GATEWAY'], { error: 'must be PARTNER_CREDIT or GATEWAY' })
      .default('GATEWAY')
      .openapi({ description: 'PARTNER_CREDIT to pay from the wallet with /api/partners/pay/' }),
    delivery: Delivery.nullish().openapi({ description: 'Where to ship physical products; null or left out for digital ones' }),
  })
  .openapi('CheckoutRequest');

const ProductQuery = PageQuery.extend({
  search: text(100, { blank: true }).optional().openapi({ description: 'Free text over the product name' }),
  category: idString().optional().openapi({ description: 'Category id' }),
});

const tags = ['Travel products'];
const { del, get, post } = partnerOperations(tags);

const routes = {
  list: createRoute({
    ...get('/products/products/', 'Browse products'),
    request: { query: ProductQuery },
    responses: { 200: json(page(Product), 'A page of products'), ...commonErrors },
  }),
  detail: createRoute({
    ...get('/products/products/{id}/', 'Product detail with its variants'),
    request: { params: Id('id') },
    responses: { 200: json(Product, 'The product'), ...commonErrors },
  }),
  categories: createRoute({
    ...get('/products/product-categories/', 'Product categories'),
    responses: { 200: json(z.array(Category), 'The categories'), 401: commonErrors[401] },
  }),
  addItem: createRoute({
    ...post('/products/basket/items/', 'Add a product to the current basket'),
    request: { body: jsonBody(AddItem) },
    responses: { 201: json(z.object({ item: BasketLine, basket: Basket }), 'The item and the basket'), ...commonErrors },
  }),
  basket: createRoute({
    ...get('/products/basket/current', 'The current basket'),
    responses: { 200: json(Basket, 'The basket'), 401: commonErrors[401] },
  }),
  removeItem: createRoute({
    ...del('/products/basket/items/{id}/', 'Remove an item from the current basket'),
    request: { params: Id('id') },
    responses: { 200: json(Basket, 'The basket without the item'), ...commonErrors },
  }),
  checkout: createRoute({
    ...post('/products/checkout/', 'Check out the basket into a pending product order'),
    // Every field has a default: the body may be left out, and the document says so.
    request: { body: { ...jsonBody(Checkout), required: false } },
    responses: { 201: json(ProductOrder, 'The product order; data.id is the product_order_id to pay'), ...commonErrors },
  }),
};

export function productRoutes(deps: ApiDeps) {
  const { db } = deps;
  // The partner's markup on products, in its wallet's currency, resolved once per request (src/domain/money/markup-rules.ts).
  const markupOf = (c: { get(key: 'partner'): Partner }) => ownMarkup(partnerPricing(deps, c.get('partner')), 'products', c.get('partner').id);
  const currencyOf = (c: { get(key: 'partner'): Partner }) => c.get('partner').currency;
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const q = c.req.valid('query');
      const found = await listProducts(db, { search: q.search || undefined, category: q.category ? Number(q.category) : undefined, page: parsePage(q.page) });
      const markup = await markupOf(c);
      return ok(
        c,
        renderPage(found, c.req.url, (p) => renderProduct(p, currencyOf(c), markup)),
      );
    })
    .openapi(routes.detail, async (c) => ok(c, renderProduct(await getProduct(db, Number(c.req.valid('param').id)), currencyOf(c), await markupOf(c))))
    .openapi(routes.categories, async (c) => ok(c, (await listCategories(db)).map(renderCategory)))
    .openapi(routes.addItem, async (c) => {
      const { item, basket } = await addBasketItem(db, c.get('partner').id, c.req.valid('json'), currencyOf(c), await markupOf(c));
      return created(c, { item: renderLine(item, currencyOf(c)), basket: renderBasket(basket) });
    })
    .openapi(routes.basket, async (c) => ok(c, renderBasket(await getCurrentBasket(db, c.get('partner').id, currencyOf(c), await markupOf(c)))))
    .openapi(routes.removeItem, async (c) =>
      ok(c, renderBasket(await removeBasketItem(db, c.get('partner').id, Number(c.req.valid('param').id), currencyOf(c), await markupOf(c)))),
    )
    .openapi(routes.checkout, async (c) => {
      // Without a JSON content type the body is not validated (hono hands over {}): the defaults apply.
      const body = Checkout.parse(c.req.valid('json') ?? {});
      const data = await checkout(
        db,
        c.get('partner').id,
        { paymentMethod: body.payment_method, delivery: body.delivery ?? undefined },
        currencyOf(c),
        await markupOf(c),
      );
      return created(c, renderProductOrder(data));
    });
}
