import { createRoute, z } from '@hono/zod-openapi';
import { formatDecimal } from '../../domain/money/money';
import { attachment, toCsv } from '../../domain/reports/csv';
import { buildStatement, MAX_STATEMENT_DAYS, statementPeriod, type CityName, type Statement, type StatementLine } from '../../domain/money/statements';
import { ORDER_SERVICES } from '../../db/schema';
import type { ApiDeps } from '../deps';
import type { Context } from 'hono';
import { ok, partnerRouter, type PartnerEnv } from './router';
import { Actor, commonErrors, Decimal, envelope, partnerOperations } from './schemas';
import { statementPdf } from './statement-pdf';
import { actorView } from '../../domain/order-view';

const Day = (name: 'from' | 'to', description: string) =>
  z
    .string({ error: 'is required (YYYY-MM-DD)' })
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
    .openapi({ param: { name, in: 'query', required: true }, example: name === 'from' ? '2026-12-01' : '2026-12-31', description });

export const StatementQuery = z.object({
  from: Day('from', 'The first day of the period (UTC), included'),
  to: Day('to', `The last day of the period (UTC), included; at most ${MAX_STATEMENT_DAYS} days after from`),
  format: z
    .enum(['json', 'csv', 'pdf'], { error: 'must be json, csv or pdf' })
    .optional()
    .openapi({ param: { name: 'format', in: 'query' }, example: 'csv', description: 'json (default, in the envelope), csv or pdf (a file download)' }),
});

const StatementMovement = z
  .object({
    date: z.string().openapi({ example: '2026-12-03', description: 'The day it was written (UTC)' }),
    created_at: z.string().openapi({ example: '2026-12-03T09:12:44.101Z' }),
    entry_id: z.number().int().openapi({ description: 'The ledger row (GET /partners/ledger/)' }),
    type: z.enum(['payment', 'refund', 'topup', 'adjustment', 'sub_agency_credit']).openapi({
      description: 'sub_agency_credit (extension): credit given to a sub-agency, or taken back from it',
    }),
    direction: z.enum(['debit', 'credit']),
    amount: Decimal,
    balance_after: Decimal,
    order_id: z.number().int().nullable().openapi({ description: 'The travel or product order it concerns' }),
    service: z.enum(ORDER_SERVICES).nullable().openapi({ description: "The order's service" }),
    description: z.string().openapi({ example: 'Payment: Hotel Parsian Azadi, Tehran, 3-5 Dec 2026, 2 guests (booking 12)' }),
    actor: Actor.openapi({ description: 'Who moved the money (extension)' }),
  })
  .openapi('StatementMovement');

export const StatementBody = z
  .object({
    partner: z.string().openapi({ description: "The partner's name" }),
    currency: z.string().openapi({ example: 'IRT' }),
    from: z.string().openapi({ example: '2026-12-01' }),
    to: z.string().openapi({ example: '2026-12-31' }),
    opening_balance: Decimal.openapi({ description: 'The balance at the start of from (00:00 UTC)' }),
    total_debits: Decimal,
    total_credits: Decimal,
    closing_balance: Decimal.openapi({ description: 'The balance at the end of to: opening_balance - total_debits + total_credits' }),
    credit_limit: Decimal.openapi({ description: 'The credit limit at the end of to; changes to it move no balance and are no movements' }),
    movements: z.array(StatementMovement),
  })
  .openapi('Statement');

function renderMovement(l: StatementLine, currency: string): z.infer<typeof StatementMovement> {
  return {
    date: l.at.toISOString().slice(0, 10),
    created_at: l.at.toISOString(),
    entry_id: l.entryId,
    type: l.type as z.infer<typeof StatementMovement>['type'],
    direction: l.direction,
    amount: formatDecimal(l.amount, currency),
    balance_after: formatDecimal(l.balanceAfter, currency),
    order_id: l.orderId,
    service: l.service,
    description: l.description,
    actor: actorView(l.actor),
  };
}

