/**
 * Operators' reports read from the books (src/domain/money/books.ts): what margins and fees the
 * company earned, and what it owes each supplier. Each adds up to the accounts it reads, so
 * a report and the books never disagree.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../../db/client';
import { formatDecimal } from '../money/money';
import type { StatementPeriod as Period } from '../money/statements';
import { toCsv } from './csv';

export const REPORT_GRAINS = ['day', 'month'] as const;
export type ReportGrain = (typeof REPORT_GRAINS)[number];

export interface MarginRow {
  /** The first day of the day or month. */
  period: string;
  service: string;
  partnerId: number;
  partnerName: string;
  supplier: string;
  currency: string;
  /** Orders sold (their sale posted) in the period. */
  sales: number;
  /** The margin account's movement: margins earned less margins given back. */
  marginMinor: number;
  /** The fees account's movement: cancellation fees kept. */
  feesMinor: number;
  /** The parent agency of a sub-agency's sales; null for an agency of its own. */
  parentId: number | null;
  /** The parent's margin on them (its agency_margin account's movement), apart from the company's. */
  agencyMarginMinor: number;
}

/**
 * Margins by period, service, partner and supplier: the movement of the margin and fee
 * accounts in the period, order by order, so its margins add up to the margin account's
 * movement and its fees to the fee account's.
 */
export async function marginReport(db: DbOrTx, period: Period, grain: ReportGrain): Promise<MarginRow[]> {
  const [start, end] = [period.start.toISOString(), period.end.toISOString()];
  const rows = rowsOf<{
    period: string;
    service: string;
    partner_id: number;
    partner_name: string;
    supplier: string;
    currency: string;
    sales: string;
    margin: string;
    fees: string;
    parent_id: number | null;
    agency_margin: string;
  }>(
    await db.execute(sql`
      select to_char(date_trunc(${grain}, t.created_at at time zone 'UTC'), 'YYYY-MM-DD') as period,
        o.service, o.partner_id, p.name as partner_name, o.supplier, t.currency,
        count(distinct o.id) filter (where t.kind in ('sale_net', 'sale_margin')) as sales,
        coalesce(sum(case when c.kind = 'margin' then t.amount_minor when d.kind = 'margin' then -t.amount_minor end), 0) as margin,
        coalesce(sum(case when c.kind = 'fees' then t.amount_minor when d.kind = 'fees' then -t.amount_minor end), 0) as fees,
        p.parent_id,
        coalesce(sum(case when c.kind = 'agency_margin' then t.amount_minor when d.kind = 'agency_margin' then -t.amount_minor end), 0) as agency_margin
      from transfers t
      join accounts d on d.code = t.debit_account
      join accounts c on c.code = t.credit_account
      join orders o on o.id = t.order_id
      join partners p on p.id = o.partner_id
      where t.created_at >= ${start}::timestamptz and t.created_at < ${end}::timestamptz
        and (d.kind in ('margin', 'fees', 'agency_margin') or c.kind in ('margin', 'fees', 'agency_margin') or t.kind in ('sale_net', 'sale_margin'))
      group by 1, o.service, o.partner_id, p.name, p.parent_id, o.supplier, t.currency
      order by 1, o.service, o.partner_id, o.supplier, t.currency`),
  );
  return rows.map((r) => ({
    period: r.period,
    service: r.service,
    partnerId: r.partner_id,
    partnerName: r.partner_name,
    supplier: r.supplier,
    currency: r.currency,
    sales: Number(r.sales),
    marginMinor: Number(r.margin),
    feesMinor: Number(r.fees),
    parentId: r.parent_id,
    agencyMarginMinor: Number(r.agency_margin),
  }));
}

export interface SupplierRow {
  supplier: string;
  currency: string;
  /** Owed at the start of the period. */
  openingMinor: number;
  /** Bought in the period: what sales put on the account. */
  boughtMinor: number;
  /** Given back in the period: refunds and reversed sales. */
  refundedMinor: number;
  /** Owed at the end of the period: the account's balance then. */
  owedMinor: number;
}

/** What is owed to each supplier, in the currency it prices in: each supplier account's balance at the start and end of the period, and what moved it. */
export async function supplierReport(db: DbOrTx, period: Period): Promise<SupplierRow[]> {
  const [start, end] = [period.start.toISOString(), period.end.toISOString()];
  const rows = rowsOf<{ code: string; currency: string; opening: string; bought: string; refunded: string }>(
    await db.execute(sql`
      select a.code, a.currency,
        coalesce(sum(case when t.created_at < ${start}::timestamptz then (case when t.credit_account = a.code then t.amount_minor else -t.amount_minor end) end), 0) as opening,
        coalesce(sum(case when t.created_at >= ${start}::timestamptz and t.credit_account = a.code then t.amount_minor end), 0) as bought,
        coalesce(sum(case when t.created_at >= ${start}::timestamptz and t.debit_account = a.code then t.amount_minor end), 0) as refunded
      from accounts a
      left join transfers t on (t.credit_account = a.code or t.debit_account = a.code) and t.created_at < ${end}::timestamptz
      where a.kind = 'supplier'
      group by a.code, a.currency
      order by a.code`),
  );
  return rows.map((r) => {
    const opening = Number(r.opening);
    const bought = Number(r.bought);
    const refunded = Number(r.refunded);
    return {
      supplier: r.code.split(':')[1]!,
      currency: r.currency,
      openingMinor: opening,
      boughtMinor: bought,
      refundedMinor: refunded,
      owedMinor: opening + bought - refunded,
    };
  });
}

/** An account's movement in a period (credits less debits): what a report is checked against. */
export async function accountMovement(db: DbOrTx, code: string, period: Period): Promise<number> {
  const [start, end] = [period.start.toISOString(), period.end.toISOString()];
  const [row] = rowsOf<{ moved: string }>(
    await db.execute(sql`
      select coalesce(sum(case when credit_account = ${code} then amount_minor else -amount_minor end), 0) as moved
      from transfers where (credit_account = ${code} or debit_account = ${code})
        and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz`),
  );
  return Number(row!.moved);
}

export const MARGINS_HEADER = [
  'period',
  'service',
  'partner_id',
  'partner',
  'supplier',
  'currency',
  'sales',
  'margin',
  'fees',
  'parent_id',
  'agency_margin',
] as const;

/** The margin report as CSV, a row a month, amounts as decimals of their currency. */
export async function marginsCsv(db: DbOrTx, period: Period): Promise<string> {
  const rows = await marginReport(db, period, 'month');
  return toCsv(
    MARGINS_HEADER,
    rows.map((r) => [
      r.period,
      r.service,
      r.partnerId,
      r.partnerName,
      r.supplier,
      r.currency,
      r.sales,
      formatDecimal(r.marginMinor, r.currency),
      formatDecimal(r.feesMinor, r.currency),
      r.parentId,
      formatDecimal(r.agencyMarginMinor, r.currency),
    ]),
  );
}

export const SUPPLIERS_HEADER = ['supplier', 'currency', 'opening', 'bought', 'refunded', 'owed'] as const;

/** What is owed to each supplier as CSV, in the currency it prices in. */
export async function suppliersCsv(db: DbOrTx, period: Period): Promise<string> {
  const rows = await supplierReport(db, period);
  return toCsv(
    SUPPLIERS_HEADER,
    rows.map((r) => [
      r.supplier,
      r.currency,
      formatDecimal(r.openingMinor, r.currency),
      formatDecimal(r.boughtMinor, r.currency),
      formatDecimal(r.refundedMinor, r.currency),
      formatDecimal(r.owedMinor, r.currency),
    ]),
  );
}
