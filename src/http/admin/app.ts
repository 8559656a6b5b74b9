import type { LinkMail } from '../console-links';
import { actAs } from '../../platform/request-context';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { decideOfflineRefund } from '../../domain/flights/operator';
import { decidePayment, inspectOrder, NEEDS_ATTENTION_QUERY, needsAttention } from '../../domain/operators';
import { reconcile } from '../../domain/reconcile';
import { paymentsNeedsAttention } from '../../platform/metrics';
import { relayVisaDecision } from '../../domain/visa/service';
import { acceptCancel } from '../../domain/residence/service';
import { DomainError } from '../../domain/errors';
import { limitBody } from '../body-limit';
import { refuseUnstorableText } from '../text-guard';
import { parseAmount } from '../../domain/money';
import {
  createPartner,
  disablePartner,
  forgetCredentials,
  getRateLimit,
  parseWalletCurrency,
  requirePartner,
  rotateAgencyKey,
  rotateSecret,
  setRateLimit,
} from '../../domain/partners';
import { getWallet, setCreditLimit, topUp } from '../../domain/wallet';
import { getAlertState, partnersNearLimit, setAlertSettings } from '../../domain/credit-alerts';
import { listRates, setRate } from '../../domain/fx';
import { runReport } from '../../domain/reports';
import { attachment } from '../../domain/reports/csv';
import { forgetRules, listRules, removeRule, setRule } from '../../domain/markup-rules';
import {
  createEndpoint,
  deleteEndpoint,
  enableEndpoint,
  adminEndpointView,
  listDeliveries,
  listEndpoints,
  MAX_URL_LENGTH,
  redeliverEvent,
} from '../../domain/webhooks';
// The operator API answers a wallet in Interface A's shape.
import { renderReservation } from '../partner/residence.routes';
import {
  renderAlertState,
  renderCredentials,
  renderInspection,
  renderMarkup,
  renderParked,
  renderRate,
  renderRates,
  renderRefundDecision,
  renderVisaDecision,
} from './views';
import { renderWallet } from '../partner/schemas';
import type { Health } from '../deps';
import { logError } from '../../platform/log';
import type { SecretBox } from '../../platform/secret-box';
import type { WebhookUrlPolicy } from '../../platform/webhook-address';
import { healthz, publicHealthz, unavailableAnswer } from '../../health/answers';
import type { SupplierBreakers } from '../../suppliers/breakers';
import { metricsHandler, type MetricsSource } from '../metrics';
import { requestId } from '../request-id';
import type { PayloadCodec } from '@temporalio/common';
import { CODEC_PATH, codecCookieToken, codecCors, codecRoutes } from './codec';
import { privacyRoutes } from './privacy';
import { organisationAdminRoutes } from './organisation';
import { addOperator, authenticateOperator, listOperators, revokeOperator, type OperatorView } from '../../domain/operator-tokens';
import { audited, auditedOnce, operatorOf, recordAction } from './actions';
import { financeRoutes } from './finance';
import { documentAdminRoutes } from './documents';
import type { DocumentSettings } from '../../domain/documents/issuer';
import { subAgencyRoutes } from './sub-agencies';
import { scheduleChangeAdminRoutes } from './schedule-changes';
import type { FlightAfterSale } from '../../suppliers/flight-after-sale';
import { body, idParam } from './input';
import { nearLimitWatch } from './near-limit-watch';
import { operatorSession } from '../../domain/console/sessions';
import { OPERATOR_SESSION_COOKIE, requireSameOrigin, sessionTokenOf } from '../console-session';
import type { SignInThrottle } from '../rate-limit';
import { operatorSessionRoutes, operatorSignInRoute, type SessionEnv } from './session';
import { createOperatorConsole } from '../../console/operator/app';
import { OwnApprovalError } from '../../domain/adjustments';

