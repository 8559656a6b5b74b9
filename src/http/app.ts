import { Hono } from 'hono';
import { httpDuration } from '../platform/metrics';
import { logRequest } from '../platform/log';
import { docsRoutes } from './docs';
import { publicHealthz } from '../health/answers';
import { allowedMethods, methodNotAllowed } from './method-not-allowed';
import type { ApiDeps } from './deps';
import { consoleNotFound, createAgencyConsole } from '../console/agency/app';
import { createAgencyApi } from './agency/app';
import { createPartnerApi } from './partner/app';
import { duffelWebhookRoutes } from './duffel-webhooks';
import { requestId, type RequestIdVariables } from './request-id';

/** The public HTTP app; `server.ts` only listens, so tests call `app.request()` directly. */
export function createApp(deps: ApiDeps) {
  const app = new Hono<{ Variables: RequestIdVariables }>();
  app.use('*', requestId());
  app.use('*', async (c, next) => {
    const end = httpDuration.startTimer();
    await next();
    // The route pattern (not the path) keeps the label set small: /api/tours/:id/, not every id.
    const seconds = end({ method: c.req.method, route: c.req.routePath, status: String(c.res.status) });
    logRequest({ method: c.req.method, route: c.req.routePath, status: c.res.status, ms: Math.round(seconds * 1000) });
  });
  app.get('/healthz', (c) => publicHealthz(c, deps.health.report()));
  app.route('/', duffelWebhookRoutes(deps));
  app.route('/api', createPartnerApi(deps));
  app.route('/v1', createAgencyApi(deps));
  // The agency console calls the interfaces through this same app, as a browser would.
  app.get('/console', (c) => c.redirect('/console/', 301));
  app.route('/console/', createAgencyConsole({ fetch: (req, env) => app.fetch(req, env as never) }));
  app.route(
    '/docs',
    docsRoutes([
      {
        name: 'Interface A — partner API (/api)',
        summary: 'Flights, hotels, tours, residence, visa and travel products, paid from a prepaid credit wallet. Headers X-API-KEY and X-API-SECRET.',
        docsUrl: '/api/docs',
        specUrl: '/api/openapi.json',
      },
      {
        name: 'Interface B — agency API (/v1)',
        summary: 'Hotel bookings and travel products for agencies, settled on the same wallet at creation. Header Authorization: Bearer <agency key>.',
        docsUrl: '/v1/docs',
        specUrl: '/v1/openapi.json',
      },
    ]),
  );
  // Hono does not carry a sub-app's notFound over through route(): shape each interface's 404
  // here, and its 405 for a path it serves with other methods (TRACE, PUT on a GET route, …).
  let allowed: ((path: string) => string[]) | undefined;
  app.notFound((c) => {
    allowed ??= allowedMethods(app);
    const methods = allowed(c.req.path);
    const api = c.req.path.startsWith('/api/');
    if (methods.length > 0) return methodNotAllowed(c, methods);
    const error = `no route for ${c.req.method} ${c.req.path}`;
    if (api) return c.json({ ok: false, error }, 404);
    if (c.req.path.startsWith('/console/')) return consoleNotFound(c);
    return c.json({ detail: error }, 404);
  });
  return app;
}
