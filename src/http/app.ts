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
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  return app;
}
