import { and, asc, eq } from 'drizzle-orm';
import type { Pool, PoolClient } from 'pg';
import { Webhook } from 'standardwebhooks';
import { toCommand } from '../../src/cli/admin';
import crypto from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { webhookActivities } from '../../activities/webhooks';
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../src/db/schema';
import { sealStoredSecrets, secretOwner } from '../../src/domain/webhooks';
import { secretBox, type SecretBox } from '../../src/platform/secret-box';
import { recordNeedsAttention } from '../../src/domain/events';
import { adminClient, call, newPartner } from '../support/clients';
import { startReceiver, type Receiver } from '../support/receiver';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { arm, disarmAll, faultInjector, undefinedColumn } from '../support/faults';
import { recordHistory } from '../support/histories';
import { webhookWorkflowId } from '../../workflows/webhook.types';

/**
 * Events and webhooks (issue 16): the outbox written with each order move, the feed, and
 * delivery by one workflow per endpoint, verified by the third-party `standardwebhooks`
 * library in a real HTTP receiver. Retries here are quick: 200 ms doubling to 1 s, and an
 * event not taken within 4 s disables its endpoint; a delivery workflow with nothing owed
 * ends after 1.5 s.
 */
let stack: TestStack;
useStack((s) => (stack = s), { webhookRetry: { giveUpAfterMs: 4000 }, webhookIdleMs: 1500, activityInterceptors: [faultInjector] });
afterEach(disarmAll);

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

/** A partner with an endpoint pointing at a fresh receiver. */
async function subscribed(opts: { eventTypes?: string[] } = {}) {
  const p = await newPartner(stack);
  const r = await receiver();
  const made = await p.api.post('/api/partners/webhooks/', { url: r.url, ...(opts.eventTypes ? { event_types: opts.eventTypes } : {}) });
  expect(made.status).toBe(201);
  r.setSecret(made.body.data.secret);
  return { ...p, receiver: r, endpoint: made.body.data as { id: number; secret: string } };
}

async function paidProductOrder(api: Awaited<ReturnType<typeof newPartner>>['api'], key: string, headers: Record<string, string> = {}) {
  const order = await api.productOrder();
  const paid = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: key }, headers);
  return { order, paid };
}

/** Waits until the engine has recorded the partner's latest delivery as delivered: the receiver's 2xx comes a moment before the engine writes it down. */
async function recordedDelivered(partnerId: number) {
  const latest = async () => (await adminClient(stack).get(`/admin/partners/${partnerId}/webhooks/deliveries`)).body.deliveries[0]?.state;
  await waitFor(async () => (await latest()) === 'delivered', 'the delivery recorded as delivered');
}

const typesOf = (list: { type: string; order_id: number | null }[], orderId: number) => list.filter((e) => e.order_id === orderId).map((e) => e.type);

