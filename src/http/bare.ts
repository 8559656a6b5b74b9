import { Hono } from 'hono';

/**
 * The yardstick of `bench:read` (served only when BENCH_BARE_PORT is set): a Hono JSON route
 * with no middleware, no authentication and no database, in the same process as the API, so
 * that each real endpoint's throughput can be read as a share of what Hono and Node give
 * on this machine at that moment.
 */
export function createBareApp() {
  const app = new Hono();
  app.get('/bare', (c) => c.json({ ok: true, data: { balance: '0.00', credit_limit: '0.00', currency: 'IRT' } }));
  return app;
}
