import { Hono } from 'hono';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { rateLimit, rateLimitsOver } from '../../src/http/rate-limit';
import { requestId } from '../../src/http/request-id';

/**
 * The middlewares every authenticated answer passes through set their headers before the
 * handler runs, so the answer the handler built is the one sent. A header set on a finished
 * answer makes Hono rebuild it as a new web Response, which the Node adapter can only stream
 * (docs/decisions/answers-built-once.md). The answer a request gets must
 * be the very object its handler returned, on a success, an error and a refusal alike.
 */
describe('answers are built once', () => {
  const app = () => {
    const limits = rateLimitsOver(new RateLimiterMemory({ points: 2 ** 31 - 1, duration: 60 }), {
      perMinute: 100,
      payRetriesPerMinute: 100,
      unauthenticatedPerMinute: 100,
      authFailuresPerMinute: 100,
    });
    const built: Response[] = [];
    const app = new Hono();
    app.use('*', requestId());
    app.use(
      '*',
      rateLimit(
        limits,
        'a',
        () => ({ id: 1, rateLimitPerMinute: 2 }),
        (c, error) => {
          const refused = c.json({ ok: false, error }, 429);
          built.push(refused);
          return refused;
        },
      ),
    );
    app.get('/ok', (c) => {
      const res = c.json({ ok: true, data: { balance: '0.00' } });
      built.push(res);
      return res;
    });
    app.get('/missing', (c) => {
      const res = c.json({ ok: false, error: 'no such thing' }, 404);
      built.push(res);
      return res;
    });
    return { app, built };
  };

  it('sends the handler’s own answer, with the request id and the RateLimit fields on it', async () => {
    const { app: a, built } = app();
    const ok = await a.request('/ok');
    expect(ok).toBe(built[0]);
    expect(ok.headers.get('ratelimit')).toMatch(/^"per-minute";r=1;t=\d+$/);
    expect(ok.headers.get('x-request-id')).toBeTruthy();
    const missing = await a.request('/missing');
    expect(missing).toBe(built[1]);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit')).toMatch(/^"per-minute";r=0;t=\d+$/);
    const refused = await a.request('/ok');
    expect(refused).toBe(built[2]);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('ratelimit')).toMatch(/^"per-minute";r=0;t=\d+$/);
  });
});
