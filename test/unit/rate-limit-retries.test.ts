import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { rateLimit, rateLimitsOver, type PayRetryVariables } from '../../src/http/rate-limit';

/**
 * A pay retry counts in the partner's pay-retry bucket, not in its limit: within the limit the
 * pay route says so (`countPayRetry`) once it has read the key's row; over the limit the
 * limiter asks (`payRetry`) and still serves a retry. Both ways end in the same counts.
 */
describe('pay retries and the partner limit', () => {
  const LIMIT = 3;
  const RETRIES = 2;
  const app = (opts: { isRetry: (c: { req: { header(name: string): string | undefined } }) => Promise<boolean> }) => {
    const limits = rateLimitsOver(new RateLimiterMemory({ points: 2 ** 31 - 1, duration: 60 }), {
      perMinute: 100,
      payRetriesPerMinute: RETRIES,
      unauthenticatedPerMinute: 100,
      authFailuresPerMinute: 100,
    });
    const asked: string[] = [];
    const app = new Hono<{ Variables: PayRetryVariables }>();
    app.onError((err, c) => {
      if (err instanceof HTTPException) return c.json({ ok: false, error: err.message }, err.status);
      return c.json({ ok: false, error: 'internal' }, 500);
    });
    app.use(
      '*',
      rateLimit(
        limits,
        'a',
        () => ({ id: 7, rateLimitPerMinute: LIMIT }),
        (c, error) => c.json({ ok: false, error }, 429),
        (c) => {
          asked.push(c.req.path);
          return opts.isRetry(c);
        },
      ),
    );
    // The pay route: a request marked `x-retry` repeats a bound key, as its read of the key would tell.
    app.post('/pay', async (c) => {
      if (c.req.header('x-retry')) await c.get('countPayRetry')?.();
      return c.json({ ok: true, data: {} });
    });
    app.get('/wallet', (c) => c.json({ ok: true, data: {} }));
    return { app, asked };
  };
  const send = (a: Hono<{ Variables: PayRetryVariables }>, path: string, retry = false) =>
    a.request(path, { method: path === '/pay' ? 'POST' : 'GET', headers: retry ? { 'x-retry': '1' } : {} });
  const remaining = (res: Response) => /;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '')?.[1];

  it('within the limit, a retry the route tells gives its count back to the limit and spends the retries’ bucket', async () => {
    const { app: a, asked } = app({ isRetry: async () => true });
    expect(remaining(await send(a, '/pay'))).toBe('2');
    const retry = await send(a, '/pay', true);
    expect(retry.status).toBe(200);
    expect(remaining(retry)).toBe('2');
    expect(remaining(await send(a, '/pay', true))).toBe('2');
    // The retries' bucket is spent: 429 with its own message, and the partner's limit untouched.
    const over = await send(a, '/pay', true);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ ok: false, error: expect.stringMatching(/^rate limit exceeded: 2 pay retries per minute; retry in \d+ s$/) });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(remaining(over)).toBe('2');
    expect((await send(a, '/wallet')).status).toBe(200);
    expect((await send(a, '/wallet')).status).toBe(200);
    // Within the limit the limiter never read a key itself.
    expect(asked).toEqual([]);
  });

  it('over the limit, a retry is still answered within its bucket, and anything else is refused', async () => {
    const { app: a, asked } = app({ isRetry: async (c) => c.req.header('x-retry') !== undefined });
    for (let i = 0; i < LIMIT; i++) expect((await send(a, '/wallet')).status).toBe(200);
    const refused = await send(a, '/pay');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ ok: false, error: expect.stringMatching(/^rate limit exceeded: 3 requests per minute; retry in \d+ s$/) });
    for (let i = 0; i < RETRIES; i++) {
      const retry = await send(a, '/pay', true);
      expect(retry.status).toBe(200);
      expect(remaining(retry)).toBe('0');
    }
    const spent = await send(a, '/pay', true);
    expect(spent.status).toBe(429);
    expect(await spent.json()).toEqual({ ok: false, error: expect.stringMatching(/^rate limit exceeded: 2 pay retries per minute/) });
    expect(asked).toEqual(['/pay', '/pay', '/pay', '/pay']);
  });

  it('over the limit, a retry that cannot be told counts as any request', async () => {
    const { app: a } = app({ isRetry: () => Promise.reject(new Error('the database is down')) });
    for (let i = 0; i < LIMIT; i++) expect((await send(a, '/wallet')).status).toBe(200);
    const refused = await send(a, '/pay', true);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ ok: false, error: expect.stringMatching(/^rate limit exceeded: 3 requests per minute/) });
  });
});
