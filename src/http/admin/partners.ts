/**
 * Partners and their wallets (docs/operations.md, "The admin CLI"): create one, its wallet, top-ups
 * and credit limit (each with an Idempotency-Key), its credit alerts, its rate limit, its
 * credentials rotated, and disabling it. The list, enabling and adjustments are finance's (./finance.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { getAlertState, partnersNearLimit, setAlertSettings } from '../../domain/money/credit-alerts';
import { parseAmount } from '../../domain/money/money';
import { createPartner, disablePartner, forgetCredentials, getRateLimit, rotateAgencyKey, rotateSecret, setRateLimit } from '../../domain/partners';
import { getWallet, setCreditLimit, topUp } from '../../domain/money/wallet';
import { renderWallet } from '../partner/schemas';
import { audited, auditedOnce } from './actions';
import type { AdminDeps } from './deps';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { Amount, Credentials, IdempotencyHeaders, Decimal, errorResponse, IdParams, json, jsonBody, notFoundResponse, Wallet } from './schemas';
import { renderAlertState, renderCredentials } from './views';

const { get, post } = adminOperations(['Partners']);

const CreatePartner = z
  .object({
    name: z.string({ error: 'name is required' }).trim().min(1, 'must not be empty').max(200).openapi({ example: 'Acme Travel' }),
    credit_limit: Amount.optional(),
    topup: Amount.optional(),
    currency: z.string().max(10).optional().openapi({ example: 'IRT', description: "The wallet's currency; the engine's default (CURRENCY) without one" }),
  })
  .openapi('PartnerRequest');
const AmountBody = z
  .object({ amount: Amount, note: z.string().max(500).optional().openapi({ description: 'Why, kept in the ledger and the audit' }) })
  .openapi('AmountRequest');
const AlertsBody = z
  .object({
    thresholds: z
      .array(z.unknown(), { error: 'must be a list of whole percents, e.g. [40, 20]' })
      .max(50)
      .optional()
      .openapi({ example: [40, 20], description: 'Whole percents of credit left, highest first; [] turns the alerts off; absent: unchanged' }),
    prepaid_base: z.union([Amount, z.null()]).optional().openapi({ description: 'For a wallet without credit: the amount its shares are of; null: none' }),
  })
  .openapi('AlertsRequest');
const RateLimitBody = z
  .object({
    per_minute: z
      .union([z.number(), z.null()], { error: 'must be a number, or null for the default' })
      .openapi({ description: "Requests per minute on each interface; null: the engine's default" }),
  })
  .openapi('RateLimitRequest');

const AlertState = z
  .object({
    partner_id: z.number().int(),
    name: z.string(),
    status: z.string(),
    wallet: Wallet,
    thresholds: z.array(z.number()),
    defaults: z.boolean().openapi({ description: 'Whether the thresholds are the defaults (the partner has none of its own)' }),
    prepaid_base: Decimal.nullable(),
    base: Decimal.nullable().openapi({ description: 'What the shares are of now: the credit limit, or the prepaid base; null: no alerts' }),
    credit_left_percent: z.string().nullable(),
    below: z.number().nullable().openapi({ description: 'The lowest threshold the wallet is below now; null: none' }),
  })
  .openapi('AlertState');
const RateLimit = z
  .object({
    partner_id: z.number().int(),
    per_minute: z.number().int().nullable().openapi({ description: "The partner's own; null: the default" }),
    default_per_minute: z.number().int(),
    effective_per_minute: z.number().int(),
  })
  .openapi('RateLimit');
const Disabled = z.object({ partner_id: z.number().int(), status: z.literal('disabled') });

const replayed = { 422: errorResponse('The Idempotency-Key was used for a different request') };
const partner = IdParams('partner');

const routes = {
  create: createRoute({
    ...post(
      '/admin/partners',
      'Create a partner',
      'With its wallet, an optional credit limit and first top-up; its credentials are shown only in this answer.',
    ),
    request: { body: jsonBody(CreatePartner) },
    responses: { 201: json(Credentials, 'Created') },
  }),
  wallet: createRoute({
    ...get('/admin/partners/{id}/wallet', "A partner's wallet"),
    request: { params: partner },
    responses: { 200: json(Wallet, 'The wallet'), ...notFoundResponse },
  }),
  topUp: createRoute({
    ...post('/admin/partners/{id}/topup', "Top up a partner's wallet"),
    request: { params: partner, headers: IdempotencyHeaders, body: jsonBody(AmountBody) },
    responses: { 200: json(Wallet, 'The wallet after it'), ...notFoundResponse, ...replayed },
  }),
  creditLimit: createRoute({
    ...post('/admin/partners/{id}/credit-limit', "Set a partner's credit limit"),
    request: { params: partner, headers: IdempotencyHeaders, body: jsonBody(AmountBody) },
    responses: { 200: json(Wallet, 'The wallet after it'), ...notFoundResponse, ...replayed },
  }),
  nearLimit: createRoute({
    ...get('/admin/partners/near-limit', 'Partners below a credit alert threshold'),
    responses: { 200: json(z.object({ results: z.array(AlertState) }), 'Each with its wallet and thresholds') },
  }),
  alerts: createRoute({
    ...get('/admin/partners/{id}/alerts', "A partner's credit alerts and where its wallet stands against them"),
    request: { params: partner },
    responses: { 200: json(AlertState, 'Its alerts'), ...notFoundResponse },
  }),
  setAlerts: createRoute({
    ...post('/admin/partners/{id}/alerts', "Set a partner's credit alert thresholds"),
    request: { params: partner, body: jsonBody(AlertsBody) },
    responses: { 200: json(AlertState, 'Its alerts now'), ...notFoundResponse },
  }),
  rateLimit: createRoute({
    ...get('/admin/partners/{id}/rate-limit', "A partner's rate limit"),
    request: { params: partner },
    responses: { 200: json(RateLimit, 'Its own, the default, and the one in force'), ...notFoundResponse },
  }),
  setRateLimit: createRoute({
    ...post('/admin/partners/{id}/rate-limit', "Set a partner's rate limit"),
    request: { params: partner, body: jsonBody(RateLimitBody) },
    responses: { 200: json(RateLimit, 'Its rate limit now'), ...notFoundResponse },
  }),
  rotateSecret: createRoute({
    ...post('/admin/partners/{id}/rotate-secret', "Issue a partner's Interface A secret again", 'The old one stops working at once.'),
    request: { params: partner },
    responses: { 200: json(Credentials, 'The new secret, shown only now'), ...notFoundResponse },
  }),
  rotateAgencyKey: createRoute({
    ...post('/admin/partners/{id}/rotate-agency-key', "Issue a partner's Interface B key again", 'The old one stops working at once.'),
    request: { params: partner },
    responses: { 200: json(Credentials, 'The new key, shown only now'), ...notFoundResponse },
  }),
  disable: createRoute({
    ...post('/admin/partners/{id}/disable', 'Disable a partner', 'Its credentials stop working; its orders and wallet stay.'),
    request: { params: partner },
    responses: { 200: json(Disabled, 'Disabled'), ...notFoundResponse },
  }),
};

export function partnerRoutes(deps: Pick<AdminDeps, 'db' | 'currency' | 'rateLimitPerMinute'>) {
  const { db } = deps;
  const partnerId = (c: Parameters<typeof idParam>[0]) => idParam(c, 'partner');
  const renderRateLimit = (id: number, own: number | null) => ({
    partner_id: id,
    per_minute: own,
    default_per_minute: deps.rateLimitPerMinute,
    effective_per_minute: own ?? deps.rateLimitPerMinute,
  });
  return (
    adminRouter()
      .openapi(routes.create, async (c) => {
        const b = c.req.valid('json');
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
      })
      .openapi(routes.wallet, async (c) => c.json(renderWallet(await getWallet(db, partnerId(c))), 200))
      .openapi(routes.topUp, async (c) => {
        const id = partnerId(c);
        const b = c.req.valid('json');
        const amount = parseAmount('amount', b.amount);
        const done = await auditedOnce(db, c, async (tx) => renderWallet(await topUp(tx, id, amount, b.note ?? 'operator top-up')));
        return c.json(done.body, done.status);
      })
      .openapi(routes.creditLimit, async (c) => {
        const id = partnerId(c);
        const b = c.req.valid('json');
        const limit = parseAmount('amount', b.amount, { allowZero: true });
        const done = await auditedOnce(db, c, async (tx) => renderWallet(await setCreditLimit(tx, id, limit, b.note ?? 'credit limit set by operator')));
        return c.json(done.body, done.status);
      })
      // Credit alerts (docs/decisions/credit-alerts.md): a partner's thresholds, and who is near its limit.
      .openapi(routes.nearLimit, async (c) => c.json({ results: (await partnersNearLimit(db)).map(renderAlertState) }, 200))
      .openapi(routes.alerts, async (c) => c.json(renderAlertState(await getAlertState(db, partnerId(c))), 200))
      .openapi(routes.setAlerts, async (c) => {
        const id = partnerId(c);
        const b = c.req.valid('json');
        return c.json(renderAlertState(await audited(db, c, (tx) => setAlertSettings(tx, id, { thresholds: b.thresholds, prepaidBase: b.prepaid_base }))), 200);
      })
      .openapi(routes.rateLimit, async (c) => {
        const id = partnerId(c);
        return c.json(renderRateLimit(id, await getRateLimit(db, id)), 200);
      })
      .openapi(routes.setRateLimit, async (c) => {
        const id = partnerId(c);
        const b = c.req.valid('json');
        const set = await audited(db, c, (tx) => setRateLimit(tx, id, b.per_minute));
        forgetCredentials(db);
        return c.json(renderRateLimit(id, set.perMinute), 200);
      })
      // A partner's credentials and status are cached per database handle: forgotten once the change commits.
      .openapi(routes.rotateSecret, async (c) => {
        const id = partnerId(c);
        const issued = await audited(db, c, (tx) => rotateSecret(tx, id));
        forgetCredentials(db);
        return c.json(renderCredentials(issued), 200);
      })
      .openapi(routes.rotateAgencyKey, async (c) => {
        const id = partnerId(c);
        const issued = await audited(db, c, (tx) => rotateAgencyKey(tx, id));
        forgetCredentials(db);
        return c.json(renderCredentials(issued), 200);
      })
      .openapi(routes.disable, async (c) => {
        const id = partnerId(c);
        await audited(db, c, (tx) => disablePartner(tx, id));
        forgetCredentials(db);
        return c.json({ partner_id: id, status: 'disabled' as const }, 200);
      })
  );
}
