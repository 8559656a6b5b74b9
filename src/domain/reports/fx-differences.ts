/**
 * What exchange rates gained or lost the company between a sale and its refund: every
 * transfer the books posted to an `fx_differences:CUR` account in a period, with the order
 * and partner it came from (src/domain/money/books.ts, refundLegs).
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../../db/client';
import { formatDecimal } from '../money/money';
import type { StatementPeriod as Period } from '../money/statements';
import { toCsv } from './csv';

export interface FxDifferenceRow {
  at: Date;
  transferId: number;
  ledgerEntryId: number;
  orderId: number | null;
  partnerId: number | null;
  service: string | null;
  supplier: string | null;
  supplierCurrency: string | null;
  currency: string;
  /** The account's movement: credits less debits, as every balance in the books. */
  amountMinor: number;
}

export async function fxDifferences(db: DbOrTx, period: Period): Promise<FxDifferenceRow[]> {
  const rows = rowsOf<{
    at: string;
    transfer_id: number;
    ledger_entry_id: number;
    order_id: number | null;
    partner_id: number | null;
    service: string | null;
    supplier: string | null;
    supplier_currency: string | null;
    currency: string;
    amount: string;
  }>(
    await db.execute(sql`
      select t.created_at as at, t.id as transfer_id, t.ledger_entry_id, t.order_id, o.partner_id, o.service, o.supplier,
        o.supplier_currency, t.currency,
        case when c.kind = 'fx_differences' then t.amount_minor else -t.amount_minor end as amount
      from transfers t
      join accounts d on d.code = t.debit_account
      join accounts c on c.code = t.credit_account
      left join orders o on o.id = t.order_id
      where (d.kind = 'fx_differences' or c.kind = 'fx_differences')
        and t.created_at >= ${period.start.toISOString()}::timestamptz and t.created_at < ${period.end.toISOString()}::timestamptz
      order by t.id`),
  );
  return rows.map((r) => ({
    at: new Date(r.at),
    transferId: r.transfer_id,
    ledgerEntryId: r.ledger_entry_id,
    orderId: r.order_id,
    partnerId: r.partner_id,
    service: r.service,
    supplier: r.supplier,
    supplierCurrency: r.supplier_currency,
    currency: r.currency,
    amountMinor: Number(r.amount),
  }));
}

export const FX_DIFFERENCES_HEADER = [
  'date',
  'transfer_id',
  'ledger_entry_id',
  'order_id',
  'partner_id',
  'service',
  'supplier',
  'supplier_currency',
  'currency',
  'amount',
] as const;

/** The exchange differences as CSV: a row per transfer, then a `total` row per currency (the account's movement in the period). */
export async function fxDifferencesCsv(db: DbOrTx, period: Period): Promise<string> {
  const rows = await fxDifferences(db, period);
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.currency, (totals.get(r.currency) ?? 0) + r.amountMinor);
  return toCsv(FX_DIFFERENCES_HEADER, [
    ...rows.map((r) => [
      r.at.toISOString().slice(0, 10),
      r.transferId,
      r.ledgerEntryId,
      r.orderId,
      r.partnerId,
      r.service,
      r.supplier,
      r.supplierCurrency,
      r.currency,
      formatDecimal(r.amountMinor, r.currency),
    ]),
    ...[...totals].map(([currency, total]) => ['total', null, null, null, null, null, null, null, currency, formatDecimal(total, currency)]),
  ]);
}