export interface AdminDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  residenceHoldMs: number;
  /** What /metrics serves: this process's series, and the in-process worker's Core metrics if any. */
  metrics: MetricsSource;
  /** The bootstrap token (ADMIN_TOKEN, or DATA_DIR/admin-token): it acts as the operator "bootstrap". */
  adminToken: string;
  /** Failed console sign-ins with an operator token, counted per client address (docs/decisions/console-sign-in.md). */
  signIns: SignInThrottle;
  /** How many bad tokens one client address may present per minute before it is answered 429. */
  badTokensPerMinute?: number;
  currency: string;
  health: Health;
  /** The suppliers' search breakers, shown with the parts' checks. */
  breakers?: SupplierBreakers;
  /** How old an exchange rate may be and still price a sale (FX_RATE_MAX_AGE_HOURS), shown with the rates. */
  fxRateMaxAgeMs: number;
  /** The engine's default requests per minute per interface (RATE_LIMIT_PER_MINUTE), shown next to a partner's own. */
  rateLimitPerMinute: number;
  /** What webhook signing secrets are sealed with (src/runtime/secrets-key.ts). */
  secrets: SecretBox;
  /** The issuer's legal details and the tax invoices state (OPERATOR_*, INVOICE_TAX_*). */
  documents: DocumentSettings;
  /** Mails the console's one-time links (SMTP_URL and PUBLIC_URL); null: they are only answered. */
  linkMail: LinkMail | null;
  /** Where webhook endpoints may point (SANDBOX, WEBHOOK_ALLOWED_PRIVATE_HOSTS): the same rules as for partners. */
  webhookUrls: WebhookUrlPolicy;
  /** What Temporal payloads are encrypted with: the codec endpoint decodes and encodes with it (./codec.ts). */
  payloadCodec: PayloadCodec;
  /** The Temporal Web origin allowed to call the codec endpoint from the browser (TEMPORAL_UI_ORIGIN). */
  temporalUiOrigin?: string;
  /** The largest manual adjustment one operator posts alone, in minor units of `currency` (ADJUSTMENT_APPROVAL_THRESHOLD). */
  adjustmentApprovalThresholdMinor: number;
  /** What can happen to a flight order after the sale, at the airline that holds it (`admin schedule-changes poll`). */
  flightAfterSaleOf?: (supplier: string) => FlightAfterSale;
  /** Who is near the credit limit (./near-limit-watch.ts), shared with the process's own timer when it runs one; else the app's own. */
  nearLimitWatch?: () => Promise<void>;
}

type AdminEnv = SessionEnv;

const STATUS = { validation: 400, unauthorized: 401, forbidden: 403, not_found: 404, conflict: 409 } as const;

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

const renderOperator = (o: OperatorView) => ({
  id: o.id,
  name: o.name,
  created_at: o.createdAt.toISOString(),
  created_by: o.createdBy,
  last_used_at: o.lastUsedAt?.toISOString() ?? null,
  revoked_at: o.revokedAt?.toISOString() ?? null,
});
const OperatorBody = z.object({ name: z.string({ error: 'name is required' }).trim().min(1, 'must not be empty').max(64) });

const Amount = z.union([z.string(), z.number()]);
const CreatePartner = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'must not be empty').max(200),
  credit_limit: Amount.optional(),
  topup: Amount.optional(),
  currency: z.string().max(10).optional(),
});
const RateLimitBody = z.object({ per_minute: z.union([z.number(), z.null()], { error: 'must be a number, or null for the default' }) });
const AmountBody = z.object({ amount: Amount, note: z.string().max(500).optional() });
const AlertsBody = z.object({
  thresholds: z.array(z.unknown(), { error: 'must be a list of whole percents, e.g. [40, 20]' }).max(50).optional(),
  prepaid_base: z.union([Amount, z.null()]).optional(),
});
const FxRateBody = z.object({
  from: z.string({ error: 'from is required: the currency the rate converts from, e.g. "GBP"' }).max(10),
  to: z.string().max(10).optional(),
  rate: Amount,
});
const MarkupBody = z.object({
  service: z.string({ error: 'service is required: hotels, flights, products, tours, residence or visa' }).max(20),
  partner: z.union([z.number(), z.string().max(20)]).nullish(),
  supplier: z.string().max(50).nullish(),
  percent: Amount.nullish(),
  fixed: Amount.nullish(),
  min_margin: Amount.nullish(),
  from: z.string().max(20).nullish(),
  to: z.string().max(20).nullish(),
  currency: z.string().max(10).optional(),
});

const Decision = z.object({ amount: Amount.optional(), reason: z.string().max(1000).optional() });
const PaymentDecision = z.object({
  reason: z.string().trim().min(3, 'say why (at least 3 characters)').max(1000),
  supplier_ref: z.string().max(200).optional(),
});
const VisaDecisionBody = z.object({ decision: z.enum(['approve', 'reject'], { error: 'must be approve or reject' }), reason: z.string().max(1000).optional() });

