import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { webhookEndpoints } from '../../src/db/schema';
import { secretOwner } from '../../src/domain/webhooks';
import { adminClient, call, newPartner } from '../support/clients';
import { startReceiver, type Receiver } from '../support/receiver';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * Webhook endpoints cannot reach into the engine's network: loopback, private, link-local
 * and metadata addresses are refused at registration (both interfaces and the admin API) and
 * at delivery, in the sandbox too, unless the host is named in WEBHOOK_ALLOWED_PRIVATE_HOSTS;
 * https is required outside the sandbox. Partners are told the rule, never an address or what
 * the target answered; operators see the detail. Signing secrets open only for their endpoint.
 */

const ADDRESS_RULE = 'url: must not point to a loopback, private, link-local, cloud metadata or other non-public address';

describe('in the sandbox, with only 127.0.0.1 allowed by name', () => {
  let stack: TestStack;
  useStack((s) => (stack = s), { webhookAllowedPrivateHosts: '127.0.0.1', webhookRetry: { giveUpAfterMs: 3000 }, webhookIdleMs: 1500 });

  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });
  async function receiver() {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  it('refuses private, loopback, link-local and metadata targets at registration, naming the rule and no address', async () => {
    const { api, creds } = await newPartner(stack);
    const refused = [
      'http://127.0.0.2:8081/admin/reconcile',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/hooks',
      'http://172.16.0.1/hooks',
      'http://192.168.1.1/hooks',
      'http://100.64.0.1/hooks',
      'http://0.0.0.0:8081/',
      'http://[::1]:8081/admin/reconcile',
      'http://[fe80::1]/hooks',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://[::ffff:127.0.0.1]:8081/',
      'http://224.0.0.1/hooks',
      // A name that resolves to loopback: the name is resolved at registration.
      'http://localhost:8081/admin/reconcile',
      'http://metadata.google.internal/computeMetadata/v1/',
    ];
    for (const url of refused) {
      const res = await api.post('/api/partners/webhooks/', { url });
      expect([url, res.status, res.body]).toEqual([url, 400, { ok: false, error: ADDRESS_RULE }]);
    }
    // Interface B and the admin API register through the same rule.
    const b = await call(stack.app, 'POST', '/v1/webhooks', { authorization: `Bearer ${creds.agency_key}` }, { url: 'http://169.254.169.254/latest/' });
    expect([b.status, b.body]).toEqual([422, { detail: [{ loc: ['body', 'url'], msg: ADDRESS_RULE.slice('url: '.length), type: 'value_error' }] }]);
    const byOperator = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/webhooks`, { url: 'http://localhost:8081/admin/reconcile' });
    expect([byOperator.status, byOperator.body]).toEqual([400, { error: ADDRESS_RULE }]);
    // A host that does not resolve is refused, not an error.
    expect((await api.post('/api/partners/webhooks/', { url: 'https://nowhere.invalid/hooks' })).body).toEqual({
      ok: false,
      error: 'url: has a host that could not be resolved',
    });
    // The host named by the operator, and a public one, are taken.
    const r = await receiver();
    expect((await api.post('/api/partners/webhooks/', { url: r.url })).status).toBe(201);
    expect((await api.post('/api/partners/webhooks/', { url: 'https://agency.example/hooks' })).status).toBe(201);
    expect((await api.get('/api/partners/webhooks/')).body.data.results).toHaveLength(2);
  });

  it('an endpoint whose name now answers a private address is never connected to; its partner is told the rule, operators what was found', async () => {
    const { api, creds } = await newPartner(stack);
    const r = await receiver();
    // Registered when its name answered a public address (registration would refuse it now): localhost answers 127.0.0.1.
    // Its secret sealed for it, as secretOwner names the endpoint.
    const url = r.url.replace('127.0.0.1', 'localhost');
    const [row] = await stack.db
      .insert(webhookEndpoints)
      .values({ partnerId: creds.partner_id, url, secret: 'pending', eventTypes: ['product_order.shipped'] })
      .returning();
    await stack.db
      .update(webhookEndpoints)
      .set({ secret: stack.secrets.seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', `webhook-endpoint:${row!.id}`) })
      .where(eq(webhookEndpoints.id, row!.id));
    const order = await api.productOrder();
    expect((await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'rebound-1' })).status).toBe(200);

    // Refused at once: an address the policy refuses is not retried for days.
    await waitFor(async () => (await api.get('/api/partners/webhooks/')).body.data.results[0]?.status === 'disabled', 'the endpoint disabled', 20_000);
    const seen = (await api.get('/api/partners/webhooks/')).body.data.results[0];
    expect(seen.disabled_reason).toMatch(/^delivery \d+ was not sent; the last attempt failed: the endpoint's address is not allowed$/);
    const feed = JSON.stringify((await api.get('/api/partners/events/?type=webhook_endpoint.disabled')).body);
    expect(feed).toContain("the endpoint's address is not allowed");
    for (const partnerSees of [JSON.stringify(seen), feed]) expect(partnerSees).not.toContain('127.0.0.1');
    expect(r.received).toEqual([]);

    const admin = adminClient(stack);
    const operatorSees = (await admin.get(`/admin/partners/${creds.partner_id}/webhooks`)).body.endpoints[0];
    expect(operatorSees.disabled_detail).toMatch(/localhost resolved to 127\.0\.0\.1, a loopback address/);
    const attempts = (await admin.get(`/admin/partners/${creds.partner_id}/webhooks/deliveries`)).body.deliveries[0].attempts;
    expect(attempts).toEqual([expect.objectContaining({ status_code: null, failure: 'address_not_allowed', error: expect.stringMatching(/127\.0\.0\.1/) })]);
    const metrics = await call(stack.admin, 'GET', '/metrics', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(metrics.body).toMatch(/^webhook_attempts_total\{outcome="unreachable"\} [1-9]/m);
  });

  it('what an endpoint answers never reaches its partner: a 401 with a marked body disables it with the status code alone', async () => {
    const MARKER = 'internal-admin-secret-7f3a9c';
    const got: string[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      got.push(String(req.headers['webhook-id']));
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`denied: ${MARKER} (host db.internal 10.0.0.7)`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { api, creds } = await newPartner(stack);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const made = await api.post('/api/partners/webhooks/', { url, event_types: ['product_order.shipped'] });
      expect(made.status).toBe(201);
      const order = await api.productOrder();
      expect((await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'marked-1' })).status).toBe(200);
      await waitFor(async () => (await api.get('/api/partners/webhooks/')).body.data.results[0]?.status === 'disabled', 'the endpoint disabled', 20_000);
      expect(got.length).toBeGreaterThanOrEqual(2);

      const partnerSees = [
        (await api.get('/api/partners/webhooks/')).body,
        (await api.get('/api/partners/events/?type=webhook_endpoint.disabled')).body,
        (await call(stack.app, 'GET', '/v1/webhooks', { authorization: `Bearer ${creds.agency_key}` })).body,
        (await call(stack.app, 'GET', '/v1/events?type=webhook_endpoint.disabled', { authorization: `Bearer ${creds.agency_key}` })).body,
      ].map((body) => JSON.stringify(body));
      expect(partnerSees[0]).toMatch(/"disabled_reason":"delivery \d+ still failing after 3 s; the last attempt was answered 401"/);
      for (const seen of partnerSees) {
        expect(seen).toContain('answered 401');
        expect(seen).not.toContain(MARKER);
        expect(seen).not.toContain('10.0.0.7');
      }
      // Operators see what it answered.
      const admin = adminClient(stack);
      expect((await admin.get(`/admin/partners/${creds.partner_id}/webhooks`)).body.endpoints[0].disabled_detail).toContain(MARKER);
      const attempts = (await admin.get(`/admin/partners/${creds.partner_id}/webhooks/deliveries`)).body.deliveries[0].attempts;
      expect(attempts[0]).toMatchObject({ status_code: 401, response_excerpt: expect.stringContaining(MARKER) });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a signing secret opens for its own endpoint only: one copied from another endpoint's row, or one in the clear, signs nothing", async () => {
    const { api, creds } = await newPartner(stack);
    const [a, copied, clear] = [await receiver(), await receiver(), await receiver()];
    const register = async (r: Receiver) => {
      const made = await api.post('/api/partners/webhooks/', { url: r.url, event_types: ['product_order.shipped'] });
      expect(made.status).toBe(201);
      r.setSecret(made.body.data.secret);
      return made.body.data as { id: number; secret: string };
    };
    const [endpointA, endpointCopied, endpointClear] = [await register(a), await register(copied), await register(clear)];
    const storedOf = async (id: number) => (await stack.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!.secret;
    const sealedA = await storedOf(endpointA.id);
    // A's sealed secret copied into another endpoint's row; another row's secret written in the clear.
    await stack.db.update(webhookEndpoints).set({ secret: sealedA }).where(eq(webhookEndpoints.id, endpointCopied.id));
    await stack.db.update(webhookEndpoints).set({ secret: endpointClear.secret }).where(eq(webhookEndpoints.id, endpointClear.id));

    const order = await api.productOrder();
    expect((await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'secrets-1' })).status).toBe(200);
    await waitFor(() => a.accepted().length === 1, 'the delivery to the endpoint whose secret is its own');
    expect(a.received.every((x) => x.verified)).toBe(true);
    const status = async () => (await api.get('/api/partners/webhooks/')).body.data.results.map((e: { id: number; status: string }) => [e.id, e.status]);
    await waitFor(async () => (await status()).filter(([, s]: [number, string]) => s === 'disabled').length === 2, 'both other endpoints disabled', 20_000);
    expect(await status()).toEqual([
      [endpointA.id, 'enabled'],
      [endpointCopied.id, 'disabled'],
      [endpointClear.id, 'disabled'],
    ]);
    expect(copied.received).toEqual([]);
    expect(clear.received).toEqual([]);
    const admin = adminClient(stack);
    const details = Object.fromEntries(
      (await admin.get(`/admin/partners/${creds.partner_id}/webhooks`)).body.endpoints.map((e: { id: number; disabled_detail: string | null }) => [e.id, e]),
    );
    for (const id of [endpointCopied.id, endpointClear.id]) {
      // Operators see the step's failure (the refusal, or the timeout that ended its retries).
      expect(details[id]).toMatchObject({ disabled_reason: expect.stringMatching(/^delivery \d+ still failing after 3 s; no attempt reached the endpoint$/) });
      expect(details[id].disabled_detail).toEqual(expect.any(String));
    }
    // What each attempt failed on, before anything was sent.
    expect(() => stack.secrets.open(sealedA, secretOwner(endpointCopied.id))).toThrow(/failed its integrity check/);
    expect(() => stack.secrets.open(endpointClear.secret, secretOwner(endpointClear.id))).toThrow(/a secret stored in the clear is refused/);
    expect(stack.secrets.open(sealedA, secretOwner(endpointA.id))).toBe(endpointA.secret);
  });
});

describe('outside the sandbox, with no host allowed', () => {
  let stack: TestStack;
  useStack((s) => (stack = s), { sandbox: false, webhookAllowedPrivateHosts: '' });

  it('requires https, and refuses loopback whatever the scheme', async () => {
    const { api } = await newPartner(stack);
    for (const [url, error] of [
      ['http://agency.example/hooks', 'url: must use https'],
      ['http://127.0.0.1:8081/admin/reconcile', 'url: must use https'],
      ['https://127.0.0.1:8081/admin/reconcile', ADDRESS_RULE],
      ['https://localhost/hooks', ADDRESS_RULE],
    ] as const) {
      const res = await api.post('/api/partners/webhooks/', { url });
      expect([url, res.status, res.body]).toEqual([url, 400, { ok: false, error }]);
    }
    expect((await api.post('/api/partners/webhooks/', { url: 'https://agency.example/hooks' })).status).toBe(201);
  });
});
