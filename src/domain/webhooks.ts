import crypto from 'node:crypto';
import { and, asc, count, desc, eq, inArray, ne, notLike, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { events, partners, webhookAttempts, webhookDeliveries, webhookEndpoints, type WebhookDeliveryState } from '../db/schema';
import { isSealed, sealedKeyId, sealedPrefix, type SecretBox } from '../platform/secret-box';
import { DomainError, notFound, validation } from './errors';
import {
  eventInStyle,
  getEvent,
  isEventType,
  isOperatorEvent,
  publicId,
  recordEvent,
  type EndpointSnapshot,
  type EventRow,
  type EventStyle,
  type EventType,
} from './events';
import { isoOrNull } from './order-view';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** How many live (not deleted) endpoints one partner may have. */
export const MAX_ENDPOINTS_PER_PARTNER = 10;
export const MAX_URL_LENGTH = 2000;

/**
 * A new signing secret, in the Standard Webhooks form (`whsec_` + base64 of 32 random
 * bytes), so the partner's library takes it as it is.
 */
const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;

/**
 * Where an endpoint may point: an absolute http(s) URL without credentials. Whether its host
 * may be a private address is decided when it is called (activities/webhooks.ts), where the
 * name is resolved, so a name that later resolves elsewhere cannot slip through.
 */
export function checkEndpointUrl(raw: string): string {
  if (raw.length > MAX_URL_LENGTH) throw validation('url', `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validation('url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validation('url', 'must be an absolute http or https URL');
  if (url.username || url.password) throw validation('url', 'must not carry credentials; authenticate deliveries by their signature');
  if (url.hash) throw validation('url', 'must not have a #fragment');
  return url.toString();
}

export function checkEventTypes(types: readonly string[]): EventType[] {
  const unknown = types.filter((t) => !isEventType(t));
  if (unknown.length) throw validation('event_types', `unknown event type(s): ${unknown.join(', ')}`);
  return [...new Set(types)] as EventType[];
}

/** An endpoint as its partner and operators see it: never its secret. */
export function endpointView(e: WebhookEndpointRow): EndpointSnapshot {
  return {
    id: e.id,
    url: e.url,
    event_types: e.eventTypes,
    interface: e.style,
    status: e.status,
    disabled_reason: e.disabledReason,
    created_at: e.createdAt.toISOString(),
  };
}

/**
 * Registers an endpoint; the answer is the only time its signing secret is shown. The
 * secret is stored sealed under `secrets` (src/platform/secret-box.ts).
 */
export async function createEndpoint(
  db: DbOrTx,
  secrets: SecretBox,
  partnerId: number,
  input: { url: string; eventTypes?: readonly string[]; style: EventStyle },
): Promise<EndpointSnapshot & { secret: string }> {
  const url = checkEndpointUrl(input.url);
  const eventTypes = checkEventTypes(input.eventTypes ?? []);
  return db.transaction(async (tx) => {
    // Serialises registrations of one partner, so the cap holds under concurrent requests.
    const [partner] = await tx.select({ id: partners.id }).from(partners).where(eq(partners.id, partnerId)).for('update');
    if (!partner) throw notFound(`partner ${partnerId}`);
    const [live] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.partnerId, partnerId), ne(webhookEndpoints.status, 'deleted')));
    if (live!.n >= MAX_ENDPOINTS_PER_PARTNER) {
      throw new DomainError('conflict', `a partner may have at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints; delete one first`);
    }
    const secret = newSecret();
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({ partnerId, url, secret: secrets.seal(secret), eventTypes, style: input.style })
      .returning();
    return { ...endpointView(row!), secret };
  });
}

/**
 * At start-up: seals the signing secrets stored in the clear (before secrets were sealed) and
 * seals again under the current key those sealed under a previous key `secrets` was given (a
 * key being changed), and counts the live endpoints whose secrets are sealed under a key it
 * cannot open (their deliveries fail until the process has that key). Each secret is sealed
 * only if it is still the one read, so processes starting together do not seal one twice.
 */
export async function sealStoredSecrets(db: DbOrTx, secrets: SecretBox): Promise<{ sealed: number; resealed: number; underOtherKeys: number }> {
  // Only the rows with work to do (normally none): not sealed under this key, so in the clear or under another.
  const rows = await db
    .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret, status: webhookEndpoints.status })
    .from(webhookEndpoints)
    .where(notLike(webhookEndpoints.secret, `${sealedPrefix(secrets.keyId)}%`));
  // In the clear (an engine from before sealing), or under a previous key this box was given (a key being changed).
  const canSeal = rows.filter((r) => !isSealed(r.secret) || secrets.opens(sealedKeyId(r.secret)!));
  let sealed = 0;
  let resealed = 0;
  for (const row of canSeal) {
    const done = await db
      .update(webhookEndpoints)
      .set({ secret: secrets.seal(secrets.open(row.secret)) })
      // Only if no other process sealed it meanwhile.
      .where(and(eq(webhookEndpoints.id, row.id), eq(webhookEndpoints.secret, row.secret)))
      .returning({ id: webhookEndpoints.id });
    if (isSealed(row.secret)) resealed += done.length;
    else sealed += done.length;
  }
  // Deleted endpoints are sent nothing more: their secrets are sealed, but not counted.
  const underOtherKeys = rows.filter((r) => r.status !== 'deleted' && isSealed(r.secret) && !secrets.opens(sealedKeyId(r.secret)!)).length;
  return { sealed, resealed, underOtherKeys };
}

/** A partner's endpoints, deleted ones left out, oldest first. */
export async function listEndpoints(db: DbOrTx, partnerId: number): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.partnerId, partnerId), ne(webhookEndpoints.status, 'deleted')))
    .orderBy(asc(webhookEndpoints.id));
}

async function liveEndpoint(db: DbOrTx, endpointId: number, partnerId?: number): Promise<WebhookEndpointRow> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
  // Another partner's endpoint is not found, as an order of another partner is.
  if (!row || row.status === 'deleted' || (partnerId !== undefined && row.partnerId !== partnerId)) throw notFound(`webhook endpoint ${endpointId}`);
  return row;
}

/** Stops deliveries to an endpoint for good: what it was owed is skipped. Its history stays. */
export async function deleteEndpoint(db: DbOrTx, endpointId: number, partnerId?: number): Promise<EndpointSnapshot> {
  return db.transaction(async (tx) => {
    const row = await liveEndpoint(tx, endpointId, partnerId);
    const [deleted] = await tx.update(webhookEndpoints).set({ status: 'deleted', updatedAt: new Date() }).where(eq(webhookEndpoints.id, row.id)).returning();
    await settlePending(tx, row.id, 'skipped');
    return endpointView(deleted!);
  });
}

/** What an endpoint was still owed ends as `state`: skipped when it is deleted, failed when it is disabled. */
const settlePending = (tx: DbOrTx, endpointId: number, state: 'skipped' | 'failed') =>
  tx
    .update(webhookDeliveries)
    .set({ state, updatedAt: new Date() })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.state, 'pending')));

/**
 * An endpoint that kept failing stops receiving: disabled, with the reason, what it was owed
 * marked failed (a redelivery sends it again), and a `webhook_endpoint.disabled` event to its
 * partner's feed and other endpoints. Disabling a disabled endpoint changes nothing.
 */
export async function disableEndpoint(
  db: DbOrTx,
  endpointId: number,
  reason: string,
  /** The delivery that kept failing, and what its step failed with: the last recorded attempt says it better when there is one. */
  evidence: { deliveryId?: number; failure?: string } = {},
): Promise<{ disabled: boolean }> {
  return db.transaction(async (tx) => {
    const [last] =
      evidence.deliveryId === undefined
        ? []
        : await tx.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, evidence.deliveryId)).orderBy(desc(webhookAttempts.id)).limit(1);
    const why = last
      ? last.statusCode !== null
        ? `the last attempt was answered ${last.statusCode}${last.responseExcerpt ? ` (${last.responseExcerpt.slice(0, 200)})` : ''}`
        : `the last attempt failed: ${last.error ?? 'no answer'}`
      : evidence.failure;
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledReason: (why ? `${reason}; ${why}` : reason).slice(0, 1000), updatedAt: new Date() })
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.status, 'enabled')))
      .returning();
    if (!row) return { disabled: false };
    await settlePending(tx, endpointId, 'failed');
    await recordEvent(tx, { type: 'webhook_endpoint.disabled', partnerId: row.partnerId, data: { ...endpointView(row) } });
    return { disabled: true };
  });
}

/** An operator (or the partner) turns a disabled endpoint back on; redeliver what it missed with `redeliverEvent`. */
export async function enableEndpoint(db: DbOrTx, endpointId: number, partnerId?: number): Promise<EndpointSnapshot> {
  const row = await liveEndpoint(db, endpointId, partnerId);
  const [enabled] = await db
    .update(webhookEndpoints)
    .set({ status: 'enabled', disabledReason: null, updatedAt: new Date() })
    .where(eq(webhookEndpoints.id, row.id))
    .returning();
  return endpointView(enabled!);
}

/**
 * Sends an event again to every enabled endpoint of its partner that takes its type, with
 * the same `webhook-id`: a delivered, failed or skipped delivery becomes pending again, and
 * an endpoint registered since gets one too.
 */
export async function redeliverEvent(db: DbOrTx, publicEventId: number): Promise<{ eventId: number; endpoints: number[] }> {
  return db.transaction(async (tx) => {
    const event = await getEvent(tx, publicEventId);
    if (!event) throw notFound(`event ${publicEventId}`);
    if (isOperatorEvent(event.type))
      throw new DomainError('conflict', `event ${publicEventId} is an ${event.type} event: it is for operators and never delivered`);
    const targets = (
      await tx
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.partnerId, event.partnerId), eq(webhookEndpoints.status, 'enabled')))
    ).filter((e) => e.eventTypes.length === 0 || e.eventTypes.includes(event.type));
    if (!targets.length) return { eventId: publicEventId, endpoints: [] };
    const ids = targets.map((e) => e.id);
    await tx
      .insert(webhookDeliveries)
      .values(ids.map((endpointId) => ({ endpointId, eventId: event.id })))
      .onConflictDoUpdate({
        target: [webhookDeliveries.endpointId, webhookDeliveries.eventId],
        set: { state: 'pending', relayed: false, updatedAt: new Date() },
      });
    return { eventId: publicEventId, endpoints: ids };
  });
}

// ---- what the delivery workflow works from (activities/webhooks.ts) ----

/** The endpoint's next deliveries, in event order (so each order's events arrive in order). */
export async function pendingDeliveries(
  db: DbOrTx,
  endpointId: number,
  limit: number,
): Promise<{ status: WebhookEndpointRow['status'] | 'missing'; deliveryIds: number[] }> {
  const [endpoint] = await db.select({ status: webhookEndpoints.status }).from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
  if (!endpoint) return { status: 'missing', deliveryIds: [] };
  if (endpoint.status !== 'enabled') return { status: endpoint.status, deliveryIds: [] };
  // In the order the events committed, as the feed shows them (and so each order's in the order it moved).
  const rows = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.state, 'pending')))
    .orderBy(asc(events.position))
    .limit(limit);
  return { status: 'enabled', deliveryIds: rows.map((r) => r.id) };
}

export interface DeliveryJob {
  deliveryId: number;
  state: WebhookDeliveryState;
  endpoint: WebhookEndpointRow;
  event: EventRow;
}

/** Deliveries with their endpoint and event. */
const deliveriesWithTheirs = (db: DbOrTx) =>
  db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: events })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .$dynamic();

export async function deliveryJob(db: DbOrTx, deliveryId: number): Promise<DeliveryJob | undefined> {
  const [row] = await deliveriesWithTheirs(db).where(eq(webhookDeliveries.id, deliveryId));
  return row && { deliveryId, state: row.delivery.state, endpoint: row.endpoint, event: row.event };
}

/** The body of a delivery: the event as the feed of the interface the endpoint was registered through shows it. */
export const deliveryBody = (event: EventRow, style: EventStyle) => JSON.stringify(eventInStyle(event, style));
/** The `webhook-id` of every delivery of an event, first or again: receivers de-duplicate on it. */
export const webhookId = (event: Pick<EventRow, 'id' | 'position'>) => `evt_${publicId(event)}`;

export interface AttemptRecord {
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  delivered: boolean;
}

/** Records one HTTP attempt, and the delivery as delivered when the receiver took it. */
export async function recordAttempt(db: DbOrTx, deliveryId: number, a: AttemptRecord): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      deliveryId,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt?.slice(0, 500) ?? null,
      error: a.error?.slice(0, 500) ?? null,
    });
    const now = new Date();
    await tx
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        updatedAt: now,
        ...(a.delivered ? { state: 'delivered' as const, deliveredAt: now } : {}),
      })
      .where(eq(webhookDeliveries.id, deliveryId));
  });
}

// ---- the relay (worker/webhook-relay.ts) ----

/**
 * Deliveries their endpoint's workflow has not been woken for, by endpoint. The relay wakes
 * each endpoint, then marks exactly these rows relayed: a row committed in between stays
 * unrelayed for the next round, so no delivery waits unwoken.
 */
export async function unrelayedDeliveries(db: DbOrTx, limit = 500): Promise<Map<number, number[]>> {
  const rows = await db
    .select({ id: webhookDeliveries.id, endpointId: webhookDeliveries.endpointId })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.state, 'pending'), eq(webhookDeliveries.relayed, false)))
    .limit(limit);
  const byEndpoint = new Map<number, number[]>();
  for (const r of rows) byEndpoint.set(r.endpointId, [...(byEndpoint.get(r.endpointId) ?? []), r.id]);
  return byEndpoint;
}

export async function markRelayed(db: DbOrTx, deliveryIds: number[]): Promise<void> {
  await db.update(webhookDeliveries).set({ relayed: true }).where(inArray(webhookDeliveries.id, deliveryIds));
}

// ---- operators' and partners' view of deliveries ----

/** A partner's latest deliveries, newest first, each with its attempts. */
export async function listDeliveries(db: DbOrTx, partnerId: number, limit = 50) {
  const rows = await deliveriesWithTheirs(db).where(eq(webhookEndpoints.partnerId, partnerId)).orderBy(desc(webhookDeliveries.id)).limit(limit);
  const attempts = rows.length
    ? await db
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.deliveryId,
            rows.map((r) => r.delivery.id),
          ),
        )
        .orderBy(asc(webhookAttempts.id))
    : [];
  return rows.map(({ delivery, endpoint, event }) => ({
    id: delivery.id,
    endpoint_id: endpoint.id,
    url: endpoint.url,
    event_id: publicId(event),
    event_type: event.type,
    webhook_id: webhookId(event),
    state: delivery.state,
    attempts: attempts
      .filter((a) => a.deliveryId === delivery.id)
      .map((a) => ({
        at: a.at.toISOString(),
        status_code: a.statusCode,
        latency_ms: a.latencyMs,
        response_excerpt: a.responseExcerpt,
        error: a.error,
      })),
    delivered_at: isoOrNull(delivery.deliveredAt),
  }));
}
