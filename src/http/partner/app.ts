import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, HTTP_STATUS } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import { authenticatePartner, isActiveApiKey } from '../../domain/partners';
import { isPayRetry } from '../../domain/pay-request';
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
import { presentsSession, requireSameOrigin, SESSION_COOKIE, sessionTokenOf } from '../console-session';
import { agencySession } from '../../domain/console/sessions';
import { isTokenShaped } from '../../domain/console/tokens';
import { enforceOwnBookings } from '../own-bookings';
import { accountRoutes } from './account.routes';
import { documentRoutes } from './documents.routes';
import { eventRoutes } from './events.routes';
import { agencyRoutes } from './agencies.routes';
import { partnerRouter, type PartnerEnv } from './router';
import { partnerCommonResponses } from './schemas';
import { flightRoutes } from './flights.routes';
import { flightChangeRoutes } from './flight-changes.routes';
import { flightExtraRoutes } from './flight-extras.routes';
import { scheduleChangeRoutes } from './schedule-change.routes';
import { hotelRoutes } from './hotels.routes';
import { productRoutes } from './products.routes';
import { organisationRoutes } from './organisation.routes';
import { sessionRoutes } from './session.routes';
import { residenceRoutes } from './residence.routes';
import { statementRoutes } from './statements.routes';
import { tourRoutes } from './tours.routes';
import { visaRoutes } from './visa.routes';

/** Interface A's credentials: with neither, a session cookie signs the request in. */
const KEY_HEADERS = ['x-api-key', 'x-api-secret'] as const;
/**
 * What a browser sends before it has a session: signing in (the session's other methods need
 * one), and setting a password with a link (its only route: any other method is a 405).
 */
const SIGN_IN_PATH = '/api/partners/session/';
const SET_PASSWORD_PATH = '/api/partners/password/';

/** Interface A's name, in its OpenAPI document and on its docs page. */
const TITLE = 'Travel booking engine — partner API (Interface A)';
const DESCRIPTION =
  'Flights, hotels, tours, residence, visa and travel products paid from a prepaid credit wallet. Every response is `{ok, data}` or `{ok: false, error}`. While the database, the workflow service or every worker is unreachable, a request that needs it answers 503 with `Retry-After` and changes nothing.';

/** The one place Interface A's errors are shaped: `{ ok: false, error }`, never a stack trace. */
export function partnerError(err: Error, c: Context<PartnerEnv>) {
  if (err instanceof DomainError) return c.json({ ok: false, error: err.message }, HTTP_STATUS[err.code].partner as ContentfulStatusCode);
  const supplierDown = supplierFailureAnswer(err, c, (error) => ({ ok: false, error }));
  if (supplierDown) return supplierDown;
  if (err instanceof HTTPException) {
    const message = err.status === 415 ? 'Content-Type must be application/json' : err.message || 'bad request';
    return c.json({ ok: false, error: message }, err.status);
  }
  const down = unavailableAnswer(err, c, (error) => ({ ok: false, error }));
  if (down) return down;
  logError('unhandled error on Interface A', err, { requestId: c.get('requestId'), path: c.req.path });
  return c.json({ ok: false, error: `internal error; quote request id ${c.get('requestId')} to support` }, 500);
}

/** A pay whose idempotency_key is already bound to that order: a retry, counted in the partner's pay-retry bucket. */
async function payRetry(deps: ApiDeps, c: Context<PartnerEnv>): Promise<boolean> {
  if (c.req.method !== 'POST' || !/^\/api\/partners\/pay\/?$/.test(c.req.path)) return false;
  const body = (await c.req.json().catch(() => null)) as { order_id?: unknown; product_order_id?: unknown; idempotency_key?: unknown } | null;
  const orderId = body?.order_id ?? body?.product_order_id;
  const key = body?.idempotency_key;
  if (typeof key !== 'string' || typeof orderId !== 'number' || !isStorableId(orderId)) return false;
  return isPayRetry(deps.db, c.get('partner').id, key, orderId);
}

/** Interface A under /api: X-API-KEY + X-API-SECRET on every route but the published contract. */
export function createPartnerApi(deps: ApiDeps) {
  const app = partnerRouter();
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'X-API-KEY' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiSecret', { type: 'apiKey', in: 'header', name: 'X-API-SECRET' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'ConsoleSession', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The agency console’s session (POST /api/partners/session/); every change made with it carries X-CSRF-Token',
  });

  app.onError(partnerError);

  const isPublic = (c: Context) =>
    c.req.path === '/api/openapi.json' ||
    c.req.path.startsWith('/api/docs') ||
    c.req.path === SET_PASSWORD_PATH ||
    (c.req.method === 'POST' && c.req.path === SIGN_IN_PATH);
  const withSession = (c: Context) => presentsSession(c, KEY_HEADERS);
  const authenticate = authenticateThrottled(deps.rateLimits, {
    authenticate: async (c) => {
      if (!withSession(c)) return authenticatePartner(deps.db, c.req.header('x-api-key'), c.req.header('x-api-secret'));
      const session = await agencySession(deps.db, sessionTokenOf(c));
      requireSameOrigin(c, session.csrfToken);
      c.set('consoleSession', session);
      return session.partner;
    },
    presented: (c) => c.req.header('x-api-key') !== undefined || c.req.header('x-api-secret') !== undefined || withSession(c),
    known: async (c) => (withSession(c) ? isTokenShaped(sessionTokenOf(c)) : isActiveApiKey(deps.db, c.req.header('x-api-key'))),
    addressOf: deps.clientAddress,
    refuse: (c, error) => c.json({ ok: false, error }, 429),
  });
  app.use('*', credentialsFirst({ isPublic, health: deps.health, authenticate }));
  app.use(
    '*',
    limitBody((c, error) => c.json({ ok: false, error }, 413)),
  );
  const limit = rateLimit(
    deps.rateLimits,
    'a',
    (c) => c.get('partner'),
    (c, error) => c.json({ ok: false, error }, 429),
    (c) => payRetry(deps, c),
  );
  // Counted once the key names the partner; a pay retry's body is read within the body limit.
  app.use('*', (c, next) => (isPublic(c) ? next() : limit(c, next)));
  app.use(
    '*',
    enforceRights(isPublic, (c, error) => c.json({ ok: false, error }, 403)),
  );
  app.use(
    '*',
    enforceOwnBookings(deps.db, (c, error) => c.json({ ok: false, error }, 404)),
  );
  app.use(
    '*',
    refuseUnstorableText((c, r) => c.json({ ok: false, error: `${r.loc.slice(1).join('.') || r.loc[0]}: ${r.msg}` }, 400)),
  );
  // GET /api/tours/prebook/ is not tour "prebook": a path a literal route names answers only that route's methods.
  app.use('*', literalPathsFirst('/api', app));

  app.route('/', accountRoutes(deps));
  app.route('/', statementRoutes(deps));
  app.route('/', documentRoutes(deps));
  app.route('/', productRoutes(deps));
  app.route('/', hotelRoutes(deps));
  app.route('/', flightRoutes(deps));
  app.route('/', flightChangeRoutes(deps));
  app.route('/', flightExtraRoutes(deps));
  app.route('/', scheduleChangeRoutes(deps));
  app.route('/', tourRoutes(deps));
  app.route('/', visaRoutes(deps));
  app.route('/', residenceRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', organisationRoutes(deps));
  app.route('/', agencyRoutes(deps));
  app.route('/', sessionRoutes(deps));

  publishInterface(app, { title: TITLE, version: '1', description: DESCRIPTION, base: '/api' }, partnerCommonResponses);
  return app;
}
