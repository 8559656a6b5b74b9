/**
 * What finance closes a month with (docs/operations.md, "Close the month"): the partners
 * list, a partner let in again, manual adjustments with a second operator's approval above
 * the threshold, the audit by operator, target and date, and a partner's statement.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { approveAdjustment, getAdjustment, listAdjustments, proposeAdjustment, renderAdjustment } from '../../domain/adjustments';
import { listAudit } from '../../domain/audit';
import { DomainError } from '../../domain/errors';
import { formatDecimal } from '../../domain/money';
import { listPartners } from '../../domain/partner-list';
import { enablePartner, forgetCredentials, requirePartner } from '../../domain/partners';
import { attachment } from '../../domain/reports/csv';
import { buildStatement, statementPeriod } from '../../domain/statements';
import { getWallet } from '../../domain/wallet';
import { renderStatement, statementCsv } from '../partner/statements.routes';
import { statementPdf } from '../partner/statement-pdf';
import { renderWallet } from '../partner/schemas';
import type { RequestIdVariables } from '../request-id';
import { audited, auditedOnce, operatorOf, type OperatorVariables } from './actions';
import { body, idParam, pageAnswer, pageOf, textQuery } from './input';

type AdminEnv = { Variables: RequestIdVariables & OperatorVariables };

const AdjustBody = z.object({
  amount: z.union([z.string().max(40), z.number()], { error: 'amount is required: a signed decimal, e.g. "-1500.00" or "250"' }),
  reason: z.string({ error: 'reason is required: say why' }).trim().min(3, 'say why (at least 3 characters)').max(500),
});

const STATUSES = ['active', 'disabled'] as const;
const ADJUSTMENT_STATUSES = ['proposed', 'posted'] as const;

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw new DomainError('validation', `${name}: must be ${allowed.join(' or ')}`);
  return raw as T;
}

function partnerQuery(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw new DomainError('validation', 'partner: must be a positive integer id');
  return Number(raw);
}

export function financeRoutes(app: Hono<AdminEnv>, deps: { db: Db; adjustmentApprovalThresholdMinor: number; currency: string }): void {
  const { db } = deps;

  app.get('/admin/partners', async (c) => {
    const page = pageOf(c, { pageSize: 50, max: 500 });
    const { rows, total } = await listPartners(db, { status: oneOf('status', c.req.query('status'), STATUSES), name: textQuery(c, 'name', 200) }, page);
    return c.json(
      pageAnswer(
        page,
        total,
        rows.map((p) => ({
          id: p.id,
          name: p.name,
          status: p.status,
          created_at: p.createdAt.toISOString(),
          rate_limit_per_minute: p.rateLimitPerMinute,
          parent_id: p.parentId,
          wallet:
            p.currency === null
              ? null
              : {
                  balance: formatDecimal(p.balance!, p.currency),
                  credit_limit: formatDecimal(p.creditLimit!, p.currency),
                  available: formatDecimal(p.balance! + p.creditLimit!, p.currency),
                  currency: p.currency,
                },
        })),
      ),
    );
  });
  app.post('/admin/partners/:id/enable', async (c) => {
    const id = idParam(c, 'partner');
    await audited(db, c, (tx) => enablePartner(tx, id));
    forgetCredentials(db);
    return c.json({ partner_id: id, status: 'active' });
  });

  // Manual adjustments (src/domain/adjustments.ts): posted at once up to the threshold, else proposed.
  app.post('/admin/partners/:id/adjustments', async (c) => {
    const id = idParam(c, 'partner');
    const b = await body(c, AdjustBody);
    const done = await auditedOnce(db, c, async (tx) => {
      const made = await proposeAdjustment(tx, {
        partnerId: id,
        amount: b.amount,
        reason: b.reason,
        operator: operatorOf(c),
        threshold: { minor: deps.adjustmentApprovalThresholdMinor, currency: deps.currency },
      });
      return { ...renderAdjustment(made), wallet: renderWallet(await getWallet(tx, id)) };
    });
    return c.json(done.body, done.status);
  });
  app.get('/admin/adjustments', async (c) => {
    const page = pageOf(c, { pageSize: 50, max: 500 });
    const filter = { partnerId: partnerQuery(c.req.query('partner')), status: oneOf('status', c.req.query('status'), ADJUSTMENT_STATUSES) };
    const { rows, total } = await listAdjustments(db, filter, { offset: (page.page - 1) * page.pageSize, limit: page.pageSize });
    return c.json(pageAnswer(page, total, rows.map(renderAdjustment)));
  });
  app.get('/admin/adjustments/:id', async (c) => c.json(renderAdjustment(await getAdjustment(db, idParam(c, 'adjustment')))));
  app.post('/admin/adjustments/:id/approve', async (c) => {
    const id = idParam(c, 'adjustment');
    const { adjustment, posted } = await audited(db, c, (tx) => approveAdjustment(tx, id, operatorOf(c)));
    return c.json({ ...renderAdjustment(adjustment), posted_now: posted, wallet: renderWallet(await getWallet(db, adjustment.partnerId)) });
  });

  // The audit trail, newest first: by operator, by a prefix of the target, by UTC days.
  app.get('/admin/audit', async (c) => {
    const page = pageOf(c, { pageSize: 100, max: 1000 });
    const filter = {
      operator: textQuery(c, 'operator', 64),
      targetPrefix: textQuery(c, 'target', 500),
      from: textQuery(c, 'from', 10),
      to: textQuery(c, 'to', 10),
    };
    const { rows, total } = await listAudit(db, filter, page);
    return c.json(
      pageAnswer(
        page,
        total,
        rows.map((r) => ({ ...r, at: r.at.toISOString() })),
      ),
    );
  });

  // A partner's statement, the one it downloads itself (src/http/partner/statements.routes.ts).
  app.get('/admin/partners/:id/statement', async (c) => {
    const id = idParam(c, 'partner');
    const format = oneOf('format', c.req.query('format'), ['json', 'csv', 'pdf'] as const) ?? 'json';
    const [from, to] = [c.req.query('from'), c.req.query('to')];
    if (from === undefined) throw new DomainError('validation', 'from: is required (YYYY-MM-DD)');
    if (to === undefined) throw new DomainError('validation', 'to: is required (YYYY-MM-DD)');
    const period = statementPeriod(from, to);
    await requirePartner(db, id);
    const statement = await buildStatement(db, id, period);
    const filename = (ext: string) => `statement-${id}-${period.from}-to-${period.to}.${ext}`;
    if (format === 'csv') {
      return c.body(statementCsv(statement), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': attachment(filename('csv')) });
    }
    if (format === 'pdf') {
      const pdf = await statementPdf(statement);
      return c.body(new Uint8Array(pdf), 200, { 'content-type': 'application/pdf', 'content-disposition': attachment(filename('pdf')) });
    }
    return c.json({ partner_id: id, ...renderStatement(statement) });
  });
}
