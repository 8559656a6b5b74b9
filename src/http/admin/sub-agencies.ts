import crypto from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Db } from '../../db/client';
import { forgetAgencyMarkups } from '../../domain/money/agency-markup-reads';
import { listAgencyMarkups, setAgencyMarkups, type AgencyMarkupRow } from '../../domain/money/agency-markups';
import { notFound } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import { formatPercent } from '../../domain/money/markup-rules';
import { formatDecimal, parseAmount } from '../../domain/money/money';
import { forgetCredentials } from '../../domain/partners';
import { createSubAgency, listSubAgencies, requireSubAgency, setSubAgencyCredit, setSubAgencyStatus } from '../../domain/sub-agencies';
import { renderSubAgency, SubAgencyView } from '../partner/agencies.routes';
import { renderWallet } from '../partner/schemas';
import { audited, auditedOnce } from './actions';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { Credentials, Decimal, IdempotencyHeaders, errorResponse, idPath, json, jsonBody, notFoundResponse, Wallet } from './schemas';
import { renderCredentials } from './views';

const { get, post } = adminOperations(['Sub-agencies']);

const CreateBody = z
  .object({ name: z.string({ error: 'name is required' }).trim().min(1, 'must not be empty').max(200).openapi({ example: 'Acme Travel Shiraz' }) })
  .openapi('AdminSubAgencyRequest');
const CreditBody = z
  .object({ amount: z.union([z.string(), z.number()], { error: 'amount is required' }).openapi({ example: '500000.00', description: 'Its credit limit' }) })
  .openapi('AdminSubAgencyCreditRequest');
const MarkupBody = z
  .object({
    service: z.string({ error: 'service is required' }).openapi({ example: 'hotels' }),
    percent: z.union([z.string(), z.number()]).optional(),
    fixed: z.union([z.string(), z.number()]).optional(),
    remove: z.boolean().optional().openapi({ description: "true: remove the service's markup" }),
  })
  .openapi('AdminSubAgencyMarkupRequest');

const Markups = z.object({ results: z.array(z.object({ service: z.string(), percent: z.string(), fixed: Decimal })) }).openapi('AdminSubAgencyMarkups');

/** The `{child}` of the path: a sub-agency's id; anything else names none (404). */
const ChildParams = z.object({
  id: idPath('partner'),
  child: z.string().openapi({ param: { name: 'child', in: 'path' }, example: '2', pattern: '^[1-9][0-9]{0,9}$', description: "The sub-agency's id" }),
});

/** The `:child` of the path, a positive id. */
function childParam(c: Context): number {
  const raw = c.req.param('child') ?? '';
  if (!/^[1-9]\d{0,9}$/.test(raw) || !isStorableId(Number(raw))) throw notFound(`sub-agency ${raw}`);
  return Number(raw);
}

const markupView = (currency: string) => (m: AgencyMarkupRow) => ({
  service: m.service,
  percent: formatPercent(m.percentHundredths),
  fixed: formatDecimal(m.fixed, currency),
});

const statusRoute = <A extends 'disable' | 'enable'>(action: A) =>
  createRoute({
    ...post(
      `/admin/partners/{id}/agencies/{child}/${action}` as `/admin/partners/{id}/agencies/{child}/${A}`,
      `${action === 'disable' ? 'Disable' : 'Enable'} a sub-agency`,
    ),
    request: { params: ChildParams },
    responses: { 200: json(SubAgencyView, 'The sub-agency'), ...notFoundResponse },
  });

