import { Hono } from 'hono';
import { z } from 'zod';
import { AIRLINE_CHANGE_DETECTED, receiveSupplierEvent, type SupplierEvent } from '../domain/supplier-events';
import { unreachablePart } from '../health/model';
import { logError } from '../platform/log';
import { duffelScheduleChangeId } from '../suppliers/adapters/duffel/after-sale';
import { checkDuffelSignature } from '../suppliers/adapters/duffel/webhook-signature';
import { limitBody } from './body-limit';
import type { ApiDeps } from './deps';

/** What the engine reads of a Duffel event; the rest of it is Duffel's. */
const DuffelEvent = z.object({
  id: z.string().min(1).max(200),
  type: z.string().min(1).max(200),
  idempotency_key: z.string().max(200).nullish(),
  data: z
    .object({ object: z.record(z.string(), z.unknown()).optional() })
    .passthrough()
    .optional(),
});
const ref = z.string().min(1).max(200);

/**
 * The airline's change an `order.airline_initiated_change_detected` names, as the after-sale
 * port knows it (duffelScheduleChangeId), and Duffel's order: its object is the order with
 * the change's `aic_id` (v2), or the change itself with its `order_id`; the change's id is
 * also the event's `idempotency_key`.
 */
function announcedChange(e: z.infer<typeof DuffelEvent>): { id: string; order_id: string } | undefined {
  const object = e.data?.object ?? {};
  const orderId = ref.safeParse(object.order_id).data ?? ref.safeParse(object.id).data;
  const aicId =
    ref.safeParse(object.aic_id).data ?? (object.order_id !== undefined ? ref.safeParse(object.id).data : undefined) ?? e.idempotency_key ?? undefined;
  return orderId && aicId ? { id: duffelScheduleChangeId(orderId, aicId), order_id: orderId } : undefined;
}

const refuse = (status: 400 | 401 | 404 | 413 | 503, error: string) => Response.json({ error }, { status });

/**
 * POST /webhooks/duffel: Duffel's webhooks (docs/decisions/schedule-changes.md). Outside both
 * interfaces: Duffel proves itself by signing the body with the webhook's secret
 * (DUFFEL_WEBHOOK_SECRET; unset, the route answers 404). A bad or old signature is 401, a
 * body that is not an event 400, one over the body limit 413; an event is taken once by its id, and answered at once, its
 * work handed to a workflow. 503 when that hand-over failed (Duffel retries it).
 */
export function duffelWebhookRoutes(deps: ApiDeps) {
  const app = new Hono();
  app.post(
    '/webhooks/duffel',
    limitBody((_c, message) => refuse(413, message)),
    async (c) => {
      const secret = deps.duffelWebhookSecret;
      if (!secret) return refuse(404, 'no route for POST /webhooks/duffel');
      const raw = await c.req.text();
      const signed = checkDuffelSignature(raw, c.req.header('x-duffel-signature'), secret, new Date());
      if (!signed.ok) return refuse(401, signed.reason);
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        return refuse(400, 'the body is not JSON');
      }
      const parsed = DuffelEvent.safeParse(json);
      if (!parsed.success) return refuse(400, 'the body is not a Duffel event (id, type, data)');
      const event: SupplierEvent = { id: parsed.data.id, type: parsed.data.type };
      const change = parsed.data.type === AIRLINE_CHANGE_DETECTED ? announcedChange(parsed.data) : undefined;
      if (change) event.change = change;
      try {
        const taken = await receiveSupplierEvent(deps, 'duffel', event);
        return c.json({ received: true, duplicate: taken.duplicate }, 200);
      } catch (err) {
        if (!unreachablePart(err)) logError('a Duffel event could not be handed on; Duffel will send it again', err, { eventId: event.id });
        return refuse(503, 'the event could not be taken now; send it again');
      }
    },
  );
  return app;
}
