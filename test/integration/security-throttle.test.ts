import net from 'node:net';
import { sql } from 'drizzle-orm';
import { listen } from '../../src/platform/listen';
import { adminClient, call, newPartner, type PartnerCredentials, type Reply } from '../support/clients';
import { captureLogs } from '../support/logs';
import { type TestStack, useStack } from '../support/stack';

/**
 * Throttling before authentication: per client address (the socket's peer, or behind a
 * trusted proxy the right-most untrusted X-Forwarded-For hop), a budget of requests without
 * valid credentials and a tighter one of failed authentications, answered 429 with
 * Retry-After in each interface's shape; unknown keys kept briefly; credentials checked
 * before the body is read; pay retries in a bucket of their own; a failing counter store
 * replaced by counts in memory.
 */
const UNAUTHENTICATED = 12;
const FAILURES = 5;
const PAY_RETRIES = 3;
const PROXIES = '10.9.0.0/16';

let stack: TestStack;
useStack((s) => (stack = s), {
  rateLimitStore: 'table',
  env: {
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: String(UNAUTHENTICATED),
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(FAILURES),
    RATE_LIMIT_PAY_RETRIES_PER_MINUTE: String(PAY_RETRIES),
    TRUSTED_PROXIES: PROXIES,
  },
});

const aAuth = (c: Pick<PartnerCredentials, 'api_key' | 'api_secret'>) => ({ 'x-api-key': c.api_key, 'x-api-secret': c.api_secret });
const bAuth = (c: Pick<PartnerCredentials, 'agency_key'>) => ({ authorization: `Bearer ${c.agency_key}` });
const WRONG_A = { 'x-api-key': 'ab'.repeat(32), 'x-api-secret': 'not-the-secret' };
const WRONG_B = { authorization: 'Bearer agk_not-a-key' };

let peers = 0;
/** A client address no other test uses: 203.0.113.x (documentation addresses). */
const freshPeer = () => `203.0.113.${++peers}`;

/** One request as Node hands it over from a socket whose peer is `peer` (the bindings @hono/node-server gives the app). */
const from = (peer: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> =>
  call(stack.app, method, path, headers, body, { incoming: { socket: { remoteAddress: peer } } });

const TOO_MANY = /^too many requests without valid credentials from this address; retry in \d+ s$/;

function expectRefusedA(res: Reply) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ ok: false, error: expect.stringMatching(TOO_MANY) });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

function expectRefusedB(res: Reply) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: expect.stringMatching(TOO_MANY) });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

