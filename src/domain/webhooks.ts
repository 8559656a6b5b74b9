import crypto from 'node:crypto';
import { and, asc, count, desc, eq, inArray, ne, notLike, sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../db/client';
import { events, partners, webhookAttempts, webhookDeliveries, webhookEndpoints, type WebhookAttemptFailure, type WebhookDeliveryState } from '../db/schema';
import { isBound, isSealed, sealedKeyId, sealedPrefix, type SecretBox } from '../platform/secret-box';
import { checkWebhookTarget, WebhookUrlRefused, type WebhookUrlPolicy } from '../platform/webhook-address';
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

/** What an endpoint's signing secret is sealed for: it opens for that endpoint only. */
export const secretOwner = (endpointId: number) => `webhook-endpoint:${endpointId}`;

/** How long registering an endpoint waits for its host's name to resolve. */
export const RESOLVE_TIMEOUT_MS = 3000;

/** What registering an endpoint needs: the key its secret is sealed under, and where endpoints may point (src/platform/webhook-address.ts). */
export interface EndpointDeps {
  secrets: SecretBox;
  urls: WebhookUrlPolicy;
}

/**
 * The shape of an endpoint's URL: absolute http(s), without credentials or a fragment.
 * Where it may point is checkEndpointTarget's.
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

/**
 * Where an endpoint may point: https (http in the sandbox), and its host a public address,
 * its name resolved once here, within a bound, unless an operator allowed the host. The
 * answer names the rule, never an address. The name is resolved again at each delivery
 * (activities/webhooks.ts), so a name that later answers a private address is refused there.
 */
export async function checkEndpointTarget(url: string, urls: WebhookUrlPolicy): Promise<void> {
  try {
    await checkWebhookTarget(new URL(url), urls, RESOLVE_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof WebhookUrlRefused) throw validation('url', err.message);
    throw err;
  }
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

/** An endpoint as operators see it: with what its disabling found (the answer, the address), which its partner is not shown. */
export const adminEndpointView = (e: WebhookEndpointRow) => ({ ...endpointView(e), disabled_detail: e.disabledDetail });

/**
 * Registers an endpoint; the answer is the only time its signing secret is shown. The
 * secret is stored sealed under `deps.secrets` for the endpoint (src/platform/secret-box.ts).
 */
export async function createEndpoint(
  db: DbOrTx,
  deps: EndpointDeps,
  partnerId: number,
  input: { url: string; eventTypes?: readonly string[]; style: EventStyle },
): Promise<EndpointSnapshot & { secret: string }> {
  const url = checkEndpointUrl(input.url);
  const eventTypes = checkEventTypes(input.eventTypes ?? []);
  await checkEndpointTarget(url, deps.urls);
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
    // The id first: the secret is sealed for it.
    const [{ id }] = rowsOf<{ id: number }>(await tx.execute(sql`SELECT nextval(pg_get_serial_sequence('webhook_endpoints', 'id'))::int AS id`)) as [
      { id: number },
    ];
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({ id, partnerId, url, secret: deps.secrets.seal(secret, secretOwner(id)), eventTypes, style: input.style })
      .returning();
    return { ...endpointView(row!), secret };
  });
}

/**
 * At start-up, in one transaction: seals for its endpoint, under the current key, every
 * signing secret that is not so sealed yet: one stored in the clear, one sealed for no
 * endpoint (by an engine that did not bind them), one sealed under a previous key `secrets`
 * was given (a key being changed). Counts the live endpoints whose secrets are sealed under
 * a key it cannot open (their deliveries fail until the process has that key). Each secret
 * is sealed only if it is still the one read, so processes starting together do not seal one
 * twice, and a second run finds nothing to do. A value that does not open (altered, or
 * sealed for another endpoint) is left as it is: its deliveries fail, and it is counted.
 */
