/**
 * What sets and reports prices: exchange rates (docs/operations.md, "Exchange rates"), markups
 * (docs/operations.md, "Markups"; docs/decisions/pricing-rules.md), and the operators' CSV reports.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { listRates, setRate } from '../../domain/money/fx';
import { forgetRules, listRules, removeRule, setRule } from '../../domain/money/markup-rules';
import { parseWalletCurrency } from '../../domain/partners';
import { runReport, REPORT_NAMES } from '../../domain/reports';
import { attachment } from '../../domain/reports/csv';
import { audited, operatorOf } from './actions';
import type { AdminDeps } from './deps';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { Amount, Decimal, errorResponse, file, IdParams, json, jsonBody, notFoundResponse } from './schemas';
import { renderMarkup, renderRate, renderRates } from './views';

const rates = adminOperations(['Exchange rates']);
const markups = adminOperations(['Markups']);
const reports = adminOperations(['Reports']);

const FxRateBody = z
  .object({
    from: z.string({ error: 'from is required: the currency the rate converts from, e.g. "GBP"' }).max(10).openapi({ example: 'USD' }),
    to: z.string().max(10).optional().openapi({ description: "The wallet currency it converts into; the engine's default without one" }),
    rate: Amount.openapi({ example: '620000', description: 'Wallet units per 1 unit of from' }),
  })
  .openapi('FxRateRequest');
const MarkupBody = z
  .object({
    service: z
      .string({ error: 'service is required: hotels, flights, products, tours, residence, visa or flight_change' })
      .max(20)
      .openapi({ example: 'hotels' }),
    partner: z
      .union([z.number(), z.string().max(20)])
      .nullish()
      .openapi({ description: 'One partner; absent: every partner' }),
    supplier: z.string().max(50).nullish().openapi({ description: 'One supplier; absent: any' }),
    percent: Amount.nullish(),
    fixed: Amount.nullish(),
    min_margin: Amount.nullish(),
    from: z.string().max(20).nullish().openapi({ description: 'The first day it applies (YYYY-MM-DD)' }),
    to: z.string().max(20).nullish().openapi({ description: 'The last day it applies (YYYY-MM-DD)' }),
    currency: z.string().max(10).optional(),
  })
  .openapi('MarkupRequest');

const Rate = z
  .object({ id: z.number().int(), currency: z.string(), wallet_currency: z.string(), rate: z.string(), set_by: z.string(), set_at: z.string() })
  .openapi('FxRate');
const Rates = z
  .object({
    wallet_currency: z.string(),
    max_age_hours: z.number(),
    results: z.array(
      Rate.extend({ age_seconds: z.number().int(), stale: z.boolean().openapi({ description: 'Too old to sell with (FX_RATE_MAX_AGE_HOURS)' }) }),
    ),
  })
  .openapi('FxRates');
const Markup = z
  .object({
    id: z.number().int(),
    service: z.string(),
    partner_id: z.number().int().nullable(),
    supplier: z.string().nullable(),
    percent: z.string(),
    fixed: Decimal,
    min_margin: Decimal,
    currency: z.string(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    created_by: z.string(),
    created_at: z.string(),
    removed_at: z.string().nullable(),
    removed_by: z.string().nullable(),
  })
  .openapi('Markup');

const Day = (description: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `${description} (YYYY-MM-DD, UTC)`, pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

const routes = {
  rates: createRoute({
    ...rates.get('/admin/fx', 'The exchange rates in force', "Each pair's current rate, its age, and whether it is too old to sell with."),
    responses: { 200: json(Rates, 'The rates') },
  }),
  setRate: createRoute({
    ...rates.post('/admin/fx', 'Set an exchange rate'),
    request: { body: jsonBody(FxRateBody) },
    responses: { 201: json(Rate, 'The rate as stored') },
  }),
  report: createRoute({
    ...reports.get('/admin/reports/{name}', 'An operators’ report as CSV', '`from` and `to` for those over a period; exposure is a snapshot of now.'),
    request: {
      params: z.object({ name: z.string().openapi({ param: { name: 'name', in: 'path' }, enum: REPORT_NAMES, example: 'exposure' }) }),
      query: z.object({ from: Day('The first day'), to: Day('The last day') }),
    },
    responses: { 200: file('text/csv', 'The report'), 404: errorResponse('No report has that name') },
  }),
  markups: createRoute({
    ...markups.get('/admin/markups', 'The markup rules'),
    request: {
      query: z.object({
        removed: z
          .string()
          .optional()
          .openapi({ enum: ['true'], description: 'true: the removed ones too' }),
      }),
    },
    responses: { 200: json(z.object({ currency: z.string(), results: z.array(Markup) }), 'The rules in force (and removed ones, when asked)') },
  }),
  setMarkup: createRoute({
    ...markups.post('/admin/markups', 'Set a markup rule'),
    request: { body: jsonBody(MarkupBody) },
    responses: { 201: json(Markup, 'The rule') },
  }),
  removeMarkup: createRoute({
    ...markups.del('/admin/markups/{id}', 'Remove a markup rule'),
    request: { params: IdParams('pricing rule') },
    responses: { 200: json(Markup, 'The rule, removed'), ...notFoundResponse },
  }),
};

export function pricingRoutes(deps: Pick<AdminDeps, 'db' | 'currency' | 'fxRateMaxAgeMs'>) {
  const { db } = deps;
  return adminRouter()
    .openapi(routes.rates, async (c) => c.json(renderRates(await listRates(db), deps.currency, deps.fxRateMaxAgeMs), 200))
    .openapi(routes.setRate, async (c) => {
      const b = c.req.valid('json');
      const walletCurrency = b.to === undefined ? deps.currency : parseWalletCurrency('to', b.to);
      const set = await audited(db, c, (tx) => setRate(tx, { currency: b.from, walletCurrency, rate: b.rate, operator: operatorOf(c) }));
      return c.json(renderRate(set), 201);
    })
    .openapi(routes.report, async (c) => {
      const { filename, csv } = await runReport(db, c.req.param('name'), { from: c.req.query('from'), to: c.req.query('to') });
      return c.body(csv, 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': attachment(filename) });
    })
    .openapi(routes.markups, async (c) =>
      c.json({ currency: deps.currency, results: (await listRules(db, { removed: c.req.query('removed') === 'true' })).map(renderMarkup) }, 200),
    )
    .openapi(routes.setMarkup, async (c) => {
      const b = c.req.valid('json');
      const currency = b.currency === undefined ? deps.currency : parseWalletCurrency('currency', b.currency);
      const rule = await audited(db, c, (tx) => setRule(tx, { ...b, currency, operator: operatorOf(c) }));
      forgetRules(db);
      return c.json(renderMarkup(rule), 201);
    })
    .openapi(routes.removeMarkup, async (c) => {
      const id = idParam(c, 'pricing rule');
      const rule = await audited(db, c, (tx) => removeRule(tx, id, operatorOf(c)));
      forgetRules(db);
      return c.json(renderMarkup(rule), 200);
    });
}