/** Calls to the database's client that look a partner up by its key (either interface's). */
function countKeyLookups() {
  const client = (stack.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const spy = jest.spyOn(client, 'query');
  const text = (q: unknown) => (typeof q === 'string' ? q : ((q as { text?: string } | undefined)?.text ?? ''));
  return {
    count: () => spy.mock.calls.filter(([q]) => /from "api_connections"/.test(text(q))).length,
    stop: () => spy.mockRestore(),
  };
}

describe('throttling before authentication', () => {
  it('a wrong key hammered from one address gets 429 with Retry-After within the budget, on both interfaces and in each shape', async () => {
    const peer = freshPeer();
    for (let i = 0; i < FAILURES; i++) {
      const wrong = await from(peer, 'GET', '/api/partners/wallet/', WRONG_A);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ ok: false, error: 'invalid X-API-KEY or X-API-SECRET' });
    }
    expectRefusedA(await from(peer, 'GET', '/api/partners/wallet/', WRONG_A));
    // The address is refused on both interfaces until its minute ends, for every request without valid credentials.
    expectRefusedB(await from(peer, 'GET', '/v1/products', WRONG_B));
    expectRefusedA(await from(peer, 'GET', '/api/partners/wallet/', {}));
    // Valid credentials are still served from it, and a known key with a wrong secret is refused as the rest.
    const { creds } = await newPartner(stack);
    expect((await from(peer, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
    expect((await from(peer, 'GET', '/v1/products', bAuth(creds))).status).toBe(200);
    expectRefusedA(await from(peer, 'GET', '/api/partners/wallet/', { ...aAuth(creds), 'x-api-secret': 'wrong' }));
    // Another address is not affected.
    expect((await from(freshPeer(), 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);

    // Interface B alone, from another address: the same budget, answered `{detail}` with WWW-Authenticate until then.
    const other = freshPeer();
    for (let i = 0; i < FAILURES; i++) {
      const wrong = await from(other, 'POST', '/v1/products/orders', WRONG_B, { product_id: 'x', quantity: 1 });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ detail: 'invalid bearer key' });
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    }
    expectRefusedB(await from(other, 'POST', '/v1/products/orders', WRONG_B, { product_id: 'x', quantity: 1 }));
    expectRefusedA(await from(other, 'GET', '/api/partners/wallet/', {}));
  });

  it('requests without credentials count in the wider unauthenticated budget', async () => {
    const peer = freshPeer();
    for (let i = 0; i < UNAUTHENTICATED; i++) {
      const anonymous = await from(peer, 'GET', i % 2 ? '/v1/products' : '/api/partners/wallet/', {});
      expect(anonymous.status).toBe(401);
    }
    expectRefusedA(await from(peer, 'GET', '/api/partners/wallet/', {}));
    // The public documents take no credentials and count nowhere.
    expect((await from(peer, 'GET', '/api/openapi.json', {})).status).toBe(200);
  });

  it('honours X-Forwarded-For only from a trusted proxy, taking its right-most untrusted address', async () => {
    // An untrusted peer's header is ignored: inventing a new address per request dodges nothing.
    const spoofer = freshPeer();
    for (let i = 0; i < FAILURES; i++) {
      expect((await from(spoofer, 'GET', '/api/partners/wallet/', { ...WRONG_A, 'x-forwarded-for': `198.51.100.${i + 1}` })).status).toBe(401);
    }
    expectRefusedA(await from(spoofer, 'GET', '/api/partners/wallet/', { ...WRONG_A, 'x-forwarded-for': '198.51.100.200' }));

    // Behind the trusted proxy, each client counts apart; what a client prepends to the header is not believed.
    const proxy = '10.9.0.1';
    for (let i = 0; i < FAILURES; i++) {
      const forwarded = await from(proxy, 'GET', '/v1/products', { ...WRONG_B, 'x-forwarded-for': `192.0.2.${i}, 198.51.100.50` });
      expect(forwarded.status).toBe(401);
    }
    expectRefusedB(await from(proxy, 'GET', '/v1/products', { ...WRONG_B, 'x-forwarded-for': '198.51.100.50' }));
    // Through two trusted proxies (the header's last hop is the first proxy's peer): still that client.
    expectRefusedB(await from(proxy, 'GET', '/v1/products', { ...WRONG_B, 'x-forwarded-for': '198.51.100.50, 10.9.3.4' }));
    // Another client through the same proxy, and the proxy's own requests, are not refused.
    expect((await from(proxy, 'GET', '/v1/products', { ...WRONG_B, 'x-forwarded-for': '198.51.100.51' })).status).toBe(401);
    expect((await from(proxy, 'GET', '/v1/products', WRONG_B)).status).toBe(401);
  });

  it('a huge body with bad credentials is answered 401 without being read: a body that never ends still gets its answer', async () => {
    const server = await listen(stack.app.fetch, 0, '127.0.0.1');
    try {
      for (const [path, auth, answer] of [
        ['/api/partners/pay/', 'X-API-KEY: nobody\r\nX-API-SECRET: nothing\r\n', { ok: false, error: 'X-API-KEY must be 64 hexadecimal characters' }],
        ['/v1/hotels/bookings', 'Authorization: Bearer agk_nobody\r\n', { detail: 'invalid bearer key' }],
      ] as const) {
        for (const framing of ['Content-Length: 52428800\r\n', 'Transfer-Encoding: chunked\r\n']) {
          const socket = net.connect(server.port, '127.0.0.1');
          const reply = await new Promise<string>((resolve, reject) => {
            let got = '';
            const timer = setTimeout(() => reject(new Error(`no answer while the body was still being sent: ${path} ${framing.trim()}`)), 5000);
            socket.on('connect', () => {
              socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}${auth}\r\n`);
              const chunk = '{"padding":"' + 'x'.repeat(64 * 1024);
              socket.write(framing.startsWith('Transfer') ? `${chunk.length.toString(16)}\r\n${chunk}\r\n` : chunk);
            });
            socket.on('data', (d: Buffer) => {
              got += d.toString('latin1');
              const end = got.indexOf('\r\n\r\n');
              const length = /content-length: (\d+)/i.exec(got)?.[1];
              if (end >= 0 && length !== undefined && got.length >= end + 4 + Number(length)) {
                clearTimeout(timer);
                resolve(got);
              }
            });
            socket.on('error', reject);
          });
          socket.destroy();
          expect(reply).toMatch(/^HTTP\/1\.1 401 /);
          expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual(answer);
        }
      }
    } finally {
      await server.close();
    }
  });

  it('an unknown key is looked up once, then answered from memory; a refused address costs one read of the keys at most, however many it invents', async () => {
    const lookups = countKeyLookups();
    try {
      const peer = freshPeer();
      const unknownA = { 'x-api-key': 'cd'.repeat(32), 'x-api-secret': 'whatever' };
      for (let i = 0; i < 3; i++) expect((await from(peer, 'GET', '/api/partners/wallet/', unknownA)).status).toBe(401);
      expect(lookups.count()).toBe(1);
      for (let i = 0; i < 2; i++) expect((await from(peer, 'GET', '/v1/products', { authorization: 'Bearer agk_unknown-one' })).status).toBe(401);
      expect(lookups.count()).toBe(2);
      // The budget is spent: keys never seen are refused with no lookup of their own; the
      // directory of active keys is read once for the whole flood (and then every few seconds at most).
      for (let i = 0; i < 40; i++) {
        expectRefusedA(await from(peer, 'GET', '/api/partners/wallet/', { ...unknownA, 'x-api-key': i.toString(16).padStart(64, 'e') }));
        expectRefusedB(await from(peer, 'GET', '/v1/products', { authorization: `Bearer agk_unknown-${i}` }));
      }
      expect(lookups.count()).toBeLessThanOrEqual(3);
      // A valid partner on that address is checked from memory: one read of its row.
      const { creds } = await newPartner(stack);
      const before = lookups.count();
      for (let i = 0; i < 5; i++) expect((await from(peer, 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
      expect(lookups.count() - before).toBeLessThanOrEqual(3);
    } finally {
      lookups.stop();
    }
  });
});

describe('a valid partner behind an address flooded with wrong keys, over HTTP', () => {
  it('is served and counted in its own limit on both interfaces, while the wrong keys from that address get 429', async () => {
    const { creds } = await newPartner(stack);
    expect((await adminClient(stack).post(`/admin/partners/${creds.partner_id}/rate-limit`, { per_minute: 3 })).status).toBe(200);
    const server = await listen(stack.app.fetch, 0, '127.0.0.1');
    const get = async (path: string, headers: Record<string, string>) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers });
      return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
    };
    let invented = 0;
    const wrongA = () => ({ 'x-api-key': (++invented).toString(16).padStart(64, 'a'), 'x-api-secret': 'guess' });
    const wrongB = () => ({ authorization: `Bearer agk_guess-${++invented}` });
    try {
      // A broken script behind the office's address, on both interfaces, until the address is refused.
      let refused: Awaited<ReturnType<typeof get>> | undefined;
      for (let i = 0; i <= FAILURES && !refused; i++) {
        const res = await get(i % 2 ? '/v1/products' : '/api/partners/wallet/', i % 2 ? wrongB() : wrongA());
        if (res.status === 429) refused = res;
        else expect(res.status).toBe(401);
      }
      const said = refused?.body as { detail?: string; error?: string } | undefined;
      expect(said?.detail ?? said?.error).toMatch(TOO_MANY);

      for (let i = 0; i < 3; i++) {
        // The flood goes on and stays refused...
        const wrong = await get('/api/partners/wallet/', wrongA());
        expect(wrong.status).toBe(429);
        expect(wrong.body).toEqual({ ok: false, error: expect.stringMatching(TOO_MANY) });
        expect((await get('/v1/products', wrongB())).status).toBe(429);
        expect((await get('/api/partners/wallet/', {})).status).toBe(429);
        // ...while the partner on the same address is served, counted in its own limit on each interface.
        const a = await get('/api/partners/wallet/', aAuth(creds));
        expect(a.status).toBe(200);
        expect(a.headers.get('ratelimit-policy')).toBe('"per-minute";q=3;w=60');
        expect(a.headers.get('ratelimit')).toMatch(new RegExp(`^"per-minute";r=${2 - i};t=\\d+$`));
        const b = await get('/v1/products', bAuth(creds));
        expect(b.status).toBe(200);
        expect(b.headers.get('ratelimit')).toMatch(new RegExp(`^"per-minute";r=${2 - i};t=\\d+$`));
      }
      // The address's refusals carry the budget it spent in the RateLimit fields, nothing left of it.
      const refusedAgain = await get('/v1/products', wrongB());
      expect(refusedAgain.headers.get('ratelimit-policy')).toBe(`"auth-failures";q=${FAILURES};w=60`);
      expect(refusedAgain.headers.get('ratelimit')).toBe(`"auth-failures";r=0;t=${refusedAgain.headers.get('retry-after')}`);
      // Its own limit spent, the partner is refused as a partner over its limit, not as the address.
      const over = await get('/api/partners/wallet/', aAuth(creds));
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ ok: false, error: expect.stringMatching(/^rate limit exceeded: 3 requests per minute; retry in \d+ s$/) });
      expect(over.headers.get('ratelimit')).toMatch(/^"per-minute";r=0;t=\d+$/);
    } finally {
      await server.close();
    }
  });
});

describe('pay retries', () => {
  it('count in a bucket of their own per partner: 429 with Retry-After once it is spent, while other requests go on', async () => {
    const { creds, api } = await newPartner(stack);
    const order = await api.productOrder();
    const body = { product_order_id: order.id, idempotency_key: `throttle-${order.id}` };
    const first = await from(freshPeer(), 'POST', '/api/partners/pay/', aAuth(creds), body);
    expect(first.status).toBe(200);
    for (let i = 0; i < PAY_RETRIES; i++) {
      const retry = await from(freshPeer(), 'POST', '/api/partners/pay/', aAuth(creds), body);
      expect(retry.status).toBe(200);
      expect(retry.body.data.ledger_id).toBe(first.body.data.ledger_id);
    }
    const over = await from(freshPeer(), 'POST', '/api/partners/pay/', aAuth(creds), body);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      ok: false,
      error: expect.stringMatching(new RegExp(`^rate limit exceeded: ${PAY_RETRIES} pay retries per minute; retry in \\d+ s$`)),
    });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The partner's other requests are counted as before, and another partner's retries are its own.
    expect((await api.get('/api/partners/wallet/')).status).toBe(200);
    const other = await newPartner(stack);
    const otherOrder = await other.api.productOrder();
    const otherBody = { product_order_id: otherOrder.id, idempotency_key: `throttle-${otherOrder.id}` };
    expect((await other.api.post('/api/partners/pay/', otherBody)).status).toBe(200);
    expect((await other.api.post('/api/partners/pay/', otherBody)).status).toBe(200);
  });
});

describe('a counter store that fails', () => {
  it('is replaced by counts in this process: every limit still holds, the outage is logged once, and its end too', async () => {
    const { creds } = await newPartner(stack);
    expect((await adminClient(stack).post(`/admin/partners/${creds.partner_id}/rate-limit`, { per_minute: 2 })).status).toBe(200);
    const logs = captureLogs('info');
    try {
      await stack.db.execute(sql`drop table rate_limit_counters`);
      for (let i = 0; i < 2; i++) expect((await from(freshPeer(), 'GET', '/api/partners/wallet/', aAuth(creds))).status).toBe(200);
      const over = await from(freshPeer(), 'GET', '/api/partners/wallet/', aAuth(creds));
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The budgets per address hold too.
      const peer = freshPeer();
      for (let i = 0; i < FAILURES; i++) expect((await from(peer, 'GET', '/v1/products', WRONG_B)).status).toBe(401);
      expectRefusedB(await from(peer, 'GET', '/v1/products', WRONG_B));
      const failed = logs.records.filter((r) => r.msg?.startsWith('rate limits: the counter store failed'));
      expect(failed).toHaveLength(1);
      expect(failed[0]!.level).toBe(40);

      await stack.db.execute(
        sql`create table rate_limit_counters ("key" varchar(255) primary key not null, "points" integer default 0 not null, "expire" bigint)`,
      );
      expect((await from(freshPeer(), 'GET', '/v1/products', bAuth(creds))).status).toBe(200);
      expect(logs.records.filter((r) => r.msg?.startsWith('rate limits: the counter store answers again'))).toHaveLength(1);
      expect(logs.records.filter((r) => r.msg?.startsWith('rate limits: the counter store failed'))).toHaveLength(1);
    } finally {
      logs.stop();
    }
  });
});
