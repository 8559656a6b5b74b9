import { toCommand } from '../../src/cli/admin';
import { adminClient, call, newPartner, type PartnerCredentials } from '../support/clients';
import { ADMIN_TOKEN, TEST_RATE_LIMIT_PER_MINUTE, type TestStack, useStack } from '../support/stack';

/**
 * Rate limits (issue 16): per partner, per interface, counted after authentication, with the
 * IETF draft's RateLimit fields on every answer of a limited route and 429 in each
 * interface's shape over the limit. The stack keeps its counters in the database table in
 * both modes (PGlite and PostgreSQL), so that two API instances share them as replicas do.
 */
let stack: TestStack;
useStack((s) => (stack = s), { rateLimitStore: 'table' });

const admin = () => adminClient(stack);
const aAuth = (c: PartnerCredentials) => ({ 'x-api-key': c.api_key, 'x-api-secret': c.api_secret });
const bAuth = (c: PartnerCredentials) => ({ authorization: `Bearer ${c.agency_key}` });

async function limited(perMinute: number) {
  const p = await newPartner(stack);
  const set = await admin().post(`/admin/partners/${p.creds.partner_id}/rate-limit`, { per_minute: perMinute });
  expect(set.status).toBe(200);
  return p;
}

describe('rate limits', () => {
  it('answers 429 with Retry-After in each interface shape, with the RateLimit fields on every answer; A and B count apart', async () => {
    const { creds } = await limited(3);
    for (let i = 0; i < 3; i++) {
      const ok = await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds));
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('"per-minute";q=3;w=60');
      expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"per-minute";r=${2 - i};t=\\d+$`));
    }
    const over = await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds));
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ ok: false, error: expect.stringMatching(/^rate limit exceeded: 3 requests per minute; retry in \d+ s$/) });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.headers.get('ratelimit')).toBe(`"per-minute";r=0;t=${retryAfter}`);

    // Interface B has its own count: three more, then 429 `{detail}`.
    for (let i = 0; i < 3; i++) {
      const ok = await call(stack.app, 'GET', '/v1/products', bAuth(creds));
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"per-minute";r=${2 - i};t=\\d+$`));
    }
    const overB = await call(stack.app, 'GET', '/v1/products', bAuth(creds));
    expect(overB.status).toBe(429);
    expect(overB.body).toEqual({ detail: expect.stringMatching(/^rate limit exceeded: 3 requests per minute; retry in \d+ s$/) });
    expect(Number(overB.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Another partner is not affected.
    const other = await newPartner(stack);
    const fine = await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(other.creds));
    expect(fine.status).toBe(200);
    expect(fine.headers.get('ratelimit-policy')).toBe(`"per-minute";q=${TEST_RATE_LIMIT_PER_MINUTE};w=60`);
  });

  it('errors of a limited route carry the fields too; unauthenticated requests count against no partner', async () => {
    const { creds } = await limited(2);
    for (let i = 0; i < 5; i++) {
      const wrong = await call(stack.app, 'GET', '/api/partners/wallet/', { 'x-api-key': creds.api_key, 'x-api-secret': 'wrong' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('ratelimit')).toBeNull();
      expect((await call(stack.app, 'GET', '/v1/products', { authorization: 'Bearer agk_wrong' })).status).toBe(401);
    }
    const notFound = await call(stack.app, 'GET', '/api/products/products/999999/', aAuth(creds));
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('ratelimit')).toMatch(/^"per-minute";r=1;t=\d+$/);
    const invalid = await call(stack.app, 'GET', '/v1/hotels/search?stars=9', bAuth(creds));
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('ratelimit')).toMatch(/^"per-minute";r=1;t=\d+$/);
  });

  it('an operator changes the limit through the admin API (and the CLI command), and back to the default; it applies at once', async () => {
    const { creds } = await newPartner(stack);
    const id = creds.partner_id;
    const shown = await admin().get(`/admin/partners/${id}/rate-limit`);
    expect(shown.body).toEqual({
      partner_id: id,
      per_minute: null,
      default_per_minute: TEST_RATE_LIMIT_PER_MINUTE,
      effective_per_minute: TEST_RATE_LIMIT_PER_MINUTE,
    });
    for (let i = 0; i < 2; i++) expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);

    // The CLI sends what the admin API takes.
    const cli = toCommand(['partner', 'rate-limit', '--partner', String(id), '--per-minute', '2']).command;
    expect(cli).toEqual({ method: 'POST', path: `/admin/partners/${id}/rate-limit`, body: { per_minute: 2 } });
    const set = await call(stack.admin, cli.method, cli.path, { authorization: `Bearer ${ADMIN_TOKEN}` }, cli.body);
    expect(set.body).toEqual({ partner_id: id, per_minute: 2, default_per_minute: TEST_RATE_LIMIT_PER_MINUTE, effective_per_minute: 2 });
    // Two requests already counted in this window: the next one is over the new limit.
    const over = await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds));
    expect(over.status).toBe(429);
    expect(over.body.error).toMatch(/^rate limit exceeded: 2 requests per minute/);

    const back = toCommand(['partner', 'rate-limit', '--partner', String(id), '--default']).command;
    expect(back.body).toEqual({ per_minute: null });
    const reset = await call(stack.admin, back.method, back.path, { authorization: `Bearer ${ADMIN_TOKEN}` }, back.body);
    expect(reset.body.effective_per_minute).toBe(TEST_RATE_LIMIT_PER_MINUTE);
    const again = await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds));
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-policy')).toBe(`"per-minute";q=${TEST_RATE_LIMIT_PER_MINUTE};w=60`);

    for (const bad of [0, -1, 1.5, 'ten', 100_001]) {
      expect((await admin().post(`/admin/partners/${id}/rate-limit`, { per_minute: bad })).status).toBe(400);
    }
    expect((await admin().post(`/admin/partners/999999/rate-limit`, { per_minute: 5 })).status).toBe(404);
    expect(() => toCommand(['partner', 'rate-limit', '--partner', '1', '--per-minute', '0'])).toThrow(/positive integer/);
    expect(toCommand(['partner', 'rate-limit', '--partner', '1']).command).toEqual({ method: 'GET', path: '/admin/partners/1/rate-limit' });
  });

  it('a pay retry with the same idempotency key is not counted against the partner limit, and is answered even at it', async () => {
    const { creds, api } = await newPartner(stack);
    await admin().post(`/admin/partners/${creds.partner_id}/rate-limit`, { per_minute: 4 });
    const order = await api.productOrder(); // two requests: the basket and the checkout
    const body = { product_order_id: order.id, idempotency_key: `rl-${order.id}` };
    const first = await call(stack.app, 'POST', '/api/partners/pay/', aAuth(creds), body);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/^"per-minute";r=1;t=\d+$/);
    for (let i = 0; i < 3; i++) {
      const retry = await call(stack.app, 'POST', '/api/partners/pay/', aAuth(creds), body);
      expect(retry.status).toBe(200);
      expect(retry.body.data.ledger_id).toBe(first.body.data.ledger_id);
      expect(retry.headers.get('ratelimit')).toMatch(/^"per-minute";r=1;t=\d+$/);
    }
    // One request left in the window: the retries took none of it.
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(429);
    // At the limit, a retry still learns its payment's outcome; a new payment does not get through.
    const retry = await call(stack.app, 'POST', '/api/partners/pay/', aAuth(creds), body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('ratelimit')).toMatch(/^"per-minute";r=0;t=\d+$/);
    const other = await call(stack.app, 'POST', '/api/partners/pay/', aAuth(creds), { ...body, idempotency_key: 'rl-new-key' });
    expect(other.status).toBe(429);
  });

  it('health, docs, OpenAPI documents and the admin API are not limited', async () => {
    const { creds } = await limited(1);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
    expect((await call(stack.app, 'GET', '/v1/products', bAuth(creds))).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      for (const path of ['/healthz', '/docs', '/api/docs', '/v1/docs', '/api/openapi.json', '/v1/openapi.json']) {
        const res = await call(stack.app, 'GET', path, { ...aAuth(creds), ...bAuth(creds) });
        expect([200, 503]).toContain(res.status); // /healthz may say a part is still starting
        expect(res.headers.get('ratelimit')).toBeNull();
      }
      const adminRes = await admin().get(`/admin/partners/${creds.partner_id}/wallet`);
      expect(adminRes.status).toBe(200);
      expect(adminRes.headers.get('ratelimit')).toBeNull();
    }
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(429);
  });

  it('both OpenAPI documents state the 429 and the RateLimit fields on every authenticated operation', async () => {
    for (const [url, schema] of [
      ['/api/openapi.json', '#/components/schemas/Error'],
      ['/v1/openapi.json', '#/components/schemas/HTTPError'],
    ] as const) {
      const doc = (await call(stack.app, 'GET', url, {})).body as {
        paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, any> }>>;
      };
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item)) {
          if (!op.security?.length) continue;
          expect(op.responses['429'].content['application/json'].schema.$ref).toBe(schema);
          expect(op.responses['429'].headers['Retry-After'].required).toBe(true);
          for (const response of Object.values(op.responses))
            expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
        }
      }
    }
  });

  it('two API instances on one database share each partner count (as `npm run api` replicas on PostgreSQL do)', async () => {
    const { creds } = await limited(4);
    const replica = stack.replica();
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
    expect((await call(replica, 'GET', '/api/partners/wallet/', aAuth(creds))).headers.get('ratelimit')).toMatch(/^"per-minute";r=2;t=\d+$/);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
    expect((await call(replica, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
    expect((await call(replica, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(429);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(429);
    // Sent at once through both: exactly the limit gets through (the count is one atomic upsert per request).
    const { creds: burst } = await limited(10);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? replica : stack.app, 'GET', '/v1/products', bAuth(burst))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(10);
  });
});