export async function sealStoredSecrets(
  db: DbOrTx,
  secrets: SecretBox,
): Promise<{ sealed: number; resealed: number; underOtherKeys: number; unopenable: number }> {
  return db.transaction(async (tx) => {
    // Only the rows with work to do (normally none): not sealed for their endpoint under this key.
    const rows = await tx
      .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret, status: webhookEndpoints.status })
      .from(webhookEndpoints)
      .where(notLike(webhookEndpoints.secret, `${sealedPrefix(secrets.keyId, true)}%`));
    // In the clear, or sealed under a key this box has (its own for no endpoint, or a previous one).
    const canSeal = rows.filter((r) => !isSealed(r.secret) || secrets.opens(sealedKeyId(r.secret)!));
    let sealed = 0;
    let resealed = 0;
    let unopenable = 0;
    for (const row of canSeal) {
      let plain: string;
      try {
        plain = isSealed(row.secret) ? secrets.open(row.secret, isBound(row.secret) ? secretOwner(row.id) : undefined) : row.secret;
      } catch {
        if (row.status !== 'deleted') unopenable++;
        continue;
      }
      const done = await tx
        .update(webhookEndpoints)
        .set({ secret: secrets.seal(plain, secretOwner(row.id)) })
        // Only if no other process sealed it meanwhile.
        .where(and(eq(webhookEndpoints.id, row.id), eq(webhookEndpoints.secret, row.secret)))
        .returning({ id: webhookEndpoints.id });
      if (isSealed(row.secret)) resealed += done.length;
      else sealed += done.length;
    }
    // Deleted endpoints are sent nothing more: their secrets are sealed, but not counted.
    const underOtherKeys = rows.filter((r) => r.status !== 'deleted' && isSealed(r.secret) && !secrets.opens(sealedKeyId(r.secret)!)).length;
    return { sealed, resealed, underOtherKeys, unopenable };
  });
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

/** What a partner is told of an attempt that got no answer: the kind of failure, never the address or the error. */
const FAILURE_WORDS: Record<WebhookAttemptFailure, string> = {
  address_not_allowed: "the endpoint's address is not allowed",
  timeout: 'the endpoint did not answer in time',
  unreachable: 'the endpoint could not be reached',
};

/**
 * An endpoint that kept failing stops receiving: disabled, with the reason, what it was owed
 * marked failed (a redelivery sends it again), and a `webhook_endpoint.disabled` event to its
 * partner's feed and other endpoints. Disabling a disabled endpoint changes nothing. The
 * reason its partner sees names the status code or the kind of failure; what the endpoint
 * answered, the address it resolved to and the error go to `disabled_detail`, for operators.
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
    // An address refused is not retried: the delivery was never sent, whatever the workflow's reason says of time.
    const headline = last?.failure === 'address_not_allowed' ? `delivery ${evidence.deliveryId} was not sent` : reason;
    const [told, detail] = last
      ? last.statusCode !== null
        ? [`the last attempt was answered ${last.statusCode}`, last.responseExcerpt ? `the answer began: ${last.responseExcerpt.slice(0, 200)}` : null]
        : [`the last attempt failed: ${FAILURE_WORDS[last.failure ?? 'unreachable']}`, last.error]
      : evidence.failure
        ? ['no attempt reached the endpoint', evidence.failure]
        : [null, null];
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        status: 'disabled',
        disabledReason: told ? `${headline}; ${told}` : headline,
        disabledDetail: detail?.slice(0, 1000) ?? null,
        updatedAt: new Date(),
      })
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
    .set({ status: 'enabled', disabledReason: null, disabledDetail: null, updatedAt: new Date() })
    .where(eq(webhookEndpoints.id, row.id))
    .returning();
  return endpointView(enabled!);
}

/**
 * Sends an event again to every enabled endpoint of its partner that takes its type, with
 * the same `webhook-id`: a delivered, failed or skipped delivery becomes pending again, and
 * an endpoint registered since gets one too.
 */
export async function redeliverEvent(db: DbOrTx, publicEventId: number, partnerId?: number): Promise<{ eventId: number; endpoints: number[] }> {
  return db.transaction(async (tx) => {
    const event = await getEvent(tx, publicEventId);
    // A partner asking sees only its own events, and never the operators' ones.
    if (!event || (partnerId !== undefined && (event.partnerId !== partnerId || isOperatorEvent(event.type)))) throw notFound(`event ${publicEventId}`);
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
  /** Without an answer: what kind of failure (the partner is told this; `error` is for operators). */
  failure?: WebhookAttemptFailure;
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
      failure: a.failure ?? null,
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

// ---- operators' view of deliveries (partners are not shown attempts) ----

/** A partner's latest deliveries, newest first, each with its attempts. */
/**
 * A partner's latest deliveries as the partner reads them: each attempt's status code or kind
 * of failure, never what the endpoint answered or the error behind it (docs/decisions/webhook-security.md).
 */
export async function partnerDeliveries(db: DbOrTx, partnerId: number) {
  return (await listDeliveries(db, partnerId)).map((d) => ({
    ...d,
    attempts: d.attempts.map((a) => ({ at: a.at, status_code: a.status_code, latency_ms: a.latency_ms, failure: a.failure })),
  }));
}

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
        failure: a.failure,
      })),
    delivered_at: isoOrNull(delivery.deliveredAt),
  }));
}