const routes = {
  create: createRoute({
    ...post('/admin/partners/{id}/agencies', 'Create a sub-agency of a partner', 'Its credentials are shown only in this answer.'),
    request: { params: z.object({ id: idPath('partner') }), body: jsonBody(CreateBody) },
    responses: { 201: json(Credentials, 'Created'), ...notFoundResponse },
  }),
  list: createRoute({
    ...get('/admin/partners/{id}/agencies', "A partner's sub-agencies"),
    request: { params: z.object({ id: idPath('partner') }) },
    responses: { 200: json(z.object({ results: z.array(SubAgencyView) }), 'Its sub-agencies'), ...notFoundResponse },
  }),
  disable: statusRoute('disable'),
  enable: statusRoute('enable'),
  credit: createRoute({
    ...post('/admin/partners/{id}/agencies/{child}/credit', "Set a sub-agency's credit limit", "Out of its parent's available credit; takes Idempotency-Key."),
    request: {
      params: ChildParams,
      headers: IdempotencyHeaders,
      body: jsonBody(CreditBody),
    },
    responses: {
      200: json(z.object({ sub_agency: SubAgencyView, parent_wallet: Wallet, replayed: z.boolean() }), 'Set'),
      ...notFoundResponse,
      422: errorResponse('The Idempotency-Key was used for a different request'),
    },
  }),
  markups: createRoute({
    ...get('/admin/partners/{id}/agencies/{child}/markups', "A parent's markups on a sub-agency's prices"),
    request: { params: ChildParams },
    responses: { 200: json(Markups, 'By service'), ...notFoundResponse },
  }),
  setMarkup: createRoute({
    ...post('/admin/partners/{id}/agencies/{child}/markups', "Set (or remove) one service's markup on a sub-agency", 'The other services’ stay.'),
    request: { params: ChildParams, body: jsonBody(MarkupBody) },
    responses: { 200: json(Markups, 'The markups now'), ...notFoundResponse },
  }),
};

/** Operators' view of sub-agencies (`admin agency child ...`): the same actions a parent takes on Interface A, audited. */
export function subAgencyRoutes(deps: { db: Db }) {
  const { db } = deps;
  const parentId = (c: Context) => idParam(c, 'partner');
  const setStatus = async (c: Context, action: 'disable' | 'enable') => {
    const parent = parentId(c);
    const child = childParam(c);
    const s = await audited(db, c, (tx) => setSubAgencyStatus(tx, parent, child, action === 'disable' ? 'disabled' : 'active'));
    forgetCredentials(db);
    return renderSubAgency(s);
  };
  return (
    adminRouter()
      .openapi(routes.create, async (c) => {
        const parent = parentId(c);
        const b = c.req.valid('json');
        const made = await audited(db, c, (tx) => createSubAgency(tx, parent, b.name));
        forgetCredentials(db);
        return c.json(renderCredentials(made), 201);
      })
      .openapi(routes.list, async (c) => c.json({ results: (await listSubAgencies(db, parentId(c))).map(renderSubAgency) }, 200))
      .openapi(routes.disable, async (c) => c.json(await setStatus(c, 'disable'), 200))
      .openapi(routes.enable, async (c) => c.json(await setStatus(c, 'enable'), 200))
      .openapi(routes.credit, async (c) => {
        const parent = parentId(c);
        const child = childParam(c);
        const b = c.req.valid('json');
        const limit = parseAmount('amount', b.amount, { allowZero: true });
        const key = `admin:${c.req.header('idempotency-key') ?? crypto.randomUUID()}`;
        const done = await auditedOnce(db, c, async (tx) => {
          const set = await setSubAgencyCredit(tx, parent, child, limit, key);
          return { sub_agency: renderSubAgency(set.child), parent_wallet: renderWallet(set.parentWallet), replayed: set.replayed };
        });
        return c.json(done.body, done.status);
      })
      .openapi(routes.markups, async (c) => {
        const s = await requireSubAgency(db, parentId(c), childParam(c));
        return c.json({ results: (await listAgencyMarkups(db, s.id)).map(markupView(s.currency)) }, 200);
      })
      /** Sets (or removes) one service's markup, keeping the others. */
      .openapi(routes.setMarkup, async (c) => {
        const s = await requireSubAgency(db, parentId(c), childParam(c));
        const b = c.req.valid('json');
        const others = (await listAgencyMarkups(db, s.id))
          .filter((m) => m.service !== b.service)
          .map((m) => ({ service: m.service, percent: formatPercent(m.percentHundredths), fixed: formatDecimal(m.fixed, s.currency) }));
        const next = b.remove ? others : [...others, { service: b.service, percent: b.percent, fixed: b.fixed }];
        const rows = await audited(db, c, (tx) => setAgencyMarkups(tx, s.id, next));
        forgetAgencyMarkups(db);
        return c.json({ results: rows.map(markupView(s.currency)) }, 200);
      })
  );
}
