import { createRoute, z } from '@hono/zod-openapi';
import { listAgencyMarkups, setAgencyMarkups, type AgencyMarkupRow } from '../../domain/money/agency-markups';
import { rowIdOf } from '../../domain/ids';
import { formatPercent } from '../../domain/money/markup-rules';
import { formatDecimal, parseAmount } from '../../domain/money/money';
import { createSubAgency, listSubAgencies, requireSubAgency, setSubAgencyCredit, setSubAgencyStatus, type SubAgency } from '../../domain/sub-agencies';
import { MARKUP_SERVICES } from '../../db/schema';
import type { ApiDeps } from '../deps';
import { created, ok, partnerRouter } from './router';
import { commonErrors, Decimal, errorResponse, Id, json, jsonBody, partnerOperations, renderWallet, Wallet } from './schemas';
import { answerStatement, statementAnswer, StatementQuery } from './statements.routes';

/**
 * Sub-agencies (extension, docs/guides/sub-agencies.md): a parent agency creates child
 * agencies, gives them credit out of its own, marks up its price to them, and reads their
 * orders and statements. Another parent's child answers 404, as another partner's order does.
 */

const { get, post, put } = partnerOperations(['Sub-agencies']);

export const SubAgencyView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: z.enum(['active', 'disabled']),
    balance: Decimal,
    credit_limit: Decimal.openapi({ description: 'What the parent granted it' }),
    available: Decimal.openapi({ description: 'balance + credit_limit: what it can spend' }),
    currency: z.string().openapi({ example: 'IRT', description: "Its wallet's currency: its parent's" }),
    created_at: z.string(),
  })
  .openapi('SubAgency');

const CreatedSubAgency = z
  .object({
    partner_id: z.number().int(),
    api_key: z.string(),
    api_secret: z.string().openapi({ description: 'Shown only in this answer' }),
    agency_key: z.string().openapi({ description: "Interface B's bearer key; shown only in this answer" }),
  })
  .openapi('CreatedSubAgency');

const CreateBody = z.object({ name: z.string().min(1).max(200).openapi({ example: 'Acme Travel Shiraz' }) }).openapi('SubAgencyRequest');

const CreditBody = z
  .object({
    credit_limit: z.string().openapi({ example: '500000.00', description: "The sub-agency's credit limit, a decimal of the wallet's currency" }),
    idempotency_key: z
      .string()
      .min(1)
      .max(200)
      .openapi({ example: 'shiraz-credit-1', description: 'The same key again answers the first set and writes nothing; with another credit_limit, 409' }),
  })
  .openapi('SubAgencyCreditRequest');

const CreditAnswer = z
  .object({ sub_agency: SubAgencyView, wallet: Wallet.openapi({ description: "The parent's wallet after the set" }), replayed: z.boolean() })
  .openapi('SubAgencyCredit');

const MarkupView = z
  .object({
    service: z.enum(MARKUP_SERVICES),
    percent: z.string().openapi({ example: '5', description: "Percent of the operator's price to the parent" }),
    fixed: Decimal.openapi({ description: 'Added to every priced item' }),
  })
  .openapi('SubAgencyMarkup');

const MarkupsBody = z
  .object({
    markups: z
      .array(
        z.object({
          service: z.string().openapi({ example: 'hotels', description: MARKUP_SERVICES.join(', ') }),
          percent: z.string().optional().openapi({ example: '5' }),
          fixed: z.string().optional().openapi({ example: '10000.00' }),
        }),
      )
      .max(MARKUP_SERVICES.length),
  })
  .openapi('SubAgencyMarkupsRequest');

