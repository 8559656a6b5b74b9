import http from 'node:http';
import net from 'node:net';
import { eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { MAX_BODY_BYTES } from '../../src/http/body-limit';
import { KEEP_ALIVE_TIMEOUT_MS, listen } from '../../src/platform/listen';
import { call, newPartner } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

/** Requests the interfaces refuse before doing anything: bodies over the limit (413), methods a path does not serve (405). */

let stack: TestStack;
useStack((s) => (stack = s));

const huge = (bytes: number, orderId = 1) => JSON.stringify({ product_order_id: orderId, idempotency_key: 'k', padding: 'x'.repeat(bytes) });

describe('request body limit', () => {
  it('Interface A answers 413 {ok:false,error} for a 5 MB pay body and moves no money', async () => {
    const { creds, api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await call(
      stack.app,
      'POST',
      '/api/partners/pay/',
      { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'content-type': 'application/json' },
      huge(5 * 1024 * 1024, order.id),
    );
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining(`${MAX_BODY_BYTES / 1024} KiB`) });
    expect(await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, order.id))).toEqual([]);
    // Just under the limit, the body is read and judged as usual (an order that does not exist: 400).
    const under = await call(
      stack.app,
      'POST',
      '/api/partners/pay/',
      { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'content-type': 'application/json' },
      huge(MAX_BODY_BYTES - 1024, 999_999),
    );
    expect(under.status).toBe(400);
  });

  it('Interface B answers 413 in FastAPI list form and writes no order', async () => {
    const { creds } = await newPartner(stack, '0', '5000000');
    const res = await call(
      stack.app,
      'POST',
      '/v1/products/orders',
      { authorization: `Bearer ${creds.agency_key}`, 'content-type': 'application/json' },
      huge(5 * 1024 * 1024),
    );
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'body_too_large' }] });
    expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toEqual([]);
  });
});

