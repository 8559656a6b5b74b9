import { createRoute, z } from '@hono/zod-openapi';
import { EVENT_TYPE_NAMES, EVENT_TYPES, eventView, listEvents } from '../../domain/events';
import { rowIdOf } from '../../domain/ids';
import { PAGE_SIZE } from '../../domain/pagination';
import {
  createEndpoint,
  deleteEndpoint,
  endpointView,
  listEndpoints,
  MAX_ENDPOINTS_PER_PARTNER,
  MAX_URL_LENGTH,
  partnerDeliveries,
  redeliverEvent,
} from '../../domain/webhooks';
import { WEBHOOK_ATTEMPT_FAILURES, WEBHOOK_DELIVERY_STATES } from '../../db/schema';
import type { ApiDeps } from '../deps';
import { created, ok, partnerRouter } from './router';
import { commonErrors, errorResponse, Id, json, jsonBody, partnerOperations, TravelOrder, Wallet } from './schemas';
import { page } from './paging';

const { get, post, del } = partnerOperations(['Events and webhooks']);

const EVENT_TYPE_LIST = EVENT_TYPE_NAMES.map((t) => `\`${t}\`: ${EVENT_TYPES[t]}`).join('; ');

export const WebhookEndpoint = z
  .object({
    id: z.number().int(),
    url: z.string(),
    event_types: z.array(z.string()).openapi({ description: 'The event types sent to it; empty: every type' }),
    interface: z.enum(['a', 'b']).openapi({ description: "The interface it was registered through: its deliveries are written in that interface's style" }),
    status: z.enum(['enabled', 'disabled', 'deleted']),
    disabled_reason: z.string().nullable().openapi({ description: 'Why deliveries stopped, when the endpoint kept failing' }),
    created_at: z.string(),
  })
  .openapi('WebhookEndpoint');

const CreatedEndpoint = WebhookEndpoint.extend({
  secret: z.string().openapi({
    description: 'The signing secret (Standard Webhooks, `whsec_…`). Shown only in this answer: keep it to verify deliveries.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).openapi('CreatedWebhookEndpoint');

export const LowBalance = z
  .object({
    wallet: Wallet.openapi({ description: 'The wallet as it was just after the movement that crossed the threshold' }),
    threshold: z.number().int().openapi({ example: 20, description: 'The threshold crossed: a whole percent of credit left (available / credit limit)' }),
  })
  .openapi('LowBalance');

export const Event = z
  .object({
    id: z.number().int().openapi({ description: 'Increasing; the feed cursor, and `evt_<id>` is the webhook-id of its deliveries' }),
    type: z.string().openapi({ example: 'order.completed' }),
    created_at: z.string(),
    order_id: z.number().int().nullable(),
    data: z.union([TravelOrder, WebhookEndpoint, LowBalance]).openapi({
      description: 'The order as it was at that moment (or, for webhook_endpoint.disabled, the endpoint; for wallet.low_balance, the wallet and the threshold)',
    }),
  })
  .openapi('Event');

const DeliveryAttempt = z
  .object({
    at: z.string(),
    status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null when it did not answer" }),
    latency_ms: z.number().int(),
    failure: z
      .enum(WEBHOOK_ATTEMPT_FAILURES)
      .nullable()
      .openapi({ description: 'Without an answer: why (the address is not allowed, it timed out, or it could not be reached)' }),
  })
  .openapi('WebhookDeliveryAttempt');

export const WebhookDelivery = z
  .object({
    id: z.number().int(),
    endpoint_id: z.number().int(),
    url: z.string(),
    event_id: z.number().int().openapi({ description: 'The event (GET /partners/events/); redeliver it with POST /partners/events/{id}/redeliver/' }),
    event_type: z.string(),
    webhook_id: z.string().openapi({ example: 'evt_42', description: 'The `webhook-id` header of every delivery of the event, first or again' }),
    state: z.enum(WEBHOOK_DELIVERY_STATES),
    attempts: z.array(DeliveryAttempt).openapi({ description: 'Every attempt, oldest first' }),
    delivered_at: z.string().nullable(),
  })
  .openapi('WebhookDelivery');

const EndpointBody = z
  .object({
    url: z
      .string()
      .min(1)
      .max(MAX_URL_LENGTH)
      .openapi({ example: 'https://agency.example/hooks/travel', description: 'An absolute http(s) URL, without credentials' }),
    event_types: z
      .array(z.enum(EVENT_TYPE_NAMES, { error: `must be one of ${EVENT_TYPE_NAMES.join(', ')}` }))
      .max(EVENT_TYPE_NAMES.length)
      .optional()
      .openapi({ description: 'Only these types are sent; absent or empty: every type' }),
  })
  .openapi('WebhookEndpointRequest');

const FeedQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,10}$/, 'must be an event id (a non-negative integer)')
    .optional()
    .openapi({ param: { name: 'after', in: 'query' }, example: '0', description: 'Events after this one (absent: from the first)' }),
  type: z
    .enum(EVENT_TYPE_NAMES, { error: `must be one of ${EVENT_TYPE_NAMES.join(', ')}` })
    .optional()
    .openapi({ param: { name: 'type', in: 'query' }, description: 'Only events of this type' }),
  order_id: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, 'must be an order id (a positive integer)')
    .optional()
    .openapi({ param: { name: 'order_id', in: 'query' }, example: '42', description: 'Extension: only the events of this order (its status history)' }),
});