const routes = {
  create: createRoute({
    ...post(
      '/partners/agencies/',
      'Create a sub-agency',
      'A child agency with its own credentials and wallet (in your currency), and no credit until you grant it. Sub-agencies are one level deep: a sub-agency cannot create one.',
    ),
    request: { body: jsonBody(CreateBody) },
    responses: { 201: json(CreatedSubAgency, 'Created; its secret and agency key are shown only now'), ...commonErrors },
  }),
  list: createRoute({
    ...get('/partners/agencies/', 'Your sub-agencies, with their balance and credit'),
    responses: { 200: json(z.array(SubAgencyView), 'Your sub-agencies, oldest first'), ...commonErrors },
  }),
  one: createRoute({
    ...get('/partners/agencies/{id}/', 'One of your sub-agencies'),
    request: { params: Id('id') },
    responses: { 200: json(SubAgencyView, 'The sub-agency'), ...commonErrors },
  }),
  disable: createRoute({
    ...post('/partners/agencies/{id}/disable/', 'Disable a sub-agency', 'Its credentials stop working; its orders and wallet stay.'),
    request: { params: Id('id') },
    responses: { 200: json(SubAgencyView, 'Disabled'), ...commonErrors },
  }),
  enable: createRoute({
    ...post('/partners/agencies/{id}/enable/', 'Enable a sub-agency again', 'With the credentials it had.'),
    request: { params: Id('id') },
    responses: { 200: json(SubAgencyView, 'Enabled'), ...commonErrors },
  }),
  credit: createRoute({
    ...post(
      '/partners/agencies/{id}/credit/',
      "Set a sub-agency's credit limit",
      'Out of your own available credit: raising it takes the difference from your wallet (402 beyond what you have available); lowering it gives back to your wallet only what the sub-agency has not used (400 below what it owes).',
    ),
    request: { params: Id('id'), body: jsonBody(CreditBody) },
    responses: {
      200: json(CreditAnswer, 'Set'),
      ...commonErrors,
      402: errorResponse('More than you have available'),
      409: errorResponse('The idempotency_key was used with another credit_limit'),
    },
  }),
  markups: createRoute({
    ...get('/partners/agencies/{id}/markups/', "Your markups on a sub-agency's prices"),
    request: { params: Id('id') },
    responses: { 200: json(z.array(MarkupView), 'By service; a service without one is sold at your price'), ...commonErrors },
  }),
  setMarkups: createRoute({
    ...put(
      '/partners/agencies/{id}/markups/',
      "Set your markups on a sub-agency's prices",
      "Replaces them all. By service: a percent of the operator's price to you and/or a fixed amount on each priced item; the sub-agency's searches, quotes and orders show the price with it, and what it adds is your margin.",
    ),
    request: { params: Id('id'), body: jsonBody(MarkupsBody) },
    responses: { 200: json(z.array(MarkupView), 'The markups now'), ...commonErrors },
  }),
  statement: createRoute({
    ...get('/partners/agencies/{id}/statement/', "A sub-agency's statement for a period", 'The same statement the sub-agency reads at /partners/statements/.'),
    request: { params: Id('id'), query: StatementQuery },
    responses: { 200: statementAnswer(), ...commonErrors },
  }),
};

export function renderSubAgency(s: SubAgency): z.infer<typeof SubAgencyView> {
  return {
    id: s.id,
    name: s.name,
    status: s.status,
    balance: formatDecimal(s.balance, s.currency),
    credit_limit: formatDecimal(s.creditLimit, s.currency),
    available: formatDecimal(s.balance + s.creditLimit, s.currency),
    currency: s.currency,
    created_at: s.createdAt.toISOString(),
  };
}

const renderMarkup =
  (currency: string) =>
  (m: AgencyMarkupRow): z.infer<typeof MarkupView> => ({
    service: m.service,
    percent: formatPercent(m.percentHundredths),
    fixed: formatDecimal(m.fixed, currency),
  });

export function agencyRoutes(deps: ApiDeps) {
  const { db } = deps;
  const child = (parentId: number, raw: string) => requireSubAgency(db, parentId, rowIdOf(raw, 'sub-agency'));
  return partnerRouter()
    .openapi(routes.create, async (c) => {
      const made = await createSubAgency(db, c.get('partner').id, c.req.valid('json').name);
      return created(c, { partner_id: made.partnerId, api_key: made.apiKey, api_secret: made.apiSecret, agency_key: made.agencyKey });
    })
    .openapi(routes.list, async (c) => ok(c, (await listSubAgencies(db, c.get('partner').id)).map(renderSubAgency)))
    .openapi(routes.one, async (c) => ok(c, renderSubAgency(await child(c.get('partner').id, c.req.valid('param').id))))
    .openapi(routes.disable, async (c) => {
      const s = await child(c.get('partner').id, c.req.valid('param').id);
      return ok(c, renderSubAgency(await setSubAgencyStatus(db, s.parentId, s.id, 'disabled')));
    })
    .openapi(routes.enable, async (c) => {
      const s = await child(c.get('partner').id, c.req.valid('param').id);
      return ok(c, renderSubAgency(await setSubAgencyStatus(db, s.parentId, s.id, 'active')));
    })
    .openapi(routes.credit, async (c) => {
      const s = await child(c.get('partner').id, c.req.valid('param').id);
      const b = c.req.valid('json');
      const limit = parseAmount('credit_limit', b.credit_limit, { allowZero: true });
      const set = await setSubAgencyCredit(db, s.parentId, s.id, limit, b.idempotency_key);
      return ok(c, { sub_agency: renderSubAgency(set.child), wallet: renderWallet(set.parentWallet), replayed: set.replayed });
    })
    .openapi(routes.markups, async (c) => {
      const s = await child(c.get('partner').id, c.req.valid('param').id);
      return ok(c, (await listAgencyMarkups(db, s.id)).map(renderMarkup(s.currency)));
    })
    .openapi(routes.setMarkups, async (c) => {
      const s = await child(c.get('partner').id, c.req.valid('param').id);
      return ok(c, (await setAgencyMarkups(db, s.id, c.req.valid('json').markups)).map(renderMarkup(s.currency)));
    })
    .openapi(routes.statement, async (c) => {
      const s = await child(c.get('partner').id, c.req.valid('param').id);
      return answerStatement(c, deps, s.id, c.req.valid('query'));
    });
}