describe('events and webhooks', () => {
  it('registers an endpoint whose secret is shown once; validates what it is given', async () => {
    const { api } = await newPartner(stack);
    const made = await api.post('/api/partners/webhooks/', { url: 'https://agency.example/hooks', event_types: ['order.completed'] });
    expect(made.status).toBe(201);
    expect(made.body.data).toEqual({
      id: expect.any(Number),
      url: 'https://agency.example/hooks',
      event_types: ['order.completed'],
      interface: 'a',
      status: 'enabled',
      disabled_reason: null,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = await api.get('/api/partners/webhooks/');
    expect(listed.status).toBe(200);
    expect(listed.body.data.results).toEqual([{ ...made.body.data, secret: undefined }].map(({ secret: _, ...rest }) => rest));
    expect(JSON.stringify(listed.body)).not.toContain(made.body.data.secret);

    for (const [body, message] of [
      [{ url: 'ftp://agency.example/x' }, /^url: must be an absolute http or https URL$/],
      [{ url: 'not a url' }, /^url: must be an absolute http or https URL$/],
      [{ url: 'https://user:pw@agency.example/x' }, /^url: must not carry credentials/],
      [{ url: 'https://agency.example/x', event_types: ['order.shipped'] }, /^event_types\.0: must be one of order\.processing/],
      [{ url: `https://agency.example/${'x'.repeat(2001)}` }, /^url: /],
      [{}, /^url: /],
    ] as const) {
      const res = await api.post('/api/partners/webhooks/', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ ok: false, error: expect.stringMatching(message) });
    }

    // Another partner's endpoint is not found; a deleted one is gone from the list.
    const other = await newPartner(stack);
    expect((await other.api.delete(`/api/partners/webhooks/${made.body.data.id}/`)).status).toBe(404);
    const gone = await api.delete(`/api/partners/webhooks/${made.body.data.id}/`);
    expect(gone.status).toBe(200);
    expect(gone.body.data.status).toBe('deleted');
    expect((await api.get('/api/partners/webhooks/')).body.data.results).toEqual([]);
    expect((await api.delete(`/api/partners/webhooks/${made.body.data.id}/`)).status).toBe(404);
  });

  it("delivers each order's events in order, signed: the library verifies every one and rejects a tampered body and an old timestamp", async () => {
    const { api, receiver: r } = await subscribed();
    const first = await paidProductOrder(api, 'order-1');
    const second = await paidProductOrder(api, 'order-2');
    expect(first.paid.status).toBe(200);
    expect(second.paid.status).toBe(200);

    await waitFor(() => r.accepted().length >= 4, 'four deliveries');
    for (const { order } of [first, second]) expect(typesOf(r.accepted(), order.id)).toEqual(['order.processing', 'product_order.shipped']);
    expect(r.received.every((x) => x.verified)).toBe(true);
    // The webhook-id is the event's, so a receiver de-duplicates on it.
    expect(r.received.map((x) => x.id)).toEqual(r.accepted().map((e) => `evt_${e.id}`));
    const shipped = r.accepted().find((e) => e.type === 'product_order.shipped' && e.order_id === first.order.id)!;
    expect(shipped.data).toMatchObject({ id: first.order.id, service: 'product', status: 'completed', supplier_ref: expect.any(String) });

    const { endpoint } = { endpoint: (await api.get('/api/partners/webhooks/')).body.data.results[0] };
    expect(endpoint.status).toBe('enabled');
    const sample = r.received[0]!;
    const stored = (await stack.db.query.webhookEndpoints.findFirst({ where: (e, { eq: is }) => is(e.id, endpoint.id) }))!.secret;
    const secret = stack.secrets.open(stored, secretOwner(endpoint.id));
    const wh = new Webhook(secret);
    const headers = { 'webhook-id': sample.id, 'webhook-timestamp': sample.timestamp, 'webhook-signature': sample.signature };
    expect(wh.verify(sample.body, headers)).toEqual(JSON.parse(sample.body));
    expect(() => wh.verify(sample.body.replace('"order.processing"', '"order.completed"'), headers)).toThrow(/No matching signature found/);
    const old = String(Number(sample.timestamp) - 10 * 60);
    expect(() => wh.verify(sample.body, { ...headers, 'webhook-timestamp': old })).toThrow(/Message timestamp too old/);
  });

  it('keeps signing secrets sealed for their endpoint; one in the clear or sealed for none is sealed for it at start-up, and deliveries stay signed', async () => {
    const { api, receiver: r, endpoint } = await subscribed();
    const owner = secretOwner(endpoint.id);
    const storedSecret = async () =>
      (await stack.db.select({ secret: webhookEndpoints.secret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)))[0]!.secret;
    const sealed = await storedSecret();
    expect(sealed).toMatch(new RegExp(`^sealed:v2:${stack.secrets.keyId}:`));
    expect(sealed).not.toContain(endpoint.secret.slice('whsec_'.length));
    expect(stack.secrets.open(sealed, owner)).toBe(endpoint.secret);

    // As an engine from before sealing left it: sealed for its endpoint at the next start.
    await stack.db.update(webhookEndpoints).set({ secret: endpoint.secret }).where(eq(webhookEndpoints.id, endpoint.id));
    expect(await sealStoredSecrets(stack.db, stack.secrets)).toEqual({ sealed: 1, resealed: 0, underOtherKeys: 0, unopenable: 0 });
    expect(await storedSecret()).toMatch(/^sealed:v2:/);
    expect(stack.secrets.open(await storedSecret(), owner)).toBe(endpoint.secret);
    // As an engine that sealed secrets for no endpoint left it: sealed again, for its endpoint.
    await stack.db
      .update(webhookEndpoints)
      .set({ secret: stack.secrets.seal(endpoint.secret) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    expect(await sealStoredSecrets(stack.db, stack.secrets)).toEqual({ sealed: 0, resealed: 1, underOtherKeys: 0, unopenable: 0 });
    expect(stack.secrets.open(await storedSecret(), owner)).toBe(endpoint.secret);
    expect(await sealStoredSecrets(stack.db, stack.secrets)).toEqual({ sealed: 0, resealed: 0, underOtherKeys: 0, unopenable: 0 });
    const first = await paidProductOrder(api, 'clear-1');
    await waitFor(() => typesOf(r.accepted(), first.order.id).length === 2, 'deliveries signed with the secret sealed at start-up');
    const second = await paidProductOrder(api, 'clear-2');
    await waitFor(() => typesOf(r.accepted(), second.order.id).length === 2, 'deliveries signed with the sealed secret');
    expect(r.received.every((x) => x.verified)).toBe(true);

    // A process given another key: counted at start-up, and an attempt fails before anything is sent or recorded.
    const other = secretBox(crypto.randomBytes(32));
    const seen = await sealStoredSecrets(stack.db, other);
    expect(seen.sealed).toBe(0);
    // This file's endpoints so far, every one sealed under the stack's key.
    expect(seen.underOtherKeys).toBeGreaterThanOrEqual(1);
    const [delivery] = await stack.db
      .select({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.id))
      .orderBy(asc(webhookDeliveries.id))
      .limit(1);
    // Owed again, once the endpoint's delivery run has ended (idle): no run of its own can take it meanwhile.
    await stack.client.workflow.getHandle(webhookWorkflowId(endpoint.id)).result();
    await stack.db.update(webhookDeliveries).set({ state: 'pending' }).where(eq(webhookDeliveries.id, delivery!.id));
    const sent = r.received.length;
    const attempt = (secrets: SecretBox) =>
      new MockActivityEnvironment().run(() =>
        webhookActivities(stack.db, { urls: { sandbox: true, allowedPrivateHosts: new Set(['127.0.0.1']) }, secrets }).deliverWebhook({
          deliveryId: delivery!.id,
          timeoutMs: 5000,
        }),
      );
    await expect(attempt(other)).rejects.toThrow(`sealed under key ${stack.secrets.keyId}, but this process has key ${other.keyId}`);
    expect(r.received.length).toBe(sent);
    const [after] = await stack.db.select({ attempts: webhookDeliveries.attempts }).from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery!.id));
    expect(after!.attempts).toBe(delivery!.attempts);
    await expect(attempt(stack.secrets)).resolves.toMatchObject({ outcome: 'delivered' });
    expect(r.received.length).toBe(sent + 1);
    expect(r.received.every((x) => x.verified)).toBe(true);

    // The key changed: a process given the old key as previous seals the secret again under the new one at start-up.
    const oldKey = crypto.randomBytes(32);
    const newKey = crypto.randomBytes(32);
    await stack.db
      .update(webhookEndpoints)
      .set({ secret: secretBox(oldKey).seal(endpoint.secret, owner) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const changing = secretBox(newKey, [oldKey]);
    const rotated = await sealStoredSecrets(stack.db, changing);
    expect(rotated).toMatchObject({ sealed: 0, resealed: 1 });
    expect(await storedSecret()).toMatch(new RegExp(`^sealed:v2:${changing.keyId}:`));
    expect(secretBox(newKey).open(await storedSecret(), owner)).toBe(endpoint.secret);
    expect(await sealStoredSecrets(stack.db, changing)).toMatchObject({ sealed: 0, resealed: 0 });
    await stack.db.update(webhookDeliveries).set({ state: 'pending' }).where(eq(webhookDeliveries.id, delivery!.id));
    await expect(attempt(secretBox(newKey))).resolves.toMatchObject({ outcome: 'delivered' });
    expect(r.received.length).toBe(sent + 2);
    expect(r.received.every((x) => x.verified)).toBe(true);
    // Back under the stack's key for the tests after this one.
    await stack.db
      .update(webhookEndpoints)
      .set({ secret: stack.secrets.seal(endpoint.secret, owner) })
      .where(eq(webhookEndpoints.id, endpoint.id));
  });

  it('the feed pages events oldest first after a cursor, filters by type, and answers 400 on a bad cursor or type', async () => {
    const { api } = await newPartner(stack);
    const orders = [];
    for (let i = 0; i < 8; i++) orders.push((await paidProductOrder(api, `feed-${i}`)).order.id);
    const first = await api.get('/api/partners/events/');
    expect(first.status).toBe(200);
    const page1 = first.body.data;
    expect(page1).toMatchObject({ current_page: 1, total_pages: 2, total_count: 16, previous: null });
    expect(page1.results).toHaveLength(15);
    expect(page1.results.map((e: { id: number }) => e.id)).toEqual([...page1.results.map((e: { id: number }) => e.id)].sort((a, b) => a - b));
    expect(new URL(page1.next).searchParams.get('after')).toBe(String(page1.results[14].id));
    const page2 = (await api.get(new URL(page1.next).pathname + new URL(page1.next).search)).body.data;
    expect(page2).toMatchObject({ total_count: 1, next: null });
    expect(page2.results.map((e: { type: string; order_id: number }) => [e.type, e.order_id])).toEqual([['product_order.shipped', orders[7]]]);

    const shipped = (await api.get('/api/partners/events/?type=product_order.shipped')).body.data;
    expect(shipped.total_count).toBe(8);
    expect(shipped.results.map((e: { order_id: number }) => e.order_id)).toEqual(orders);
    const upToDate = (await api.get(`/api/partners/events/?after=${page2.results[0].id}`)).body.data;
    expect(upToDate).toMatchObject({ total_count: 0, next: null, results: [] });
    // A cursor past any id an event can have: nothing after it (not a database error).
    expect((await api.get('/api/partners/events/?after=4315284207')).body.data).toMatchObject({ total_count: 0, results: [] });

    expect((await api.get('/api/partners/events/?after=-1')).status).toBe(400);
    expect((await api.get('/api/partners/events/?after=abc')).body).toEqual({ ok: false, error: expect.stringMatching(/^after: must be an event id/) });
    expect((await api.get('/api/partners/events/?type=order.nope')).status).toBe(400);
    // Another partner sees none of them.
    expect((await (await newPartner(stack)).api.get('/api/partners/events/')).body.data.total_count).toBe(0);
  });

  it('a supplier refusal is order.payment_reversed; an endpoint gets only the types it chose', async () => {
    const { api, receiver: r } = await subscribed({ eventTypes: ['order.payment_reversed'] });
    const { order, paid } = await paidProductOrder(api, 'reject-1', { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(paid.status).toBe(502);
    await waitFor(() => r.accepted().length >= 1, 'the reversal event');
    expect(r.accepted().map((e) => [e.type, e.order_id, e.data.status])).toEqual([['order.payment_reversed', order.id, 'pending']]);
    const all = (await api.get('/api/partners/events/')).body.data.results;
    expect(typesOf(all, order.id)).toEqual(['order.processing', 'order.payment_reversed']);
  });

  it('order.needs_attention is for operators: shown with the order, never in the feed, never owed to an endpoint, never redelivered', async () => {
    const { api, receiver: r, creds } = await subscribed(); // every type
    const { order, paid } = await paidProductOrder(api, 'operator-only');
    expect(paid.status).toBe(200);
    // As a parked workflow writes it (workflows/park.ts; pay-pivot.test.ts parks a real payment).
    await recordNeedsAttention(stack.db, { orderId: order.id, workflowId: 'pay:written-by-the-test', parkedAt: 'completing', lastError: 'injected' });
    const [note] = await stack.db
      .select()
      .from(events)
      .where(and(eq(events.orderId, order.id), eq(events.type, 'order.needs_attention')));
    expect(note).toMatchObject({ partnerId: creds.partner_id, data: { id: order.id, needs_attention: { parked_at: 'completing', last_error: 'injected' } } });
    expect(await stack.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, note!.id))).toEqual([]);

    await waitFor(() => r.accepted().length >= 2, 'the payment events');
    await recordedDelivered(creds.partner_id);
    expect(typesOf(r.accepted(), order.id)).toEqual(['order.processing', 'product_order.shipped']);
    expect(typesOf((await api.get('/api/partners/events/')).body.data.results, order.id)).toEqual(['order.processing', 'product_order.shipped']);
    expect((await api.get('/api/partners/events/?type=order.needs_attention')).status).toBe(400);

    const admin = adminClient(stack);
    const inspected = await admin.get(`/admin/orders/${order.id}`);
    expect(inspected.body.events.map((e: { type: string }) => e.type)).toEqual(['order.processing', 'product_order.shipped', 'order.needs_attention']);
    expect(inspected.body.events[2]).toMatchObject({ id: note!.position, operator_only: true, needs_attention: { workflow_id: 'pay:written-by-the-test' } });
    const redelivered = await admin.post(`/admin/events/${note!.position}/redeliver`, {});
    expect(redelivered.status).toBe(409);
    expect(redelivered.body.error).toMatch(/order\.needs_attention event: it is for operators and never delivered/);
  });

  it('a receiver answering 500 then 200 takes each event once, with the same webhook-id; every attempt is recorded', async () => {
    const { api, receiver: r, creds } = await subscribed({ eventTypes: ['product_order.shipped'] });
    r.behave((_, nth) => (nth === 1 ? 500 : 200));
    const { order } = await paidProductOrder(api, 'retry-1');
    await waitFor(() => r.accepted().length >= 1, 'the retried delivery');
    await recordedDelivered(creds.partner_id);
    expect(r.received.map((x) => [x.id, x.answered])).toEqual([
      [r.received[0]!.id, 500],
      [r.received[0]!.id, 200],
    ]);
    expect(r.accepted()).toEqual([expect.objectContaining({ type: 'product_order.shipped', order_id: order.id })]);

    const deliveries = await adminClient(stack).get(`/admin/partners/${creds.partner_id}/webhooks/deliveries`);
    expect(deliveries.status).toBe(200);
    // Operators see attempts by outcome on the worker's /metrics (the admin port's, in one process).
    const metrics = await call(stack.admin, 'GET', '/metrics', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(metrics.body).toMatch(/^webhook_attempts_total\{outcome="refused"\} [1-9]/m);
    expect(metrics.body).toMatch(/^webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
    expect(metrics.body).toMatch(/^webhook_attempt_duration_seconds_count [1-9]/m);
    // With nothing more owed, the endpoint's workflow ends (the relay starts it with the next event).
    const run = stack.client.workflow.getHandle(webhookWorkflowId(deliveries.body.deliveries[0].endpoint_id));
    expect(await run.result()).toEqual({ delivered: 1, ended: 'idle' });
    await recordHistory(stack, run.workflowId, 'webhook-delivered-after-retry');
    expect(deliveries.body.deliveries).toEqual([
      expect.objectContaining({
        event_type: 'product_order.shipped',
        webhook_id: r.received[0]!.id,
        state: 'delivered',
        attempts: [
          expect.objectContaining({ status_code: 500, response_excerpt: 'refused with 500', latency_ms: expect.any(Number) }),
          expect.objectContaining({ status_code: 200, response_excerpt: 'ok' }),
        ],
      }),
    ]);
  });

  it('a delivery run that cannot read what it owes rides it out, and delivers once the database answers', async () => {
    const { api, receiver: r, creds, endpoint } = await subscribed({ eventTypes: ['product_order.shipped'] });
    const fault = arm({
      step: 'pendingWebhookDeliveries',
      error: undefinedColumn,
      times: 1,
      when: (arg) => (arg as { endpointId?: number }).endpointId === endpoint.id,
    });
    const { order } = await paidProductOrder(api, 'ridden-out-1');
    await waitFor(() => r.accepted().length >= 1, 'the delivery after the read was refused once', 30_000);
    await recordedDelivered(creds.partner_id);
    expect(fault.attempts).toBe(1);
    expect(r.accepted()).toEqual([expect.objectContaining({ type: 'product_order.shipped', order_id: order.id })]);
    const { events } = await stack.client.workflow.getHandle(webhookWorkflowId(endpoint.id)).fetchHistory();
    expect(events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'pendingWebhookDeliveries').length).toBeGreaterThanOrEqual(2);
  });

  it('shows a partner its deliveries with every attempt, and sends one of its events again with the same webhook-id', async () => {
    const { api, receiver: r, creds, endpoint } = await subscribed({ eventTypes: ['product_order.shipped'] });
    r.behave((_, nth) => (nth === 1 ? 500 : 200));
    const { order } = await paidProductOrder(api, 'partner-deliveries-1');
    await waitFor(() => r.accepted().length >= 1, 'the retried delivery');
    await recordedDelivered(creds.partner_id);

    const listed = await api.get('/api/partners/webhooks/deliveries/');
    expect(listed.status).toBe(200);
    const [delivery] = listed.body.data.results;
    expect(delivery).toMatchObject({
      endpoint_id: endpoint.id,
      event_type: 'product_order.shipped',
      webhook_id: r.received[0]!.id,
      state: 'delivered',
      attempts: [expect.objectContaining({ status_code: 500, failure: null }), expect.objectContaining({ status_code: 200, failure: null })],
    });
    // What the endpoint answered, and the error behind a failure, are for operators.
    expect(delivery.attempts.map((a: object) => Object.keys(a).sort())).toEqual([
      ['at', 'failure', 'latency_ms', 'status_code'],
      ['at', 'failure', 'latency_ms', 'status_code'],
    ]);

    const again = await api.post(`/api/partners/events/${delivery.event_id}/redeliver/`, {});
    expect([again.status, again.body.data]).toEqual([200, { event_id: delivery.event_id, endpoints: [endpoint.id] }]);
    await waitFor(() => r.accepted().length >= 2, 'the redelivery');
    expect(r.accepted().map((e) => e.order_id)).toEqual([order.id, order.id]);
    expect(new Set(r.received.map((x) => x.id))).toEqual(new Set([delivery.webhook_id]));

    // Another partner's event is not found; neither is an unknown one; a malformed id is refused.
    const other = await newPartner(stack);
    expect((await other.api.post(`/api/partners/events/${delivery.event_id}/redeliver/`, {})).status).toBe(404);
    expect((await other.api.get('/api/partners/webhooks/deliveries/')).body.data.results).toEqual([]);
    expect((await api.post('/api/partners/events/99999999/redeliver/', {})).status).toBe(404);
    const malformed = await api.post('/api/partners/events/abc/redeliver/', {});
    expect([malformed.status, malformed.body.ok]).toEqual([400, false]);
  });

  it('an endpoint that keeps failing is disabled, with an event saying so; re-enabled, a redelivery sends the same webhook-id', async () => {
    const { api, receiver: r, creds, endpoint } = await subscribed({ eventTypes: ['product_order.shipped'] });
    r.behave(() => 503);
    const { order } = await paidProductOrder(api, 'failing-1');
    const admin = adminClient(stack);
    await waitFor(async () => (await api.get('/api/partners/webhooks/')).body.data.results[0].status === 'disabled', 'the endpoint disabled', 20_000);
    const listed = (await api.get('/api/partners/webhooks/')).body.data.results[0];
    // The partner is told the status code; what the endpoint answered is for operators.
    expect(listed.disabled_reason).toMatch(/^delivery \d+ still failing after 4 s; the last attempt was answered 503$/);
    expect((await admin.get(`/admin/partners/${creds.partner_id}/webhooks`)).body.endpoints[0]).toMatchObject({
      disabled_reason: listed.disabled_reason,
      disabled_detail: 'the answer began: refused with 503',
    });
    expect(await stack.client.workflow.getHandle(webhookWorkflowId(endpoint.id)).result()).toEqual({ delivered: 0, ended: 'endpoint_disabled' });
    await recordHistory(stack, webhookWorkflowId(endpoint.id), 'webhook-endpoint-disabled');
    const feed = (await api.get('/api/partners/events/?type=webhook_endpoint.disabled')).body.data.results;
    expect(feed).toEqual([
      expect.objectContaining({ type: 'webhook_endpoint.disabled', order_id: null, data: expect.objectContaining({ id: endpoint.id, status: 'disabled' }) }),
    ]);
    const tries = r.received.length;
    expect(tries).toBeGreaterThanOrEqual(3);
    expect(new Set(r.received.map((x) => x.id)).size).toBe(1);

    // The operator turns it back on and sends the event again: the same webhook-id, taken once.
    r.behave(() => 204);
    expect((await admin.post(`/admin/webhooks/${endpoint.id}/enable`)).status).toBe(200);
    const shippedEvent = (await api.get('/api/partners/events/?type=product_order.shipped')).body.data.results[0];
    expect(shippedEvent.order_id).toBe(order.id);
    const again = await admin.post(`/admin/events/${shippedEvent.id}/redeliver`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ event_id: shippedEvent.id, endpoints: [endpoint.id] });
    await waitFor(() => r.accepted().length === 1, 'the redelivery');
    await recordedDelivered(creds.partner_id);
    expect(r.received.at(-1)!.id).toBe(`evt_${shippedEvent.id}`);
    const deliveries = (await admin.get(`/admin/partners/${creds.partner_id}/webhooks/deliveries`)).body.deliveries;
    expect(deliveries[0]).toMatchObject({ state: 'delivered', attempts: expect.arrayContaining([expect.objectContaining({ status_code: 204 })]) });
    expect(deliveries[0].attempts).toHaveLength(tries + 1);
  });

  it('a worker stopped mid-delivery: the retry sends the same webhook-id, and the receiver takes each event once', async () => {
    const { api, receiver: r, creds } = await subscribed({ eventTypes: ['product_order.shipped'] });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    r.behave((_, nth) => {
      if (nth === 1) {
        held();
        return 'hang';
      }
      return 200;
    });
    const { order } = await paidProductOrder(api, 'crash-1');
    await holding;
    await stack.stopWorker({ crash: true });
    await stack.startWorker();
    await waitFor(() => r.accepted().length >= 1, 'the delivery after the restart', 30_000);
    await recordedDelivered(creds.partner_id);
    expect(r.received.map((x) => x.id)).toEqual([r.received[0]!.id, r.received[0]!.id]);
    expect(r.accepted()).toEqual([expect.objectContaining({ order_id: order.id, type: 'product_order.shipped' })]);
    // In the engine's books: one delivery, delivered, after an abandoned attempt and a taken one.
    const [event] = await stack.db.select().from(events).where(eq(events.orderId, order.id)).orderBy(asc(events.id));
    const shipped = (await stack.db.select().from(events).where(eq(events.orderId, order.id))).find((e) => e.type === 'product_order.shipped')!;
    expect(event!.type).toBe('order.processing');
    const deliveries = await stack.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, shipped.id));
    expect(deliveries).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2 })]);
    const attempts = await stack.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveries[0]!.id)).orderBy(asc(webhookAttempts.id));
    expect(attempts.map((a) => a.statusCode)).toEqual([null, 200]);
    expect(attempts[0]!.error).toMatch(/aborted/);
  });

  it('Interface B registers webhooks and reads the feed in its own style, over the same events', async () => {
    const { creds, api } = await newPartner(stack);
    const r = await receiver();
    const b = (method: string, path: string, body?: unknown) => call(stack.app, method, `/v1${path}`, { authorization: `Bearer ${creds.agency_key}` }, body);
    const made = await b('POST', '/webhooks', { url: r.url, event_types: ['product_order.shipped'] });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      webhook_id: expect.stringMatching(/^\d+$/),
      url: r.url,
      event_types: ['product_order.shipped'],
      interface: 'b',
      status: 'enabled',
      disabled_reason: null,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    r.setSecret(made.body.secret);
    expect((await b('GET', '/webhooks')).body).toEqual({ results: [{ ...made.body, secret: undefined }].map(({ secret: _, ...w }) => w), count: 1 });
    // Endpoints are the partner's: Interface A lists the same one.
    expect((await api.get('/api/partners/webhooks/')).body.data.results.map((e: { id: number }) => String(e.id))).toEqual([made.body.webhook_id]);

    const placed = await b('POST', '/products/orders', {
      product_id: (await b('GET', '/products')).body.results[0].product_id,
      quantity: 1,
      delivery_address: { street: '1 Main St', city: 'Istanbul', country: 'TR', postal_code: '34000' },
    });
    expect(placed.status).toBe(201);
    await waitFor(() => r.accepted().length >= 1, 'the shipped event');
    expect(r.received.every((x) => x.verified)).toBe(true);
    expect(r.accepted().map((e) => [e.type, String(e.order_id)])).toEqual([['product_order.shipped', placed.body.order_id]]);
    // Registered through B, its deliveries are in B's style: string ids, amounts as numbers.
    expect(JSON.parse(r.received[0]!.body)).toEqual({
      event_id: expect.stringMatching(/^\d+$/),
      type: 'product_order.shipped',
      created_at: expect.any(String),
      order_id: placed.body.order_id,
      data: {
        order_id: placed.body.order_id,
        service: 'product',
        status: 'completed',
        total_price: placed.body.total_price,
        currency: 'IRT',
        supplier_ref: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        // Made and paid through the agency's first Interface B connection.
        created_by: { type: 'connection', id: expect.any(Number), name: 'Interface B' },
        acted_by: { type: 'connection', id: expect.any(Number), name: 'Interface B' },
      },
    });

    const feed = await b('GET', '/events?limit=1');
    expect(feed.status).toBe(200);
    expect(feed.body).toEqual({
      results: [
        {
          event_id: expect.stringMatching(/^\d+$/),
          type: 'order.processing',
          created_at: expect.any(String),
          order_id: placed.body.order_id,
          data: expect.objectContaining({ order_id: placed.body.order_id, status: 'processing', total_price: placed.body.total_price }),
        },
      ],
      count: 1,
      has_more: true,
    });
    const rest = await b('GET', `/events?after=${feed.body.results[0].event_id}`);
    expect(rest.body).toMatchObject({ count: 1, has_more: false, results: [{ type: 'product_order.shipped', order_id: placed.body.order_id }] });
    expect((await b('GET', '/events?type=product_order.shipped')).body.count).toBe(1);
    const bad = await b('GET', '/events?type=nope&limit=0');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'type'],
        ['query', 'limit'],
      ]),
    );
    const badUrl = await b('POST', '/webhooks', { url: 'mailto:x@example.com' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body).toEqual({ detail: [{ loc: ['body', 'url'], msg: 'must be an absolute http or https URL', type: 'value_error' }] });

    const removed = await b('DELETE', `/webhooks/${made.body.webhook_id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.status).toBe('deleted');
    expect((await b('DELETE', `/webhooks/${made.body.webhook_id}`)).status).toBe(404);
    expect((await b('DELETE', '/webhooks/abc')).status).toBe(404);
  });

  it('caps endpoints per partner at 10, even when registered at once', async () => {
    const { api } = await newPartner(stack);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post('/api/partners/webhooks/', { url: `https://agency.example/${i}` })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.error)).toEqual([
      'a partner may have at most 10 webhook endpoints; delete one first',
      'a partner may have at most 10 webhook endpoints; delete one first',
    ]);
  });

  it("operators manage a partner's endpoints with the admin CLI: add (secret once), list, deliveries, redeliver, delete", async () => {
    const { creds, api } = await newPartner(stack);
    const r = await receiver();
    const run = async (...argv: string[]) => {
      const { command } = toCommand(argv);
      return call(stack.admin, command.method, command.path, { authorization: `Bearer ${ADMIN_TOKEN}` }, command.body);
    };
    const id = String(creds.partner_id);
    expect(toCommand(['webhooks', 'add', '--partner', id, '--url', r.url, '--types', 'product_order.shipped, order.completed']).command).toEqual({
      method: 'POST',
      path: `/admin/partners/${id}/webhooks`,
      body: { url: r.url, event_types: ['product_order.shipped', 'order.completed'] },
    });
    const added = await run('webhooks', 'add', '--partner', id, '--url', r.url, '--types', 'product_order.shipped');
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ url: r.url, event_types: ['product_order.shipped'], status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
    r.setSecret(added.body.secret);
    expect((await run('webhooks', 'list', '--partner', id)).body).toEqual({ endpoints: [expect.objectContaining({ id: added.body.id, url: r.url })] });
    expect((await run('webhooks', 'add', '--partner', id, '--url', 'gopher://x')).status).toBe(400);
    expect((await run('webhooks', 'add', '--partner', '999999', '--url', r.url)).status).toBe(404);
    expect((await run('webhooks', 'list', '--partner', '999999')).status).toBe(404);
    expect((await run('webhooks', 'deliveries', '--partner', '999999')).status).toBe(404);
    expect(() => toCommand(['webhooks', 'redeliver', '--event', 'x'])).toThrow(/--event must be an id/);

    const { order } = await paidProductOrder(api, 'cli-1');
    await waitFor(() => r.accepted().length === 1, 'the delivery');
    await recordedDelivered(creds.partner_id);
    const deliveries = await run('webhooks', 'deliveries', '--partner', id);
    expect(deliveries.body.deliveries).toEqual([
      expect.objectContaining({
        endpoint_id: added.body.id,
        event_type: 'product_order.shipped',
        state: 'delivered',
        attempts: [expect.objectContaining({ status_code: 200 })],
      }),
    ]);
    const eventId = deliveries.body.deliveries[0].event_id;
    const again = await run('webhooks', 'redeliver', '--event', String(eventId));
    expect(again.body).toEqual({ event_id: eventId, endpoints: [added.body.id] });
    await waitFor(() => r.accepted().length === 2, 'the redelivery');
    expect(r.received.map((x) => x.id)).toEqual([`evt_${eventId}`, `evt_${eventId}`]);
    expect(r.accepted().map((e) => e.order_id)).toEqual([order.id, order.id]);
    expect((await run('webhooks', 'redeliver', '--event', '999999')).status).toBe(404);

    expect((await run('webhooks', 'delete', '--endpoint', String(added.body.id))).body.status).toBe('deleted');
    expect((await run('webhooks', 'list', '--partner', id)).body).toEqual({ endpoints: [] });
    expect((await run('webhooks', 'enable', '--endpoint', String(added.body.id))).status).toBe(404);
    // Nothing is sent to a deleted endpoint.
    await paidProductOrder(api, 'cli-2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(2);
  });

  // Two connections at once: PostgreSQL only (PGlite serves one connection at a time).
  (process.env.DATABASE_URL ? it : it.skip)('numbers events as their transactions commit: a reader that saw N never finds a new event below N', async () => {
    const { creds, api } = await newPartner(stack);
    const pool = (stack.db as unknown as { $client: Pool }).$client;
    const [early, late] = [await pool.connect(), await pool.connect()];
    const write = (c: PoolClient) =>
      c.query(`INSERT INTO events (type, partner_id, data) VALUES ('webhook_endpoint.disabled', $1, '{}'::jsonb) RETURNING id`, [creds.partner_id]);
    try {
      // The early transaction writes its event first (the lower row id) but commits last.
      await early.query('BEGIN');
      const earlyRow = (await write(early)).rows[0].id as number;
      await late.query('BEGIN');
      const lateRow = (await write(late)).rows[0].id as number;
      await late.query('COMMIT');
      expect(earlyRow).toBeLessThan(lateRow);
      const seen = (await api.get('/api/partners/events/')).body.data.results;
      expect(seen).toHaveLength(1);
      await early.query('COMMIT');
      // Numbered at commit, the early one comes after what the reader saw: it is not skipped.
      const next = (await api.get(`/api/partners/events/?after=${seen[0].id}`)).body.data.results;
      expect(next).toHaveLength(1);
      expect(next[0].id).toBeGreaterThan(seen[0].id);
    } finally {
      early.release();
      late.release();
    }
  });

  (process.env.DATABASE_URL ? it : it.skip)("numbers an order's status changes as their transactions commit, as every event", async () => {
    const { creds, api } = await newPartner(stack);
    const pool = (stack.db as unknown as { $client: Pool }).$client;
    const newOrder = async () =>
      (
        await pool.query(
          `INSERT INTO orders (partner_id, service, status, total_price_minor, currency, payment_method)
           VALUES ($1, 'product', 'pending', 100, 'IRT', 'PARTNER_CREDIT') RETURNING id`,
          [creds.partner_id],
        )
      ).rows[0].id as number;
    const [earlyOrder, lateOrder] = [await newOrder(), await newOrder()];
    const [early, late] = [await pool.connect(), await pool.connect()];
    const expire = (c: PoolClient, orderId: number) => c.query(`UPDATE orders SET status = 'expired' WHERE id = $1`, [orderId]);
    try {
      // The early transaction changes its order first but commits last.
      await early.query('BEGIN');
      await expire(early, earlyOrder);
      await late.query('BEGIN');
      await expire(late, lateOrder);
      await late.query('COMMIT');
      const seen = (await api.get('/api/partners/events/')).body.data.results;
      expect(seen.map((e: { order_id: number }) => e.order_id)).toEqual([lateOrder]);
      await early.query('COMMIT');
      const next = (await api.get(`/api/partners/events/?after=${seen[0].id}`)).body.data.results;
      expect(next.map((e: { type: string; order_id: number }) => [e.type, e.order_id])).toEqual([['order.expired', earlyOrder]]);
    } finally {
      early.release();
      late.release();
    }
  });
});