const WebhookBody = z.object({
  url: z.string({ error: 'url is required' }).max(MAX_URL_LENGTH),
  event_types: z.array(z.string().max(100)).max(50).optional(),
  interface: z.enum(['a', 'b'], { error: 'must be a or b' }).optional(),
});

const orderId = (c: Context) => idParam(c, 'order');

const partnerId = (c: Context) => idParam(c, 'partner');

/** The operators' API: bound to loopback by default and guarded by the admin token. */
export function createAdminApp(deps: AdminDeps) {
  const { db } = deps;
  const app = new Hono<AdminEnv>();
  app.use('*', requestId());
  app.onError((err, c) => {
    if (err instanceof OwnApprovalError) return c.json({ error: err.message }, 403);
    if (err instanceof DomainError && err.code in STATUS) return c.json({ error: err.message }, STATUS[err.code as keyof typeof STATUS]);
    if (err instanceof DomainError) return c.json({ error: err.message }, 400);
    if (err instanceof HTTPException) return c.json({ error: err.message }, err.status);
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
  operatorSignInRoute(app, { db, adminToken: deps.adminToken, signIns: deps.signIns, clientAddress });
  app.use('/admin/*', requireOperator);
  operatorSessionRoutes(app, db);
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
  app.get('/admin/healthz', (c) => healthz(c, { ...deps.health.report(), supplier_breakers: deps.breakers?.views() ?? [] }));
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
  codecRoutes(app, { codec: deps.payloadCodec, checkToken: async (token) => (await authenticateOperator(db, token, deps.adminToken)) !== null });
  privacyRoutes(app, db);
  organisationAdminRoutes(app, db, deps.linkMail);

  app.get('/admin/reconcile', async (c) => {
    const report = await reconcile(db, new Date(), Math.max(deps.waitMs * 4, 60_000));
    return c.json({ ok: report.findings.length === 0, ...report });
  });
  financeRoutes(app, { db, adjustmentApprovalThresholdMinor: deps.adjustmentApprovalThresholdMinor, currency: deps.currency });
  documentAdminRoutes(app, { db, documents: deps.documents });
  subAgencyRoutes(app, db);
  scheduleChangeAdminRoutes(app, { db, temporal: deps.temporal, taskQueue: deps.taskQueue, waitMs: deps.waitMs, afterSaleOf: deps.flightAfterSaleOf });
  app.post('/admin/partners', async (c) => {
    const b = await body(c, CreatePartner);
    const created = await audited(db, c, (tx) =>
      createPartner(tx, {
        name: b.name,
        creditLimitMinor: b.credit_limit === undefined ? 0 : parseAmount('credit_limit', b.credit_limit, { allowZero: true }),
        topUpMinor: b.topup === undefined ? 0 : parseAmount('topup', b.topup, { allowZero: true }),
        currency: b.currency ?? deps.currency,
      }),
    );
    // Its keys are known to this process's directory of keys at once (createPartner saw the transaction's handle).
    forgetCredentials(db);
    return c.json(renderCredentials(created), 201);
  });
  app.get('/admin/partners/:id/wallet', async (c) => c.json(renderWallet(await getWallet(db, partnerId(c)))));
  app.post('/admin/partners/:id/topup', async (c) => {
    const id = partnerId(c);
    const b = await body(c, AmountBody);
    const amount = parseAmount('amount', b.amount);
    const done = await auditedOnce(db, c, async (tx) => renderWallet(await topUp(tx, id, amount, b.note ?? 'operator top-up')));
    return c.json(done.body, done.status);
  });
  app.post('/admin/partners/:id/credit-limit', async (c) => {
    const id = partnerId(c);
    const b = await body(c, AmountBody);
    const limit = parseAmount('amount', b.amount, { allowZero: true });
    const done = await auditedOnce(db, c, async (tx) => renderWallet(await setCreditLimit(tx, id, limit, b.note ?? 'credit limit set by operator')));
    return c.json(done.body, done.status);
  });
  // Credit alerts (docs/decisions/credit-alerts.md): a partner's thresholds, and who is near its limit.
  app.get('/admin/partners/near-limit', async (c) => c.json({ results: (await partnersNearLimit(db)).map(renderAlertState) }));
  app.get('/admin/partners/:id/alerts', async (c) => c.json(renderAlertState(await getAlertState(db, partnerId(c)))));
  app.post('/admin/partners/:id/alerts', async (c) => {
    const id = partnerId(c);
    const b = await body(c, AlertsBody);
    return c.json(renderAlertState(await audited(db, c, (tx) => setAlertSettings(tx, id, { thresholds: b.thresholds, prepaidBase: b.prepaid_base }))));
  });
  const renderRateLimit = (id: number, own: number | null) => ({
    partner_id: id,
    per_minute: own,
    default_per_minute: deps.rateLimitPerMinute,
    effective_per_minute: own ?? deps.rateLimitPerMinute,
  });
  app.get('/admin/partners/:id/rate-limit', async (c) => {
    const id = partnerId(c);
    return c.json(renderRateLimit(id, await getRateLimit(db, id)));
  });
  app.post('/admin/partners/:id/rate-limit', async (c) => {
    const id = partnerId(c);
    const b = await body(c, RateLimitBody);
    const set = await audited(db, c, (tx) => setRateLimit(tx, id, b.per_minute));
    forgetCredentials(db);
    return c.json(renderRateLimit(id, set.perMinute));
  });
  // A partner's credentials and status are cached per database handle: forgotten once the change commits.
  app.post('/admin/partners/:id/rotate-secret', async (c) => {
    const id = partnerId(c);
    const issued = await audited(db, c, (tx) => rotateSecret(tx, id));
    forgetCredentials(db);
    return c.json(renderCredentials(issued));
  });
  app.post('/admin/partners/:id/rotate-agency-key', async (c) => {
    const id = partnerId(c);
    const issued = await audited(db, c, (tx) => rotateAgencyKey(tx, id));
    forgetCredentials(db);
    return c.json(renderCredentials(issued));
  });
  app.post('/admin/partners/:id/disable', async (c) => {
    const id = partnerId(c);
    await audited(db, c, (tx) => disablePartner(tx, id));
    forgetCredentials(db);
    return c.json({ partner_id: id, status: 'disabled' });
  });

  // Exchange rates (docs/operations.md, "Exchange rates"): wallet units per 1 unit of `from`.
  app.get('/admin/fx', async (c) => c.json(renderRates(await listRates(db), deps.currency, deps.fxRateMaxAgeMs)));
  app.post('/admin/fx', async (c) => {
    const b = await body(c, FxRateBody);
    const walletCurrency = b.to === undefined ? deps.currency : parseWalletCurrency('to', b.to);
    const set = await audited(db, c, (tx) => setRate(tx, { currency: b.from, walletCurrency, rate: b.rate, operator: operatorOf(c) }));
    return c.json(renderRate(set), 201);
  });

  // Operators' reports as CSV files (src/domain/reports): `?from=&to=` for those over a period.
  app.get('/admin/reports/:name', async (c) => {
    const { filename, csv } = await runReport(db, c.req.param('name'), { from: c.req.query('from'), to: c.req.query('to') });
    return c.body(csv, 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': attachment(filename) });
  });
  // Markups (docs/operations.md, "Markups"; docs/decisions/pricing-rules.md).
  app.get('/admin/markups', async (c) =>
    c.json({ currency: deps.currency, results: (await listRules(db, { removed: c.req.query('removed') === 'true' })).map(renderMarkup) }),
  );
  app.post('/admin/markups', async (c) => {
    const b = await body(c, MarkupBody);
    const currency = b.currency === undefined ? deps.currency : parseWalletCurrency('currency', b.currency);
    const rule = await audited(db, c, (tx) => setRule(tx, { ...b, currency, operator: operatorOf(c) }));
    forgetRules(db);
    return c.json(renderMarkup(rule), 201);
  });
  app.delete('/admin/markups/:id', async (c) => {
    const id = idParam(c, 'pricing rule');
    const rule = await audited(db, c, (tx) => removeRule(tx, id, operatorOf(c)));
    forgetRules(db);
    return c.json(renderMarkup(rule));
  });

  // Operators (docs/operations.md, "Operators"): a token each, shown once, stored hashed.
  app.get('/admin/operators', async (c) => c.json({ results: (await listOperators(db)).map(renderOperator) }));
  app.post('/admin/operators', async (c) => {
    const b = await body(c, OperatorBody);
    const added = await audited(db, c, (tx) => addOperator(tx, b.name, operatorOf(c)));
    return c.json({ ...renderOperator(added), token: added.token }, 201);
  });
  app.post('/admin/operators/:ref/revoke', async (c) => {
    const ref = c.req.param('ref').slice(0, 100);
    return c.json(renderOperator(await audited(db, c, (tx) => revokeOperator(tx, ref))));
  });

  // A decision relayed to a workflow is audited before its signal is sent: nothing is decided
  // unaudited, and a decision refused afterwards (409) keeps its row as an attempt.
  const temporalDeps = { db, temporal: deps.temporal, taskQueue: deps.taskQueue, waitMs: deps.waitMs };
  app.post('/admin/orders/:id/refund', async (c) => {
    const id = orderId(c);
    const b = await body(c, Decision);
    if (b.amount === undefined) throw new DomainError('validation', 'amount: is required');
    const amountMinor = parseAmount('amount', b.amount, { allowZero: true });
    const operator = operatorOf(c);
    await recordAction(db, c);
    return c.json(renderRefundDecision(await decideOfflineRefund(temporalDeps, id, { approve: true, amountMinor, operator, reason: b.reason }), operator));
  });
  app.get('/admin/orders/:id', async (c) => c.json(renderInspection(await inspectOrder(temporalDeps, orderId(c)))));
  app.get('/admin/needs-attention', async (c) => c.json(renderParked(await needsAttention(temporalDeps))));
  for (const action of ['retry', 'confirm', 'compensate'] as const) {
    app.post(`/admin/orders/:id/${action}`, async (c) => {
      const id = orderId(c);
      const b = await body(c, PaymentDecision);
      await recordAction(db, c);
      const after = await decidePayment(temporalDeps, id, { action, operator: operatorOf(c), reason: b.reason, supplierRef: b.supplier_ref });
      return c.json({ action, ...renderInspection(after) });
    });
  }
  app.post('/admin/orders/:id/visa-decision', async (c) => {
    const id = orderId(c);
    const b = await body(c, VisaDecisionBody);
    const operator = operatorOf(c);
    await recordAction(db, c);
    const decided = await relayVisaDecision(temporalDeps, id, { approve: b.decision === 'approve', reason: b.reason ?? b.decision, operator });
    return c.json(renderVisaDecision(decided, operator));
  });
  app.post('/admin/reservations/:id/accept-cancel', async (c) => {
    const id = idParam(c, 'reservation');
    const resDeps = { ...temporalDeps, holdTtlMs: deps.residenceHoldMs, autoAcceptCancelMs: null };
    await recordAction(db, c);
    return c.json(renderReservation(await acceptCancel(resDeps, id, null, operatorOf(c)), new Date()));
  });
  app.post('/admin/orders/:id/refund-reject', async (c) => {
    const id = orderId(c);
    const b = await body(c, Decision);
    const operator = operatorOf(c);
    await recordAction(db, c);
    return c.json(renderRefundDecision(await decideOfflineRefund(temporalDeps, id, { approve: false, operator, reason: b.reason }), operator));
  });

  // Webhooks (docs/webhooks.md): a partner's endpoints, their deliveries, and sending an event again.
  // An unknown partner is not found, as for its wallet (not an empty list).
  const knownPartner = async (c: Context) => (await requirePartner(db, partnerId(c))).id;
  app.get('/admin/partners/:id/webhooks', async (c) => c.json({ endpoints: (await listEndpoints(db, await knownPartner(c))).map(adminEndpointView) }));
  app.post('/admin/partners/:id/webhooks', async (c) => {
    const id = partnerId(c);
    const b = await body(c, WebhookBody);
    return c.json(
      await audited(db, c, (tx) =>
        createEndpoint(tx, { secrets: deps.secrets, urls: deps.webhookUrls }, id, { url: b.url, eventTypes: b.event_types, style: b.interface ?? 'a' }),
      ),
      201,
    );
  });
  app.get('/admin/partners/:id/webhooks/deliveries', async (c) => c.json({ deliveries: await listDeliveries(db, await knownPartner(c)) }));
  app.post('/admin/webhooks/:id/delete', async (c) => {
    const id = idParam(c, 'webhook endpoint');
    return c.json(await audited(db, c, (tx) => deleteEndpoint(tx, id)));
  });
  app.post('/admin/webhooks/:id/enable', async (c) => {
    const id = idParam(c, 'webhook endpoint');
    return c.json(await audited(db, c, (tx) => enableEndpoint(tx, id)));
  });
  app.post('/admin/events/:id/redeliver', async (c) => {
    const id = idParam(c, 'event');
    const sent = await audited(db, c, (tx) => redeliverEvent(tx, id));
    return c.json({ event_id: sent.eventId, endpoints: sent.endpoints });
  });
  return app;
}
