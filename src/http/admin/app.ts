import { actAs } from '../../platform/request-context';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { NEEDS_ATTENTION_QUERY } from '../../domain/operators';
import { paymentsNeedsAttention } from '../../platform/metrics';
import { DomainError } from '../../domain/errors';
import { limitBody } from '../body-limit';
import { refuseUnstorableText } from '../text-guard';
import { logError } from '../../platform/log';
import { publicHealthz, unavailableAnswer } from '../../health/answers';
import { metricsHandler } from '../metrics';
import { requestId } from '../request-id';
import { publishDocument } from '../openapi-document';
import { CODEC_PATH, codecCookieToken, codecCors, codecRoutes, codecSessionRoutes } from './codec';
import { privacyRoutes } from './privacy';
import { organisationAdminRoutes } from './organisation';
import { authenticateOperator } from '../../domain/operator-tokens';
import { financeRoutes } from './finance';
import { documentAdminRoutes } from './documents';
import { subAgencyRoutes } from './sub-agencies';
import { nearLimitWatch } from './near-limit-watch';
import { operatorSession } from '../../domain/console/sessions';
import { OPERATOR_SESSION_COOKIE, requireSameOrigin, sessionTokenOf } from '../console-session';
import { operatorSessionRoutes, operatorSignInRoute } from './session';
import { createOperatorConsole } from '../../console/operator/app';
import { OwnApprovalError } from '../../domain/money/adjustments';
import type { AdminDeps } from './deps';
import { adminRouter, type AdminEnv } from './router';
import { adminCommonResponses } from './schemas';
import { partnerRoutes } from './partners';
import { pricingRoutes } from './pricing';
import { operatorRoutes } from './operators';
import { orderRoutes } from './orders';
import { webhookRoutes } from './webhooks';
import { scheduleChangeAdminRoutes } from './schedule-changes';
import { adminHealthRoute } from './health';

export type { AdminDeps } from './deps';

const STATUS = { validation: 400, unauthorized: 401, forbidden: 403, not_found: 404, conflict: 409 } as const;

/** The admin API's name and what it is, in its OpenAPI document. */
const ABOUT = {
  title: 'Travel booking engine — admin API',
  version: '1',
  description:
    'The operators’ API on the admin port: partners and their wallets, exchange rates, markups, reports, the needs-attention queue, webhooks, operators, finance and the audit. Every request carries an operator’s token (`Authorization: Bearer`) or the operator console’s session cookie (with `X-CSRF-Token` and a same-host Origin on every change); every answer is JSON, a refusal `{error}`. While the database is unreachable a request answers 503 with `Retry-After` and changes nothing.',
};

/** What the body validator says of a body it cannot read (@hono/zod-openapi), in the words of the admin API. */
const BODY_REFUSALS: Record<string, string> = {
  'Malformed JSON in request body': 'body: must be a JSON object',
  'Unsupported Media Type': 'Content-Type must be application/json',
};

/** The address the request came from (the proxy's, behind one), or "unknown" outside a Node server. */
function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/**
 * The admin API's authentication, one middleware for every route behind it: `Authorization:
 * Bearer <token>` names the operator the request acts as (a named operator's token, or the
 * bootstrap token). Without that header, the operator console's session cookie names a
 * named operator the same way; a change made with it carries the session's CSRF token from
 * the same origin (../console-session.ts). Bad tokens are counted per client address; past the limit the address is
 * answered 429 with Retry-After until its minute is over, good token or not.
 */
export function operatorAuth(deps: Pick<AdminDeps, 'db' | 'adminToken' | 'badTokensPerMinute'>): MiddlewareHandler<AdminEnv> {
  const failures = new RateLimiterMemory({ points: deps.badTokensPerMinute ?? 10, duration: 60 });
  const tooMany = (c: Context, msBeforeNext: number) => {
    c.header('Retry-After', String(Math.max(1, Math.ceil(msBeforeNext / 1000))));
    return c.json({ error: 'too many bad admin tokens from this address; try again later' }, 429);
  };
  return async (c, next) => {
    const address = clientAddress(c);
    const seen = await failures.get(address);
    if (seen && seen.remainingPoints <= 0) return tooMany(c, seen.msBeforeNext);
    const auth = c.req.header('authorization');
    const sessionToken = auth === undefined ? sessionTokenOf(c, OPERATOR_SESSION_COOKIE) : undefined;
    if (sessionToken !== undefined) {
      const session = await operatorSession(deps.db, sessionToken).catch((err: unknown) => {
        if (err instanceof DomainError && err.code === 'unauthorized') return err;
        throw err;
      });
      if (session instanceof DomainError) return c.json({ error: session.message }, 401);
      // The codec endpoint only encodes and decodes (it changes nothing), and Temporal Web calls it from its own
      // origin: a signed-in operator's browser needs nothing more there (CORS says who may read the answer).
      if (!c.req.path.startsWith(`${CODEC_PATH}/`)) requireSameOrigin(c, session.csrfToken);
      c.set('operatorSession', session);
      c.set('operator', session.operator);
      actAs({ type: 'operator', id: session.operator.id, name: session.operator.name });
      return next();
    }
    // The codec endpoint also takes the token from its cookie (./codec.ts): a browser cannot add a header to Temporal Web's requests.
    const token = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : codecCookieToken(c);
    const operator = token ? await authenticateOperator(deps.db, token, deps.adminToken) : null;
    if (!operator) {
      try {
        await failures.consume(address);
      } catch (err) {
        if (err instanceof RateLimiterRes) return tooMany(c, err.msBeforeNext);
        throw err;
      }
      return c.json({ error: 'missing or invalid admin token' }, 401);
    }
    c.set('operator', operator);
    actAs({ type: 'operator', id: operator.id, name: operator.name });
    await next();
  };
}

