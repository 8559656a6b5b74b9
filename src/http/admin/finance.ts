/**
 * What finance closes a month with (docs/operations.md, "Close the month"): the partners
 * list, a partner let in again, manual adjustments with a second operator's approval above
 * the threshold, the audit by operator, target and date, and a partner's statement.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { approveAdjustment, getAdjustment, listAdjustments, proposeAdjustment, renderAdjustment } from '../../domain/money/adjustments';
import { listAudit } from '../../domain/audit';
import { DomainError } from '../../domain/errors';
import { formatDecimal } from '../../domain/money/money';
import { listPartners } from '../../domain/partner-list';
import { enablePartner, forgetCredentials, requirePartner } from '../../domain/partners';
import { attachment } from '../../domain/reports/csv';
import { buildStatement, statementPeriod } from '../../domain/money/statements';
import { getWallet } from '../../domain/money/wallet';
import { renderStatement, StatementBody, statementCsv } from '../partner/statements.routes';
import { statementPdf } from '../partner/statement-pdf';
import { renderWallet } from '../partner/schemas';
import { audited, auditedOnce, operatorOf } from './actions';
import type { AdminDeps } from './deps';
import { idParam, pageAnswer, pageOf, textQuery } from './input';
import { adminOperations, adminRouter } from './router';
import { Decimal, errorResponse, file, IdempotencyHeaders, IdParams, json, jsonBody, notFoundResponse, paged, pageQuery, Wallet } from './schemas';

const partners = adminOperations(['Partners']);
const adjustments = adminOperations(['Adjustments']);
const audit = adminOperations(['Audit']);

const AdjustBody = z
  .object({
    amount: z
      .union([z.string().max(40), z.number()], { error: 'amount is required: a signed decimal, e.g. "-1500.00" or "250"' })
      .openapi({ example: '-1500.00', description: 'A signed decimal: positive credits the wallet, negative debits it' }),
    reason: z.string({ error: 'reason is required: say why' }).trim().min(3, 'say why (at least 3 characters)').max(500),
  })
  .openapi('AdjustmentRequest');

const STATUSES = ['active', 'disabled'] as const;
const ADJUSTMENT_STATUSES = ['proposed', 'posted'] as const;

const ListedPartner = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: z.enum(STATUSES),
    created_at: z.string(),
    rate_limit_per_minute: z.number().int().nullable(),
    parent_id: z.number().int().nullable().openapi({ description: "A sub-agency's parent" }),
    wallet: z.object({ balance: Decimal, credit_limit: Decimal, available: Decimal, currency: z.string() }).nullable(),
  })
  .openapi('ListedPartner');
const Adjustment = z
  .object({
    id: z.number().int(),
    partner_id: z.number().int(),
    amount: Decimal,
    currency: z.string(),
    reason: z.string(),
    status: z.enum(ADJUSTMENT_STATUSES),
    proposed_by: z.string(),
    proposed_at: z.string(),
    approved_by: z.string().nullable(),
    posted_at: z.string().nullable(),
    ledger_entry_id: z.number().int().nullable(),
  })
  .openapi('Adjustment');
const AuditRow = z
  .object({
    id: z.number().int(),
    at: z.string(),
    operator: z.string(),
    action: z.string().openapi({ example: 'partners/:id/topup' }),
    target: z.string().openapi({ example: 'partners/7/topup' }),
    reason: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi('AuditEntry');

const text = (description: string, max: number) =>
  z
    .string()
    .optional()
    .openapi({ description: `${description}; at most ${max} characters` });
const day = (description: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `${description} (YYYY-MM-DD, UTC)`, pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const oneOfQuery = (values: readonly string[], description: string) =>
  z
    .string()
    .optional()
    .openapi({ enum: [...values], description });
const partner = IdParams('partner');

const routes = {
  list: createRoute({
    ...partners.get('/admin/partners', 'The partners, with their wallets'),
    request: {
      query: z.object({
        status: oneOfQuery(STATUSES, 'Only those in this status'),
        name: text('Only those whose name contains this', 200),
        ...pageQuery(500),
      }),
    },
    responses: { 200: json(paged(ListedPartner), 'A page of partners, 50 by default') },
  }),
  enable: createRoute({
    ...partners.post('/admin/partners/{id}/enable', 'Let a disabled partner in again', 'With the credentials it had.'),
    request: { params: partner },
    responses: { 200: json(z.object({ partner_id: z.number().int(), status: z.literal('active') }), 'Enabled'), ...notFoundResponse },
  }),
  adjust: createRoute({
    ...adjustments.post(
      '/admin/partners/{id}/adjustments',
      "Adjust a partner's wallet by hand",
      'Posted at once up to ADJUSTMENT_APPROVAL_THRESHOLD; above it, proposed until a second operator approves it. Takes Idempotency-Key.',
    ),
    request: {
      params: partner,
      headers: IdempotencyHeaders,
      body: jsonBody(AdjustBody),
    },
    responses: {
      200: json(Adjustment.extend({ wallet: Wallet }), 'Posted or proposed, with the wallet'),
      ...notFoundResponse,
      422: errorResponse('The Idempotency-Key was used for a different request'),
    },
  }),
  adjustments: createRoute({
    ...adjustments.get('/admin/adjustments', 'Manual adjustments, newest first'),
    request: {
      query: z.object({
        partner: z.string().optional().openapi({ description: "One partner's", pattern: '^[1-9][0-9]{0,9}$' }),
        status: oneOfQuery(ADJUSTMENT_STATUSES, 'Only those in this status'),
        ...pageQuery(500),
      }),
    },
    responses: { 200: json(paged(Adjustment), 'A page of adjustments, 50 by default') },
  }),
  adjustment: createRoute({
    ...adjustments.get('/admin/adjustments/{id}', 'A manual adjustment'),
    request: { params: IdParams('adjustment') },
    responses: { 200: json(Adjustment, 'The adjustment'), ...notFoundResponse },
  }),
  approve: createRoute({
    ...adjustments.post(
      '/admin/adjustments/{id}/approve',
      'Approve a proposed adjustment',
      "A second operator's: the proposer's own approval is refused (403).",
    ),
    request: { params: IdParams('adjustment') },
    responses: {
      200: json(Adjustment.extend({ posted_now: z.boolean(), wallet: Wallet }), 'Posted (or already posted: posted_now false)'),
      ...notFoundResponse,
      403: errorResponse("The proposer's own approval"),
    },
  }),
  audit: createRoute({
    ...audit.get('/admin/audit', 'The audit trail, newest first'),
    request: {
      query: z.object({
        operator: text('Only this operator’s actions', 64),
        target: text('Only targets beginning with this (e.g. partners/7/)', 500),
        from: day('From this day'),
        to: day('To this day, included'),
        ...pageQuery(1000),
      }),
    },
    responses: { 200: json(paged(AuditRow), 'A page of the audit, 100 rows by default') },
  }),
  statement: createRoute({
    ...partners.get('/admin/partners/{id}/statement', "A partner's statement for a period", 'The statement the partner downloads itself: JSON, CSV or PDF.'),
    request: {
      params: partner,
      query: z.object({
        from: z.string().optional().openapi({ description: 'The first day (YYYY-MM-DD, UTC); required' }),
        to: z.string().optional().openapi({ description: 'The last day, included (YYYY-MM-DD, UTC); required' }),
        format: oneOfQuery(['json', 'csv', 'pdf'], 'json (the default), csv or pdf'),
      }),
    },
    responses: {
      200: {
        description: 'The statement',
        content: {
          'application/json': { schema: StatementBody.extend({ partner_id: z.number().int() }) },
          'text/csv': file('text/csv', '').content['text/csv'],
          'application/pdf': file('application/pdf', '').content['application/pdf'],
        },
      },
      ...notFoundResponse,
    },
  }),
};

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

export function financeRoutes(deps: Pick<AdminDeps, 'db' | 'adjustmentApprovalThresholdMinor' | 'currency'>) {
  const { db } = deps;
  return (
    adminRouter()
      .openapi(routes.list, async (c) => {
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
          200,
        );
      })
      .openapi(routes.enable, async (c) => {
        const id = idParam(c, 'partner');
        await audited(db, c, (tx) => enablePartner(tx, id));
        forgetCredentials(db);
        return c.json({ partner_id: id, status: 'active' as const }, 200);
      })

      // Manual adjustments (src/domain/money/adjustments.ts): posted at once up to the threshold, else proposed.
      .openapi(routes.adjust, async (c) => {
        const id = idParam(c, 'partner');
        const b = c.req.valid('json');
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
      })
      .openapi(routes.adjustments, async (c) => {
        const page = pageOf(c, { pageSize: 50, max: 500 });
        const filter = { partnerId: partnerQuery(c.req.query('partner')), status: oneOf('status', c.req.query('status'), ADJUSTMENT_STATUSES) };
        const { rows, total } = await listAdjustments(db, filter, { offset: (page.page - 1) * page.pageSize, limit: page.pageSize });
        return c.json(pageAnswer(page, total, rows.map(renderAdjustment)), 200);
      })
      .openapi(routes.adjustment, async (c) => c.json(renderAdjustment(await getAdjustment(db, idParam(c, 'adjustment'))), 200))
      .openapi(routes.approve, async (c) => {
        const id = idParam(c, 'adjustment');
        const { adjustment, posted } = await audited(db, c, (tx) => approveAdjustment(tx, id, operatorOf(c)));
        return c.json({ ...renderAdjustment(adjustment), posted_now: posted, wallet: renderWallet(await getWallet(db, adjustment.partnerId)) }, 200);
      })

      // The audit trail, newest first: by operator, by a prefix of the target, by UTC days.
      .openapi(routes.audit, async (c) => {
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
          200,
        );
      })

      // A partner's statement, the one it downloads itself (src/http/partner/statements.routes.ts).
      .openapi(routes.statement, async (c) => {
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
        return c.json({ partner_id: id, ...renderStatement(statement) }, 200);
      })
  );
}