const routes = {
  feed: createRoute({
    ...get(
      '/partners/events/',
      'Events, oldest first, after a cursor',
      `What happened to your orders, ${PAGE_SIZE} a page, oldest first: catch up after downtime by passing the last id you processed as \`after\`; \`next\` is the URL of the following page (null when you are up to date), \`total_count\` how many match after the cursor. Types: ${EVENT_TYPE_LIST}.`,
    ),
    request: { query: FeedQuery },
    responses: { 200: json(page(Event), 'A page of events'), ...commonErrors },
  }),
  createEndpoint: createRoute({
    ...post(
      '/partners/webhooks/',
      'Register a webhook endpoint',
      `Events are POSTed to it as JSON (the same object as in the feed), signed per Standard Webhooks (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`), each order's events in order; any 2xx answer takes one. A failed delivery is retried with exponential backoff for up to 3 days, then the endpoint is disabled (a \`webhook_endpoint.disabled\` event says so). At most ${MAX_ENDPOINTS_PER_PARTNER} endpoints.`,
    ),
    request: { body: jsonBody(EndpointBody) },
    responses: { 201: json(CreatedEndpoint, 'Registered; the secret is shown only now'), ...commonErrors, 409: errorResponse('Already at the endpoint limit') },
  }),
  listEndpoints: createRoute({
    ...get('/partners/webhooks/', 'Your webhook endpoints'),
    responses: { 200: json(page(WebhookEndpoint), 'Your endpoints (one page)'), ...commonErrors },
  }),
  deliveries: createRoute({
    ...get(
      '/partners/webhooks/deliveries/',
      'Your latest webhook deliveries (extension)',
      'The 50 newest deliveries to your endpoints, newest first, each with every attempt at it: what the receiver answered, or why it could not.',
    ),
    responses: { 200: json(page(WebhookDelivery), 'The latest deliveries (one page)'), ...commonErrors },
  }),
  redeliver: createRoute({
    ...post(
      '/partners/events/{id}/redeliver/',
      'Send an event again (extension)',
      'To every enabled endpoint of yours that takes its type, with the same `webhook-id`: a delivered, failed or skipped delivery is sent again, and an endpoint registered since gets it too.',
    ),
    request: { params: Id('id') },
    responses: {
      200: json(
        z
          .object({ event_id: z.number().int(), endpoints: z.array(z.number().int()).openapi({ description: 'The endpoints it is sent to' }) })
          .openapi('Redelivery'),
        'Sent again',
      ),
      ...commonErrors,
    },
  }),
  deleteEndpoint: createRoute({
    ...del('/partners/webhooks/{id}/', 'Delete a webhook endpoint', 'Nothing more is sent to it; what it was still owed is dropped.'),
    request: { params: Id('id') },
    responses: { 200: json(WebhookEndpoint, 'Deleted'), ...commonErrors },
  }),
};

/** Interface A's events feed and webhook endpoints (docs/webhooks.md). */
export function eventRoutes(deps: ApiDeps) {
  return partnerRouter()
    .openapi(routes.feed, async (c) => {
      const q = c.req.valid('query');
      const found = await listEvents(deps.db, c.get('partner'), {
        after: Number(q.after ?? 0),
        type: q.type,
        limit: PAGE_SIZE,
        orderId: q.order_id === undefined ? undefined : Number(q.order_id),
      });
      const last = found.events.at(-1);
      const next = new URL(c.req.url);
      if (last) next.searchParams.set('after', String(last.id));
      return ok(c, {
        current_page: 1,
        total_pages: Math.max(1, Math.ceil(found.total / PAGE_SIZE)),
        total_count: found.total,
        next: last && found.total > found.events.length ? next.toString() : null,
        previous: null,
        results: found.events.map(eventView),
      });
    })
    .openapi(routes.createEndpoint, async (c) => {
      const body = c.req.valid('json');
      return created(
        c,
        await createEndpoint(deps.db, { secrets: deps.secrets, urls: deps.webhookUrls }, c.get('partner').id, {
          url: body.url,
          eventTypes: body.event_types,
          style: 'a',
        }),
      );
    })
    .openapi(routes.listEndpoints, async (c) => {
      const rows = (await listEndpoints(deps.db, c.get('partner').id)).map(endpointView);
      return ok(c, { current_page: 1, total_pages: 1, total_count: rows.length, next: null, previous: null, results: rows });
    })
    .openapi(routes.deliveries, async (c) => {
      const rows = await partnerDeliveries(deps.db, c.get('partner').id);
      return ok(c, { current_page: 1, total_pages: 1, total_count: rows.length, next: null, previous: null, results: rows });
    })
    .openapi(routes.redeliver, async (c) => {
      const sent = await redeliverEvent(deps.db, rowIdOf(c.req.valid('param').id, 'event'), c.get('partner').id);
      return ok(c, { event_id: sent.eventId, endpoints: sent.endpoints });
    })
    .openapi(routes.deleteEndpoint, async (c) =>
      ok(c, await deleteEndpoint(deps.db, rowIdOf(c.req.valid('param').id, 'webhook endpoint'), c.get('partner').id)),
    );
}
