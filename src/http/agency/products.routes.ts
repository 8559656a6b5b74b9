import { createRoute, z } from '@hono/zod-openapi';
import { PARTS } from '../../health/model';
import * as agency from '../../domain/agency/products';
import { toNumber } from '../../domain/money/money';
import type { Markup } from '../../domain/money/markup';
import { ownMarkup } from '../../domain/money/markup-rules';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import { country, countryFilter, opaque, queryInt, text } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { jsonBody } from '../openapi-document';
import { agencyOperations, agencyRouter, bError, bErrors, bJson } from './router';

const Product = z
  .object({
    product_id: z.string(),
    name: z.string(),
    category: z.enum(['modem', 'sim', 'accessory']).or(z.string()),
    destinations: z.array(z.string()),
    price: z.number(),
    currency: z.string(),
    in_stock: z.boolean(),
  })
  .openapi('TravelProduct');

const Address = z.object({
  street: text(300),
  city: text(100),
  country: country('TR'),
  postal_code: text(20),
});

const Order = z
  .object({
    order_id: z.string(),
    status: z.string(),
    product_id: z.string().nullable(),
    quantity: z.number().int().nullable(),
    total_price: z.number(),
    currency: z.string(),
    delivery_address: Address.nullable().or(z.unknown()),
    agency_ref: z.string().nullable(),
    supplier_ref: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('ProductOrder');

const renderProduct = (p: agency.SellableItem, currency: string, markup: Markup): z.infer<typeof Product> => ({
  product_id: p.sku,
  name: p.name,
  category: p.category,
  destinations: p.destinations,
  price: toNumber(markup.sell(p.priceMinor), currency),
  currency,
  in_stock: p.inStock,
});

function renderOrder({ order, item }: agency.AgencyOrder): z.infer<typeof Order> {
  const details = order.details as { delivery_address?: unknown; agency_ref?: string | null };
  return {
    order_id: String(order.id),
    status: order.status,
    product_id: item?.sku ?? null,
    quantity: item?.quantity ?? null,
    total_price: toNumber(order.totalPrice, order.currency),
    currency: order.currency,
    delivery_address: details.delivery_address ?? null,
    agency_ref: details.agency_ref ?? null,
    supplier_ref: order.supplierRef,
    created_at: order.createdAt.toISOString(),
  };
}

const tags = ['Travel Products'];
const { get, post } = agencyOperations(tags);

const routes = {
  list: createRoute({
    ...get('/products', 'Travel products (each data plan or rental period is a product)'),
    request: {
      query: z.object({
        category: z.enum(['modem', 'sim', 'accessory']).optional(),
        destination: countryFilter().optional(),
        limit: queryInt(1, 100).default(20),
      }),
    },
    responses: { 200: bJson(z.object({ results: z.array(Product), count: z.number().int() }), 'Products'), 401: bErrors[401], 422: bErrors[422] },
  }),
  detail: createRoute({
    ...get('/products/{product_id}', 'A product'),
    request: { params: z.object({ product_id: opaque(100).openapi({ param: { name: 'product_id', in: 'path' } }) }) },
    responses: { 200: bJson(Product.extend({ description: z.string(), delivery: z.string() }), 'The product'), 401: bErrors[401], 404: bErrors[404] },
  }),
  place: createRoute({
    ...post('/products/orders', 'Order: debit the wallet → fulfilment; 201 only when accepted by the supplier'),
    request: {
      body: jsonBody(
        z
          .object({
            product_id: opaque(100),
            quantity: z.number().int().min(1).max(100),
            delivery_address: Address,
            agency_ref: text(100, { blank: true }).optional().openapi({ description: 'Your own reference, for reconciliation' }),
          })
          .openapi('ProductOrderCreate'),
      ),
      headers: z
        .object({
          'idempotency-key': opaque(128)
            .optional()
            .openapi({ param: { name: 'idempotency-key', in: 'header' }, description: 'A retried order with the same key returns the same order (extension)' }),
        })
        .extend(sandboxScenario('agencyOrder').shape),
    },
    responses: {
      201: bJson(Order, 'Accepted'),
      202: bJson(Order, 'Still with the supplier'),
      401: bErrors[401],
      402: bError('Insufficient credit'),
      422: bErrors[422],
      500: bError('The supplier refused; nothing was charged'),
    },
  }),
  order: createRoute({
    ...get('/products/orders/{order_id}', 'An order’s status'),
    request: { params: z.object({ order_id: opaque(20).openapi({ param: { name: 'order_id', in: 'path' } }) }) },
    responses: { 200: bJson(Order, 'The order'), 401: bErrors[401], 404: bErrors[404] },
  }),
};

export function agencyProductRoutes(deps: ApiDeps) {
  const orderDeps = workflowDeps(deps);
  return agencyRouter()
    .openapi(routes.list, async (c) => {
      const markup = await ownMarkup(partnerPricing(deps, c.get('partner')), 'products', c.get('partner').id);
      const results = (await agency.listProducts(deps.db, c.req.valid('query'))).map((p) => renderProduct(p, c.get('partner').currency, markup));
      return c.json({ results, count: results.length }, 200);
    })
    .openapi(routes.order, async (c) => c.json(renderOrder(await agency.getOrder(deps.db, c.get('partner'), c.req.valid('param').order_id)), 200))
    .openapi(routes.detail, async (c) => {
      const p = await agency.productDetail(deps.db, c.req.valid('param').product_id);
      const markup = await ownMarkup(partnerPricing(deps, c.get('partner')), 'products', c.get('partner').id);
      return c.json({ ...renderProduct(p, c.get('partner').currency, markup), description: p.description, delivery: p.delivery }, 200);
    })
    .openapi(routes.place, async (c) => {
      const b = c.req.valid('json');
      const h = c.req.valid('header');
      // The order row comes before its workflow: refuse before writing it while a part is down.
      deps.health.require(PARTS);
      const out = await agency.placeOrder(
        orderDeps,
        c.get('partner'),
        { productId: b.product_id, quantity: b.quantity, deliveryAddress: b.delivery_address, agencyRef: b.agency_ref },
        partnerPricing(deps, c.get('partner')),
        h['idempotency-key'],
        scenarioOf(deps, h),
      );
      return out.done ? c.json(renderOrder(out.order), 201) : c.json(renderOrder(out.order), 202);
    });
}
