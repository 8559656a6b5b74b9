import { createRoute, z } from '@hono/zod-openapi';
import { agencyEndpointView, agencyEventView, EVENT_TYPE_NAMES, listEvents, type EndpointSnapshot } from '../../domain/events';
import { rowIdOf } from '../../domain/ids';
import { createEndpoint, deleteEndpoint, listEndpoints, endpointView, MAX_ENDPOINTS_PER_PARTNER, MAX_URL_LENGTH } from '../../domain/webhooks';
import type { ApiDeps } from '../deps';
import { opaque, queryInt } from '../vocabulary';
import { jsonBody } from '../openapi-document';
import { agencyOperations, agencyRouter, bError, bErrors, bJson } from './router';

const { get, post, del } = agencyOperations(['Events and Webhooks']);

const Webhook = z
  .object({
    webhook_id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()).openapi({ description: 'The event types sent to it; empty: every type' }),
    interface: z.enum(['a', 'b']).openapi({ description: "The interface it was registered through: its deliveries are written in that interface's style" }),
    status: z.enum(['enabled', 'disabled', 'deleted']),
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Webhook');

const AgencyOrderSnapshot = z
  .object({
    order_id: z.string(),
    service: z.enum(['product', 'hotel', 'flight', 'tour', 'residence', 'visa']),
    status: z.string(),
    total_price: z.number(),
    currency: z.string(),
    supplier_ref: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('OrderSnapshot');

const LowBalance = z
  .object({
    wallet: z
      .object({ balance: z.number(), credit_limit: z.number(), available: z.number(), currency: z.string(), updated_at: z.string() })
      .openapi({ description: 'The wallet as it was just after the movement that crossed the threshold (available = balance + credit_limit)' }),
    threshold: z.number().int().openapi({ example: 20, description: 'The threshold crossed: a whole percent of credit left (available / credit limit)' }),
  })
  .openapi('AgencyLowBalance');

const Event = z
  .object({
    event_id: z
      .string()
      .openapi({ description: 'Increasing; pass the last one you processed as `after`. `evt_<event_id>` is the webhook-id of its deliveries' }),
    type: z.string().openapi({ example: 'booking.cancelled' }),
    created_at: z.string(),
    order_id: z.string().nullable().openapi({ description: 'The order (a hotel booking’s or a product order’s order_id)' }),
    data: z.union([AgencyOrderSnapshot, Webhook, LowBalance]).openapi({
      description:
        'The order as it was at that moment (or, for webhook_endpoint.disabled, the webhook; for wallet.low_balance, the wallet and the threshold); deliveries to webhooks registered here carry the same object',
    }),
  })
  .openapi('AgencyEvent');

const renderWebhook = (e: EndpointSnapshot): z.infer<typeof Webhook> => agencyEndpointView(e);

const eventType = z.enum(EVENT_TYPE_NAMES, { error: `must be one of ${EVENT_TYPE_NAMES.join(', ')}` });

const routes = {
  feed: createRoute({
    ...get('/events', 'Events, oldest first', 'What happened to your bookings and orders; catch up by passing the last `event_id` you processed as `after`.'),
    request: {
      query: z.object({
        after: z
          .string()
          .regex(/^\d{1,10}$/, 'must be an event id (a non-negative integer)')
          .optional()
          .openapi({ param: { name: 'after', in: 'query' }, description: 'Events after this one (absent: from the first)' }),
        type: eventType.optional().openapi({ param: { name: 'type', in: 'query' } }),
        limit: queryInt(1, 100).default(20),
      }),
    },
    responses: {
      200: bJson(z.object({ results: z.array(Event), count: z.number().int(), has_more: z.boolean() }), 'Events'),
      401: bErrors[401],
      422: bErrors[422],
    },
  }),
  create: createRoute({
    ...post(
      '/webhooks',
      'Register a webhook',
      `Events are POSTed to the URL signed per Standard Webhooks; see the partner API's webhooks for the rules. At most ${MAX_ENDPOINTS_PER_PARTNER} webhooks.`,
    ),
    request: {
      body: jsonBody(
        z
          .object({
            url: z.string().min(1).max(MAX_URL_LENGTH).openapi({ example: 'https://agency.example/hooks/travel' }),
            event_types: z.array(eventType).max(EVENT_TYPE_NAMES.length).optional(),
          })
          .openapi('WebhookCreate'),
      ),
    },
    responses: {
      201: bJson(Webhook.extend({ secret: z.string().openapi({ description: 'The signing secret (`whsec_…`), shown only now' }) }), 'Registered'),
      401: bErrors[401],
      409: bError('Already at the webhook limit'),
      422: bErrors[422],
    },
  }),
  list: createRoute({
    ...get('/webhooks', 'Your webhooks'),
    responses: { 200: bJson(z.object({ results: z.array(Webhook), count: z.number().int() }), 'Webhooks'), 401: bErrors[401] },
  }),
  remove: createRoute({
    ...del('/webhooks/{webhook_id}', 'Delete a webhook'),
    request: { params: z.object({ webhook_id: opaque(20).openapi({ param: { name: 'webhook_id', in: 'path' } }) }) },
    responses: { 200: bJson(Webhook, 'Deleted'), 401: bErrors[401], 404: bErrors[404] },
  }),
};

/** Interface B's events feed and webhooks, over the same events and endpoints as Interface A's. */
export function agencyEventRoutes(deps: ApiDeps) {
  return agencyRouter()
    .openapi(routes.feed, async (c) => {
      const q = c.req.valid('query');
      const found = await listEvents(deps.db, c.get('partner'), { after: Number(q.after ?? 0), type: q.type, limit: q.limit });
      const results = found.events.map(agencyEventView);
      return c.json({ results, count: results.length, has_more: found.total > results.length }, 200);
    })
    .openapi(routes.create, async (c) => {
      const b = c.req.valid('json');
      const made = await createEndpoint(deps.db, { secrets: deps.secrets, urls: deps.webhookUrls }, c.get('partner').id, {
        url: b.url,
        eventTypes: b.event_types,
        style: 'b',
      });
      return c.json({ ...renderWebhook(made), secret: made.secret }, 201);
    })
    .openapi(routes.list, async (c) => {
      const results = (await listEndpoints(deps.db, c.get('partner').id)).map((e) => renderWebhook(endpointView(e)));
      return c.json({ results, count: results.length }, 200);
    })
    .openapi(routes.remove, async (c) =>
      c.json(renderWebhook(await deleteEndpoint(deps.db, rowIdOf(c.req.valid('param').webhook_id, 'webhook'), c.get('partner').id)), 200),
    );
}
