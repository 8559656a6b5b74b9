import { Hono } from 'hono';
import type { ApiDeps } from './deps';
import { createPartnerApi } from './partner/app';
import { requestId, type RequestIdVariables } from './request-id';

/** The public HTTP app; `server.ts` only listens, so tests call `app.request()` directly. */
export function createApp(deps: ApiDeps) {
  const app = new Hono<{ Variables: RequestIdVariables }>();
  app.use('*', requestId());
  app.get('/healthz', async (c) => {
    const report = await deps.health();
    return c.json(report, report.ok ? 200 : 503);
  });
  app.route('/api', createPartnerApi(deps));
  // Hono does not carry a sub-app's notFound over through route(): shape /api's 404 here.
  app.notFound((c) => {
    const error = `no route for ${c.req.method} ${c.req.path}`;
    return c.req.path.startsWith('/api/') ? c.json({ ok: false, error }, 404) : c.json({ error }, 404);
  });
  return app;
}
