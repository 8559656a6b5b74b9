import { createRoute, z } from '@hono/zod-openapi';
import { addBasketItem, checkout, getCurrentBasket, MAX_LINE_QUANTITY, removeBasketItem } from '../../domain/basket';
import { getProduct, listCategories, listProducts } from '../../domain/catalog';
import { parsePage } from '../../domain/pagination';
import type { ApiDeps } from '../deps';
import { created, ok, partnerRouter } from './env';
import { bodyId, country, email, idString, phone, text } from '../vocabulary';
import { commonErrors, Decimal, Id, json, jsonBody, page, PageQuery, partnerOperations } from './schemas';

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
  })
  .openapi('ProductOrder');

const AddItem = z
  .object({
    product: bodyId('product id').openapi({ description: 'Product id' }),
    quantity: z
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_LINE_QUANTITY, `must be at most ${MAX_LINE_QUANTITY}`),
    variant: bodyId('variant id').optional().openapi({ description: 'Variant id; required when the product has variants' }),
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
  const { db, currency } = deps;
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const q = c.req.valid('query');
      const data = await listProducts(
        db,
        { search: q.search || undefined, category: q.category ? Number(q.category) : undefined, page: parsePage(q.page) },
        c.req.url,
        currency,
      );
      return ok(c, data);
    })
    .openapi(routes.detail, async (c) => ok(c, await getProduct(db, Number(c.req.valid('param').id), currency)))
    .openapi(routes.categories, async (c) => ok(c, await listCategories(db)))
    .openapi(routes.addItem, async (c) => {
      const data = await addBasketItem(db, c.get('partner').id, c.req.valid('json'), currency);
      return created(c, data);
    })
    .openapi(routes.basket, async (c) => ok(c, await getCurrentBasket(db, c.get('partner').id, currency)))
    .openapi(routes.removeItem, async (c) => {
      const data = await removeBasketItem(db, c.get('partner').id, Number(c.req.valid('param').id), currency);
      return ok(c, data);
    })
    .openapi(routes.checkout, async (c) => {
      // Without a JSON content type the body is not validated (hono hands over {}): the defaults apply.
      const body = Checkout.parse(c.req.valid('json') ?? {});
      const data = await checkout(db, c.get('partner').id, { paymentMethod: body.payment_method, delivery: body.delivery ?? undefined }, currency);
      return created(c, data);
    });
}
