import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Hono } from 'hono';
import { listen, requestSentNoLaterThan, type RunningServer } from '../../src/platform/listen';

/**
 * When a request counts as arrived (the pay rule's "arrived", src/domain/pay-request.ts): its
 * connection's readiness, a lower bound of when it was sent, never older than the lag bound.
 */
describe('requestSentNoLaterThan', () => {
  let server: RunningServer;
  const lagBound = { ms: 60_000 };
  beforeAll(async () => {
    const app = new Hono();
    app.get('/', (c) => {
      const now = Date.now();
      const sent = requestSentNoLaterThan((c.env as { incoming: IncomingMessage }).incoming, now, lagBound.ms);
      return c.json({ lag: now - sent });
    });
    server = await listen(app.fetch, 0, '127.0.0.1');
  });
  afterAll(() => server.close());

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  afterAll(() => agent.destroy());
  const get = () =>
    new Promise<{ lag: number; socket: unknown }>((resolve, reject) => {
      const req = http.get(`${server.url}/`, { agent }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ ...(JSON.parse(body) as { lag: number }), socket: req.socket }));
      });
      req.on('error', reject);
    });

  it('counts a request on a reused connection from the end of the answer before it, within the bound', async () => {
    const first = await get();
    expect(first.lag).toBeLessThan(200); // a fresh connection: accepted just before
    await new Promise((r) => setTimeout(r, 400));
    const second = await get();
    expect(second.socket).toBe(first.socket); // the same keep-alive connection
    expect(second.lag).toBeGreaterThanOrEqual(350); // idle since the first answer: sent no later than that
    lagBound.ms = 100;
    await new Promise((r) => setTimeout(r, 400));
    const third = await get();
    expect(third.socket).toBe(first.socket);
    expect(third.lag).toBe(100); // an idle connection says nothing older than the bound
  });

  it('counts a request that did not come through a connection (in-process) from now', () => {
    expect(requestSentNoLaterThan(undefined, 1234, 10_000)).toBe(1234);
  });
});
