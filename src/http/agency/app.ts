import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, HTTP_STATUS } from '../../domain/errors';
import { authenticateAgency, isActiveAgencyKey } from '../../domain/partners';
import { supplierFailureAnswer } from '../supplier-failure';
import type { ApiDeps } from '../deps';
import { limitBody } from '../body-limit';
import { refuseUnstorableText } from '../text-guard';
import { logError } from '../../platform/log';
import { literalPathsFirst } from '../method-not-allowed';
import { publishInterface } from '../openapi-document';
import { unavailableAnswer } from '../../health/answers';
import { authenticateThrottled, credentialsFirst, rateLimit } from '../rate-limit';
import { enforceRights } from '../rights';
import { enforceOwnBookings } from '../own-bookings';
import { agencyCommonResponses, agencyRouter, fieldDetail, type AgencyEnv } from './router';
import { agencyHotelRoutes } from './hotels.routes';
import { agencyDocumentRoutes } from './documents.routes';
import { agencyEventRoutes } from './events.routes';
import { agencyProductRoutes } from './products.routes';

const detailItem = (loc: string[], msg: string, type: string) => ({ detail: [{ loc, msg, type }] });

/** Interface B's name, in its OpenAPI document and on its docs page. */
const TITLE = 'Travel booking engine — agency API (Interface B)';
const DESCRIPTION =
  'Hotel booking and travel products for agencies, settled on the agency’s credit wallet at creation. Errors are FastAPI-style `{detail}`. While the database, the workflow service or every worker is unreachable, a request that needs it answers 503 `{detail}` with `Retry-After` and changes nothing.';

/** The one place Interface B's errors are shaped: FastAPI's `{detail}`, never a stack trace. */
export function agencyError(err: Error, c: Context<AgencyEnv>) {
  if (err instanceof DomainError) {
    const status = HTTP_STATUS[err.code].agency as ContentfulStatusCode;
    if (err.code === 'validation') return c.json(fieldDetail(c.req.method === 'GET' ? 'query' : 'body', err.message), status);
    if (err.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer');
    return c.json({ detail: err.message }, status);
  }
  const supplierDown = supplierFailureAnswer(err, c, (detail) => ({ detail }));
  if (supplierDown) return supplierDown;
  if (err instanceof HTTPException) {
    // FastAPI's list form, as for every other invalid request (only 401, 402, 404 carry a string).
    if (err.status === 415) return c.json(detailItem(['header', 'content-type'], 'Content-Type must be application/json', 'content_type'), 415);
    if (err.status === 400) return c.json(detailItem(['body'], 'JSON decode error: the body is not valid JSON', 'json_invalid'), 422);
    return c.json(detailItem(['request'], err.message || 'bad request', 'value_error'), err.status);
  }
  const down = unavailableAnswer(err, c, (detail) => ({ detail }));
  if (down) return down;
  logError('unhandled error on Interface B', err, { requestId: c.get('requestId'), path: c.req.path });
  return c.json({ detail: `internal error; quote request id ${c.get('requestId')} to support` }, 500);
}

/** Interface B under /v1: `Authorization: Bearer <agency key>` on every route but the published contract. */
export function createAgencyApi(deps: ApiDeps) {
  const app = agencyRouter();
  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer', description: 'The agency key' });
  app.onError(agencyError);

  const isPublic = (c: Context) => c.req.path === '/v1/openapi.json' || c.req.path.startsWith('/v1/docs');
  const bearer = (c: Context) => /^Bearer\s+(\S+)$/i.exec((c.req.header('authorization') ?? '').trim())?.[1];
  const authenticate = authenticateThrottled(deps.rateLimits, {
    authenticate: (c) => authenticateAgency(deps.db, bearer(c)),
    presented: (c) => c.req.header('authorization') !== undefined,
    known: (c) => isActiveAgencyKey(deps.db, bearer(c)),
    addressOf: deps.clientAddress,
    refuse: (c, detail) => c.json({ detail }, 429),
  });
  app.use('*', credentialsFirst({ isPublic, health: deps.health, authenticate }));
  app.use(
    '*',
    limitBody((c, msg) => c.json(detailItem(['body'], msg, 'body_too_large'), 413)),
  );
  const limit = rateLimit(
    deps.rateLimits,
    'b',
    (c) => c.get('partner'),
    (c, detail) => c.json({ detail }, 429),
  );
  // Counted once the key names the partner.
  app.use('*', (c, next) => (isPublic(c) ? next() : limit(c, next)));
  app.use(
    '*',
    enforceRights(isPublic, (c, detail) => c.json({ detail }, 403)),
  );
  app.use(
    '*',
    enforceOwnBookings(deps.db, (c, detail) => c.json({ detail }, 404)),
  );
  app.use(
    '*',
    refuseUnstorableText((c, r) => c.json({ detail: [r] }, 422)),
  );
  // GET /v1/products/orders is not product "orders": a path a literal route names answers only that route's methods.
  app.use('*', literalPathsFirst('/v1', app));
  app.route('/', agencyHotelRoutes(deps));
  app.route('/', agencyProductRoutes(deps));
  app.route('/', agencyEventRoutes(deps));
  app.route('/', agencyDocumentRoutes(deps));
  publishInterface(app, { title: TITLE, version: '1.0', description: DESCRIPTION, base: '/v1' }, agencyCommonResponses);
  return app;
}
