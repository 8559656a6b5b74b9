import crypto from 'node:crypto';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { forgetAgencyMarkups } from '../../domain/agency-markup-reads';
import { listAgencyMarkups, setAgencyMarkups, type AgencyMarkupRow } from '../../domain/agency-markups';
import { notFound } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import { formatPercent } from '../../domain/markup-rules';
import { formatDecimal, parseAmount } from '../../domain/money';
import { forgetCredentials } from '../../domain/partners';
import { createSubAgency, listSubAgencies, requireSubAgency, setSubAgencyCredit, setSubAgencyStatus } from '../../domain/sub-agencies';
import { renderSubAgency } from '../partner/agencies.routes';
import { renderWallet } from '../partner/schemas';
import type { RequestIdVariables } from '../request-id';
import { audited, auditedOnce, type OperatorVariables } from './actions';
import { body, idParam } from './input';
import { renderCredentials } from './views';

type AdminEnv = { Variables: RequestIdVariables & OperatorVariables };

const CreateBody = z.object({ name: z.string({ error: 'name is required' }).trim().min(1, 'must not be empty').max(200) });
const CreditBody = z.object({ amount: z.union([z.string(), z.number()], { error: 'amount is required' }) });
const MarkupBody = z.object({
  service: z.string({ error: 'service is required' }),
  percent: z.union([z.string(), z.number()]).optional(),
  fixed: z.union([z.string(), z.number()]).optional(),
  remove: z.boolean().optional(),
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

/** Operators' view of sub-agencies (`admin agency child ...`): the same actions a parent takes on Interface A, audited. */
export function subAgencyRoutes(app: Hono<AdminEnv>, db: Db): void {
  const parentId = (c: Context) => idParam(c, 'partner');
  app.post('/admin/partners/:id/agencies', async (c) => {
    const parent = parentId(c);
    const b = await body(c, CreateBody);
    const made = await audited(db, c, (tx) => createSubAgency(tx, parent, b.name));
    forgetCredentials(db);
    return c.json(renderCredentials(made), 201);
  });
  app.get('/admin/partners/:id/agencies', async (c) => c.json({ results: (await listSubAgencies(db, parentId(c))).map(renderSubAgency) }));
  for (const action of ['disable', 'enable'] as const) {
    app.post(`/admin/partners/:id/agencies/:child/${action}`, async (c) => {
      const parent = parentId(c);
      const child = childParam(c);
      const s = await audited(db, c, (tx) => setSubAgencyStatus(tx, parent, child, action === 'disable' ? 'disabled' : 'active'));
      forgetCredentials(db);
      return c.json(renderSubAgency(s));
    });
  }
  app.post('/admin/partners/:id/agencies/:child/credit', async (c) => {
    const parent = parentId(c);
    const child = childParam(c);
    const b = await body(c, CreditBody);
    const limit = parseAmount('amount', b.amount, { allowZero: true });
    const key = `admin:${c.req.header('idempotency-key') ?? crypto.randomUUID()}`;
    const done = await auditedOnce(db, c, async (tx) => {
      const set = await setSubAgencyCredit(tx, parent, child, limit, key);
      return { sub_agency: renderSubAgency(set.child), parent_wallet: renderWallet(set.parentWallet), replayed: set.replayed };
    });
    return c.json(done.body, done.status);
  });
  app.get('/admin/partners/:id/agencies/:child/markups', async (c) => {
    const s = await requireSubAgency(db, parentId(c), childParam(c));
    return c.json({ results: (await listAgencyMarkups(db, s.id)).map(markupView(s.currency)) });
  });
  /** Sets (or removes) one service's markup, keeping the others. */
  app.post('/admin/partners/:id/agencies/:child/markups', async (c) => {
    const s = await requireSubAgency(db, parentId(c), childParam(c));
    const b = await body(c, MarkupBody);
    const others = (await listAgencyMarkups(db, s.id))
      .filter((m) => m.service !== b.service)
      .map((m) => ({ service: m.service, percent: formatPercent(m.percentHundredths), fixed: formatDecimal(m.fixed, s.currency) }));
    const next = b.remove ? others : [...others, { service: b.service, percent: b.percent, fixed: b.fixed }];
    const rows = await audited(db, c, (tx) => setAgencyMarkups(tx, s.id, next));
    forgetAgencyMarkups(db);
    return c.json({ results: rows.map(markupView(s.currency)) });
  });
}