/** The operators' API: bound to loopback by default and guarded by the admin token. Each area's routes are in the file named for it. */
export function createAdminApp(deps: AdminDeps) {
  const { db } = deps;
  const app = adminRouter();
  app.openAPIRegistry.registerComponent('securitySchemes', 'OperatorToken', {
    type: 'http',
    scheme: 'bearer',
    description: "An operator's token (`tbo_…`), or the bootstrap token (ADMIN_TOKEN)",
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'OperatorSession', {
    type: 'apiKey',
    in: 'cookie',
    name: OPERATOR_SESSION_COOKIE,
    description: 'The operator console’s session (POST /admin/session); every change made with it carries X-CSRF-Token from the same origin',
  });
  app.use('*', requestId());
  app.onError((err, c) => {
    if (err instanceof OwnApprovalError) return c.json({ error: err.message }, 403);
    if (err instanceof DomainError && err.code in STATUS) return c.json({ error: err.message }, STATUS[err.code as keyof typeof STATUS]);
    if (err instanceof DomainError) return c.json({ error: err.message }, 400);
    if (err instanceof HTTPException)
      return c.json({ error: Object.hasOwn(BODY_REFUSALS, err.message) ? BODY_REFUSALS[err.message]! : err.message }, err.status);
    const down = unavailableAnswer(err, c, (error) => ({ error }));
    if (down) return down;
    logError('unhandled error on the admin API', err, { requestId: c.get('requestId') });
    return c.json({ error: `internal error; request id ${c.get('requestId')}` }, 500);
  });
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));

  app.get('/healthz', (c) => publicHealthz(c, deps.health.report()));
  const requireOperator = operatorAuth(deps);
  // Prometheus scrapes with an operator token (docker-compose.yml: `authorization.credentials_file`).
  app.use('/metrics', requireOperator);
  const watchNearLimit = deps.nearLimitWatch ?? nearLimitWatch(db);
  app.get(
    '/metrics',
    metricsHandler(deps.metrics, async () => {
      await watchNearLimit();
      // While Temporal is down the gauge is NaN at once, not after the SDK's retries.
      const stuck = deps.health.report().checks.temporal?.ok
        ? await deps.temporal.withDeadline(Date.now() + 2000, () => deps.temporal.workflow.count(NEEDS_ATTENTION_QUERY)).catch(() => null)
        : null;
      paymentsNeedsAttention.set(stuck?.count ?? NaN);
    }),
  );

  // Temporal Web's preflight carries no token: answered before the token check.
  app.use(`${CODEC_PATH}/*`, codecCors(deps.temporalUiOrigin));
  app.route('/', operatorSignInRoute({ db, adminToken: deps.adminToken, signIns: deps.signIns, clientAddress }));
  app.use('/admin/*', requireOperator);
  app.route('/', operatorSessionRoutes({ db }));
  // The operator console calls this same app, as a browser would (src/console/operator/).
  app.get('/console', (c) => c.redirect('/console/', 301));
  app.route(
    '/console/',
    createOperatorConsole({
      fetch: (req, env) => app.fetch(req, env as never),
      ...(deps.temporalUiOrigin ? { temporalWeb: { origin: deps.temporalUiOrigin, namespace: deps.temporal.options.namespace } } : {}),
    }),
  );
  // Each part's check with its cause, for operators; the public /healthz says only healthy or not.
  app.route('/', adminHealthRoute(deps));
  // The admin API's contract (docs/decisions/operators.md), behind the operator token like the rest; it needs no database.
  publishDocument(app, '/admin/openapi.json', { openapi: '3.1.0', info: ABOUT }, adminCommonResponses);
  app.use('/admin/*', async (_c, next) => {
    deps.health.require(['database']);
    await next();
  });
  // The same limits as the interfaces': a bounded body, no text PostgreSQL cannot store (a 400, not a 500).
  app.use(
    '/admin/*',
    limitBody((c, error) => c.json({ error }, 413)),
  );
  app.use(
    '/admin/*',
    refuseUnstorableText((c, r) => c.json({ error: `${r.loc.join('.')}: ${r.msg}` }, 400)),
  );

  app.use(
    '/codec/*',
    limitBody((c, error) => c.json({ error }, 413)),
  );
  app.route('/', codecRoutes({ codec: deps.payloadCodec }));
  codecSessionRoutes(app, { checkToken: async (token) => (await authenticateOperator(db, token, deps.adminToken)) !== null });
  app.route('/', privacyRoutes({ db }));
  app.route('/', organisationAdminRoutes({ db, linkMail: deps.linkMail }));
  app.route('/', financeRoutes(deps));
  app.route('/', documentAdminRoutes(deps));
  app.route('/', subAgencyRoutes({ db }));
  app.route('/', partnerRoutes(deps));
  app.route('/', pricingRoutes(deps));
  app.route('/', operatorRoutes(deps));
  app.route('/', orderRoutes(deps));
  app.route('/', webhookRoutes(deps));
  app.route('/', scheduleChangeAdminRoutes(deps));
  return app;
}
