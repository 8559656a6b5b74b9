import net from 'node:net';
import { Client } from 'undici';
import { listen, type RunningServer } from '../../src/platform/listen';
import { day } from '../support/fixtures';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { newPartner, type PartnerCredentials } from '../support/clients';

/**
 * Every request that reaches the server is answered, also on a kept-alive connection after
 * an answer given before the request's body was read (413, 415, a 400 or 401 judged on the
 * headers, the path or the query): over real sockets, through the engine's own listener.
 */

let stack: TestStack;
useStack((s) => (stack = s));

/** Over the body limit (600 KB), as a hostile client sends it: nested objects. */
const OVER_LIMIT = '{"zz":' + '{"a":'.repeat(120_000);
/** Under the limit but larger than one read of the socket: most of it is still on the wire when an early answer leaves. */
const LARGE = JSON.stringify({ padding: 'x'.repeat(200_000) });

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** One client, one connection at a time (undici opens the next only once the first is closed). */
function oneConnection(server: RunningServer) {
  const client = new Client(server.url, { pipelining: 1 });
  let connections = 0;
  client.on('connect', () => connections++);
  return {
    client,
    connections: () => connections,
    async send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
      const res = await client.request({ method: method as 'POST', path, headers, body });
      const text = await res.body.text();
      const connection = res.headers.connection;
      return { status: res.statusCode, connection: Array.isArray(connection) ? connection.join(',') : connection, body: text };
    },
  };
}

const json = { 'content-type': 'application/json' };
const aHeaders = (c: PartnerCredentials) => ({ 'x-api-key': c.api_key, 'x-api-secret': c.api_secret });
const bHeaders = (c: PartnerCredentials) => ({ authorization: `Bearer ${c.agency_key}` });
const hotelSearch = JSON.stringify({ check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 });

describe('a kept-alive connection after an answer given before the body was read', () => {
  it('on both interfaces and the admin API: the early answer says Connection: close, and the next request of the same client is answered on a new connection', async () => {
    const { creds } = await newPartner(stack, '0', '5000000');
    const api = await listen(stack.app.fetch, 0, '127.0.0.1');
    const admin = await listen(stack.admin.fetch, 0, '127.0.0.1');
    const a = oneConnection(api);
    const b = oneConnection(api);
    const ops = oneConnection(admin);
    try {
      const A = aHeaders(creds);
      const B = bHeaders(creds);
      const validA = () => a.send('POST', '/api/hotel/search_hotels/', { ...A, ...json }, hotelSearch);
      const validB = () => b.send('GET', '/v1/products?limit=1', B);
      const early: Array<[string, () => Promise<Answer>, number, () => Promise<Answer>]> = [
        ['A 413', () => a.send('POST', '/api/partners/pay/', { ...A, ...json }, OVER_LIMIT), 413, validA],
        ['A 415', () => a.send('POST', '/api/hotel/search_hotels/', { ...A, 'content-type': 'text/plain' }, LARGE), 415, validA],
        ['A early 400', () => a.send('POST', '/api/hotel/search_hotels/?q=%00', { ...A, ...json }, LARGE), 400, validA],
        ['A 401', () => a.send('POST', '/api/hotel/search_hotels/', { 'x-api-key': 'wrong', 'x-api-secret': 'wrong', ...json }, LARGE), 401, validA],
        ['B 413', () => b.send('POST', '/v1/products/orders', { ...B, ...json }, OVER_LIMIT), 413, validB],
        ['B 415', () => b.send('POST', '/v1/products/orders', { ...B, 'content-type': 'text/plain' }, LARGE), 415, validB],
        ['B early 422', () => b.send('POST', '/v1/products/orders?q=%00', { ...B, ...json }, LARGE), 422, validB],
        ['B 401', () => b.send('POST', '/v1/products/orders', { authorization: 'Bearer wrong', ...json }, LARGE), 401, validB],
        [
          'admin 413',
          () => ops.send('POST', '/admin/partners', { authorization: `Bearer ${ADMIN_TOKEN}`, ...json }, OVER_LIMIT),
          413,
          () => ops.send('GET', `/admin/partners/${creds.partner_id}/wallet`, { authorization: `Bearer ${ADMIN_TOKEN}` }),
        ],
      ];
      const seen: string[] = [];
      for (const [name, ask, , next] of early) {
        const answer = await ask();
        seen.push(`${name}: ${answer.status} connection=${answer.connection}`);
        const after = await next().then(
          (r) => `${r.status}`,
          (err: Error & { code?: string }) => `unanswered (${err.code ?? err.message})`,
        );
        seen.push(`${name}, next request: ${after}`);
      }
      expect(seen).toEqual(early.flatMap(([name, , status]) => [`${name}: ${status} connection=close`, `${name}, next request: 200`]));
      // Each early answer closed its connection: the next request went on a new one.
      expect([a.connections(), b.connections(), ops.connections()]).toEqual([5, 5, 2]);
    } finally {
      await Promise.all([a.client.close(), b.client.close(), ops.client.close()]);
      await api.close();
      await admin.close();
    }
  });

  it('a client still sending the body after the early answer reads the whole answer and sees the connection closed, not reset', async () => {
    const api = await listen(stack.app.fetch, 0, '127.0.0.1');
    try {
      const outcome = await new Promise<{ got: string; error: string | null; sentAfterAnswer: number; closedAfterBody: boolean }>((resolve) => {
        // Half-open, as a client that sends its whole request whatever it hears meanwhile.
        const socket = net.connect({ port: api.port, host: '127.0.0.1', allowHalfOpen: true });
        let got = '';
        let error: string | null = null;
        let sentAfterAnswer = 0;
        let sent = 0;
        socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
        socket.on('error', (err) => (error = err.message));
        socket.on('close', () => resolve({ got, error, sentAfterAnswer, closedAfterBody: sent >= body.length }));
        const body = Buffer.from(LARGE);
        socket.write(
          `POST /api/hotel/search_hotels/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nX-API-KEY: wrong\r\nX-API-SECRET: wrong\r\n\r\n`,
        );
        // The rest of the body follows slowly: a client on a slow link, well after the answer.
        const drip = setInterval(() => {
          if (socket.destroyed) return clearInterval(drip);
          const piece = body.subarray(sent, sent + 20_000);
          sent += piece.length;
          if (got) sentAfterAnswer += piece.length;
          socket.write(piece);
          if (sent >= body.length) {
            clearInterval(drip);
            socket.end();
          }
        }, 100);
      });
      expect(outcome.got).toMatch(/^HTTP\/1\.1 401 /);
      expect(outcome.got).toMatch(/^Connection: close\r$/im);
      expect(outcome.got).toMatch(/"ok":false/);
      // The server read the rest of the body after its answer, and closed only then, without a reset.
      expect(outcome.sentAfterAnswer).toBeGreaterThan(100_000);
      expect([outcome.error, outcome.closedAfterBody]).toEqual([null, true]);
    } finally {
      await api.close();
    }
  });
});
