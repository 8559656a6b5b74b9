/**
 * Any partner's webhooks (docs/webhooks.md): its endpoints, their deliveries, adding,
 * enabling and deleting an endpoint, and sending an event again; each change audited. An
 * unknown partner is not found, as for its wallet (not an empty list).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { requirePartner } from '../../domain/partners';
import {
  adminEndpointView,
  createEndpoint,
  deleteEndpoint,
  enableEndpoint,
  listDeliveries,
  listEndpoints,
  MAX_URL_LENGTH,
  redeliverEvent,
} from '../../domain/webhooks';
import { WEBHOOK_ATTEMPT_FAILURES, WEBHOOK_DELIVERY_STATES } from '../../db/schema';
import { WebhookEndpoint } from '../partner/events.routes';
import { audited } from './actions';
import type { AdminDeps } from './deps';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { conflictResponse, IdParams, json, jsonBody, notFoundResponse } from './schemas';

const { get, post } = adminOperations(['Webhooks']);

const WebhookBody = z
  .object({
    url: z.string({ error: 'url is required' }).max(MAX_URL_LENGTH).openapi({ example: 'https://agency.example/hooks/travel' }),
    event_types: z.array(z.string().max(100)).max(50).optional().openapi({ description: 'Only these types are sent; absent or empty: every type' }),
    interface: z.enum(['a', 'b'], { error: 'must be a or b' }).optional().openapi({ description: 'The style its deliveries are written in; a without one' }),
  })
  .openapi('AdminWebhookEndpointRequest');

const AdminEndpoint = WebhookEndpoint.extend({
  disabled_detail: z.string().nullable().openapi({ description: 'What its disabling found (the answer, the address); its partner is not shown this' }),
}).openapi('AdminWebhookEndpoint');
const CreatedEndpoint = WebhookEndpoint.extend({
  secret: z.string().openapi({ description: 'The signing secret (Standard Webhooks, `whsec_…`), shown only in this answer' }),
}).openapi('AdminCreatedWebhookEndpoint');
const Delivery = z
  .object({
    id: z.number().int(),
    endpoint_id: z.number().int(),
    url: z.string(),
    event_id: z.number().int(),
    event_type: z.string(),
    webhook_id: z.string(),
    state: z.enum(WEBHOOK_DELIVERY_STATES),
    attempts: z.array(
      z.object({
        at: z.string(),
        status_code: z.number().int().nullable(),
        latency_ms: z.number().int().nullable(),
        response_excerpt: z.string().nullable(),
        error: z.string().nullable(),
        failure: z.enum(WEBHOOK_ATTEMPT_FAILURES).nullable(),
      }),
    ),
    delivered_at: z.string().nullable(),
  })
  .openapi('AdminWebhookDelivery');

const partner = IdParams('partner');
const endpoint = IdParams('webhook endpoint');

const routes = {
  list: createRoute({
    ...get('/admin/partners/{id}/webhooks', "A partner's webhook endpoints"),
    request: { params: partner },
    responses: { 200: json(z.object({ endpoints: z.array(AdminEndpoint) }), 'Its endpoints'), ...notFoundResponse },
  }),
  create: createRoute({
    ...post('/admin/partners/{id}/webhooks', 'Add a webhook endpoint for a partner', 'Under the same rules as the partner’s own (docs/webhooks.md).'),
    request: { params: partner, body: jsonBody(WebhookBody) },
    responses: { 201: json(CreatedEndpoint, 'Added'), ...notFoundResponse, ...conflictResponse('The partner has as many endpoints as it may') },
  }),
  deliveries: createRoute({
    ...get('/admin/partners/{id}/webhooks/deliveries', "A partner's latest webhook deliveries"),
    request: { params: partner },
    responses: { 200: json(z.object({ deliveries: z.array(Delivery) }), 'Newest first, each with its attempts'), ...notFoundResponse },
  }),
  delete: createRoute({
    ...post('/admin/webhooks/{id}/delete', 'Delete a webhook endpoint', 'What it was still owed is skipped.'),
    request: { params: endpoint },
    responses: { 200: json(WebhookEndpoint, 'Deleted'), ...notFoundResponse },
  }),
  enable: createRoute({
    ...post('/admin/webhooks/{id}/enable', 'Enable a disabled webhook endpoint again'),
    request: { params: endpoint },
    responses: { 200: json(WebhookEndpoint, 'Enabled'), ...notFoundResponse },
  }),
  redeliver: createRoute({
    ...post('/admin/events/{id}/redeliver', 'Send an event again', 'To every enabled endpoint of its partner that takes its type, with the same webhook-id.'),
    request: { params: IdParams('event') },
    responses: {
      200: json(z.object({ event_id: z.number().int(), endpoints: z.array(z.number().int()) }), 'The endpoints it is sent to'),
      ...notFoundResponse,
      ...conflictResponse('An operators’ event, never delivered'),
    },
  }),
};

export function webhookRoutes(deps: Pick<AdminDeps, 'db' | 'secrets' | 'webhookUrls'>) {
  const { db } = deps;
  const knownPartner = async (c: Context) => (await requirePartner(db, idParam(c, 'partner'))).id;
  return adminRouter()
    .openapi(routes.list, async (c) => c.json({ endpoints: (await listEndpoints(db, await knownPartner(c))).map(adminEndpointView) }, 200))
    .openapi(routes.create, async (c) => {
      const id = idParam(c, 'partner');
      const b = c.req.valid('json');
      return c.json(
        await audited(db, c, (tx) =>
          createEndpoint(tx, { secrets: deps.secrets, urls: deps.webhookUrls }, id, { url: b.url, eventTypes: b.event_types, style: b.interface ?? 'a' }),
        ),
        201,
      );
    })
    .openapi(routes.deliveries, async (c) => c.json({ deliveries: await listDeliveries(db, await knownPartner(c)) }, 200))
    .openapi(routes.delete, async (c) => {
      const id = idParam(c, 'webhook endpoint');
      return c.json(await audited(db, c, (tx) => deleteEndpoint(tx, id)), 200);
    })
    .openapi(routes.enable, async (c) => {
      const id = idParam(c, 'webhook endpoint');
      return c.json(await audited(db, c, (tx) => enableEndpoint(tx, id)), 200);
    })
    .openapi(routes.redeliver, async (c) => {
      const id = idParam(c, 'event');
      const sent = await audited(db, c, (tx) => redeliverEvent(tx, id));
      return c.json({ event_id: sent.eventId, endpoints: sent.endpoints }, 200);
    });
}