export function renderStatement(s: Statement): z.infer<typeof StatementBody> {
  const money = (minor: number) => formatDecimal(minor, s.currency);
  return {
    partner: s.partnerName,
    currency: s.currency,
    from: s.period.from,
    to: s.period.to,
    opening_balance: money(s.openingBalance),
    total_debits: money(s.totalDebits),
    total_credits: money(s.totalCredits),
    closing_balance: money(s.closingBalance),
    credit_limit: money(s.creditLimit),
    movements: s.lines.map((l) => renderMovement(l, s.currency)),
  };
}

export const STATEMENT_CSV_HEADER = ['date', 'entry_id', 'type', 'description', 'order_id', 'service', 'debit', 'credit', 'balance', 'currency', 'by'] as const;

/** The statement as CSV: an opening row, one row per movement, a closing row with the period's totals; decimals of the currency. */
export function statementCsv(s: Statement): string {
  const money = (minor: number) => formatDecimal(minor, s.currency);
  return toCsv(STATEMENT_CSV_HEADER, [
    [s.period.from, null, 'opening_balance', 'Opening balance', null, null, null, null, money(s.openingBalance), s.currency, null],
    ...s.lines.map((l) => [
      l.at.toISOString().slice(0, 10),
      l.entryId,
      l.type,
      l.description,
      l.orderId,
      l.service,
      l.direction === 'debit' ? money(l.amount) : null,
      l.direction === 'credit' ? money(l.amount) : null,
      money(l.balanceAfter),
      s.currency,
      l.actor ? `${l.actor.type} ${l.actor.name}` : null,
    ]),
    [
      s.period.to,
      null,
      'closing_balance',
      'Closing balance',
      null,
      null,
      money(s.totalDebits),
      money(s.totalCredits),
      money(s.closingBalance),
      s.currency,
      null,
    ],
  ]);
}

const { get } = partnerOperations(['Credit and wallet']);

/** A statement's answer in the published document: JSON in the envelope, or a CSV or PDF file. */
export const statementAnswer = () => ({
  description: 'The statement: JSON in the envelope, or a CSV or PDF file',
  content: {
    'application/json': { schema: envelope(StatementBody) },
    'text/csv': { schema: z.string().openapi({ description: 'An opening row, one row per movement, a closing row' }) },
    'application/pdf': { schema: z.string().openapi({ format: 'binary' }) },
  },
});

const routes = {
  statement: createRoute({
    ...get(
      '/partners/statements/',
      'The wallet’s statement for a period',
      'The balance at the start of `from`, each movement of the period with its order and a description of what it paid for or gave back, and the balance at the end of `to` (UTC days, both included). ' +
        '`format=csv` and `format=pdf` answer the same statement as a file to download.',
    ),
    request: { query: StatementQuery },
    responses: { 200: statementAnswer(), ...commonErrors },
  }),
};

/** Hotel cities by name, where the booking's supplier is the one the API reads from; a supplier that cannot answer leaves the city out. */
function cityNames(deps: ApiDeps): CityName {
  let cities: Promise<Map<number, string>> | undefined;
  return async (supplier, cityId) => {
    if (supplier !== deps.hotelSupplier.name) return null;
    cities ??= deps.hotelSupplier.cities().then((list) => new Map(list.map((c) => [c.id, c.name])));
    return (await cities).get(cityId) ?? null;
  };
}

/** A partner's statement in the format asked: JSON in the envelope, or a CSV or PDF file. */
export async function answerStatement(c: Context<PartnerEnv>, deps: ApiDeps, partnerId: number, q: z.infer<typeof StatementQuery>) {
  const period = statementPeriod(q.from, q.to);
  const statement = await buildStatement(deps.db, partnerId, period, cityNames(deps));
  const filename = (ext: string) => `statement-${partnerId}-${period.from}-to-${period.to}.${ext}`;
  if (q.format === 'csv') {
    return c.body(statementCsv(statement), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': attachment(filename('csv')) });
  }
  if (q.format === 'pdf') {
    const pdf = await statementPdf(statement);
    return c.body(new Uint8Array(pdf), 200, { 'content-type': 'application/pdf', 'content-disposition': attachment(filename('pdf')) });
  }
  return ok(c, renderStatement(statement));
}

export function statementRoutes(deps: ApiDeps) {
  return partnerRouter().openapi(routes.statement, async (c) => answerStatement(c, deps, c.get('partner').id, c.req.valid('query')));
}