function rawRequest(port: number, method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('methods a path does not serve', () => {
  it('answer 405 with Allow in each interface’s shape; unknown paths stay 404', async () => {
    const { creds } = await newPartner(stack, '0', '5000000');
    const a = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
    // TRACE cannot be sent through fetch's Request: over a real socket, as a scanner sends it.
    const server = await listen(stack.app.fetch, 0, '127.0.0.1');
    try {
      const trace = await rawRequest(server.port, 'TRACE', '/api/partners/wallet/', a);
      expect(trace.status).toBe(405);
      expect(trace.allow).toBe('GET, HEAD');
      expect(JSON.parse(trace.body)).toEqual({ ok: false, error: expect.stringContaining('TRACE') });
    } finally {
      await server.close();
    }
    const put = await call(stack.app, 'PUT', '/api/partners/pay/', a, {});
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'POST']);
    const byId = await call(stack.app, 'PATCH', '/api/tours/3/', a, {});
    expect([byId.status, byId.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    // A path a literal route names is that route's alone, with or without its trailing slash:
    // GET /api/tours/prebook/ is not the tour "prebook" of GET /api/tours/:id/.
    for (const path of ['/api/tours/prebook/', '/api/tours/prebook']) {
      const literal = await call(stack.app, 'GET', path, a);
      expect([literal.status, literal.headers.get('allow')]).toEqual([405, 'POST']);
    }

    const b = { authorization: `Bearer ${creds.agency_key}` };
    const patch = await call(stack.app, 'PATCH', '/v1/hotels/bookings', b, {});
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(patch.body).toEqual({ detail: 'Method Not Allowed' });

    expect((await call(stack.app, 'PUT', '/api/no/such/route/', a, {})).status).toBe(404);
    expect((await call(stack.app, 'GET', '/v1/no-such-route', b)).status).toBe(404);
  });
});

describe('text PostgreSQL cannot store (issue 12)', () => {
  it('a NUL in a query or body, or a lone surrogate in a body, is 400 on A and 422 on B, naming where, with nothing written', async () => {
    const { creds, api } = await newPartner(stack, '0', '5000000');
    const nulQuery = await api.get('/api/products/products/?search=%00');
    expect(nulQuery.status).toBe(400);
    expect(nulQuery.body).toEqual({ ok: false, error: expect.stringMatching(/^search: text must not contain NUL/) });

    const b = { authorization: `Bearer ${creds.agency_key}` };
    const lone = await call(
      stack.app,
      'POST',
      '/v1/hotels/bookings',
      b,
      '{"hotel_id":"410","room_id":"DLX-BB-FLEX","guest_name":"Ali\\ud800","guest_email":"a@example.com","check_in":"2027-03-10","check_out":"2027-03-12","guests":2}',
    );
    expect(lone.status).toBe(422);
    expect(lone.body).toEqual({ detail: [{ loc: ['body', 'guest_name'], msg: expect.stringContaining('surrogate'), type: 'string_unstorable' }] });
    const nulBody = await call(stack.app, 'POST', '/v1/products/orders', b, {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 1,
      delivery_address: { street: 'Valiasr\u00001', city: 'Tehran', country: 'IR', postal_code: '1415' },
    });
    expect(nulBody.status).toBe(422);
    expect(nulBody.body.detail[0].loc).toEqual(['body', 'delivery_address', 'street']);
    const nulSearch = await call(stack.app, 'GET', '/v1/products?category=sim%00', b);
    expect([nulSearch.status, nulSearch.body.detail[0].loc]).toEqual([422, ['query', 'category']]);
    expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toEqual([]);

    // Paired surrogates (an emoji) are ordinary text.
    const emoji = await api.get(`/api/products/products/?search=${encodeURIComponent('sim 😀')}`);
    expect(emoji.status).toBe(200);
  });
});

describe('a client that does not send the request it announced', () => {
  it('is answered 408 and its connection closed once the receive bound passes; the server keeps serving, and nothing is written', async () => {
    const { creds } = await newPartner(stack, '0', '5000000');
    const server = await listen(stack.app.fetch, 0, '127.0.0.1', { receiveTimeoutMs: 1500 });
    try {
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(server.port, '127.0.0.1', () => {
          // A body of 100 bytes announced, 17 sent, the rest never.
          socket.write(
            'POST /api/products/checkout/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n' +
              `X-API-KEY: ${creds.api_key}\r\nX-API-SECRET: ${creds.api_secret}\r\n\r\n{"payment_method"`,
          );
        });
        let got = '';
        socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
        socket.on('close', () => resolve(got));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      // Closed by the bound (checked every 375 ms here), not by anything else.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(Date.now() - started).toBeLessThan(10_000);
      const res = await fetch(`${server.url}/api/partners/wallet/`, { headers: { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret } });
      expect(res.status).toBe(200);
      expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('an idle keep-alive connection', () => {
  it("outlives Node's default five seconds, as announced, and serves the next request", async () => {
    const { creds } = await newPartner(stack, '0', '5000000');
    const server = await listen(stack.app.fetch, 0, '127.0.0.1');
    const socket = net.connect(server.port, '127.0.0.1');
    try {
      let got = '';
      let closed = false;
      socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
      socket.on('close', () => (closed = true));
      const ask = async () => {
        const before = got.length;
        socket.write(`GET /api/partners/wallet/ HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${creds.api_key}\r\nX-API-SECRET: ${creds.api_secret}\r\n\r\n`);
        for (let i = 0; i < 100 && !/\r\n\r\n/.test(got.slice(before)); i++) await new Promise((r) => setTimeout(r, 50));
        return got.slice(before);
      };
      const first = await ask();
      expect(first).toMatch(/^HTTP\/1\.1 200 /);
      expect(first).toMatch(new RegExp(`^Keep-Alive: timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}\\r$`, 'im'));
      await new Promise((r) => setTimeout(r, 6_000));
      expect(closed).toBe(false);
      expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      socket.destroy();
      await server.close();
    }
  }, 20_000);
});
