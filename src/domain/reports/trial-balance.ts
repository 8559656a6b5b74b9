/**
 * The trial balance (docs/decisions/double-entry-books.md): every account's balance at the
 * start of a period, its debits and credits in the period, and its balance at the end, per
 * currency. Every transfer debits one account and credits another of its currency, so in each
 * currency the debits equal the credits and the balances sum to zero; the total rows say so.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../../db/client';
import { formatDecimal } from '../money/money';
import type { StatementPeriod as Period } from '../money/statements';
import { toCsv } from './csv';

export interface TrialBalanceRow {
  account: string;
  kind: string;
  currency: string;
  openingMinor: number;
  debitsMinor: number;
  creditsMinor: number;
  /** Credits less debits, opening included: the balance at the end of the period. */
  balanceMinor: number;
}

export interface TrialBalanceTotal {
  currency: string;
  openingMinor: number;
  debitsMinor: number;
  creditsMinor: number;
  balanceMinor: number;
}

/** Every account that moved before the period's end, with the currency totals; without a period, all of the books up to now. */
export async function trialBalance(
  db: DbOrTx,
  period: Pick<Period, 'start' | 'end'> | null,
): Promise<{ rows: TrialBalanceRow[]; totals: TrialBalanceTotal[] }> {
  const start = period ? period.start.toISOString() : new Date(0).toISOString();
  const end = period ? sql`${period.end.toISOString()}::timestamptz` : sql`'infinity'::timestamptz`;
  const raw = rowsOf<{ code: string; kind: string; currency: string; opening: string; debits: string; credits: string }>(
    await db.execute(sql`
      select a.code, a.kind, a.currency,
        coalesce(sum(case when m.created_at < ${start}::timestamptz then m.amount end), 0) as opening,
        coalesce(sum(case when m.created_at >= ${start}::timestamptz and m.amount < 0 then -m.amount end), 0) as debits,
        coalesce(sum(case when m.created_at >= ${start}::timestamptz and m.amount > 0 then m.amount end), 0) as credits
      from accounts a
      join (
        select credit_account as code, amount_minor as amount, created_at from transfers where created_at < ${end}
        union all select debit_account, -amount_minor, created_at from transfers where created_at < ${end}
      ) m on m.code = a.code
      group by a.code, a.kind, a.currency
      order by a.currency, a.code`),
  );
  const rows = raw.map((r) => {
    const [opening, debits, credits] = [Number(r.opening), Number(r.debits), Number(r.credits)];
    return {
      account: r.code,
      kind: r.kind,
      currency: r.currency,
      openingMinor: opening,
      debitsMinor: debits,
      creditsMinor: credits,
      balanceMinor: opening + credits - debits,
    };
  });
  const totals = new Map<string, TrialBalanceTotal>();
  for (const r of rows) {
    const t = totals.get(r.currency) ?? { currency: r.currency, openingMinor: 0, debitsMinor: 0, creditsMinor: 0, balanceMinor: 0 };
    t.openingMinor += r.openingMinor;
    t.debitsMinor += r.debitsMinor;
    t.creditsMinor += r.creditsMinor;
    t.balanceMinor += r.balanceMinor;
    totals.set(r.currency, t);
  }
  return { rows, totals: [...totals.values()] };
}

export const TRIAL_BALANCE_HEADER = ['currency', 'account', 'kind', 'opening', 'debits', 'credits', 'balance'] as const;

/** The trial balance as CSV: a row per account, then a `total` row per currency (its balance is zero). */
export async function trialBalanceCsv(db: DbOrTx, period: Period): Promise<string> {
  const { rows, totals } = await trialBalance(db, period);
  const money = (n: number, currency: string) => formatDecimal(n, currency);
  return toCsv(TRIAL_BALANCE_HEADER, [
    ...rows.map((r) => [
      r.currency,
      r.account,
      r.kind,
      money(r.openingMinor, r.currency),
      money(r.debitsMinor, r.currency),
      money(r.creditsMinor, r.currency),
      money(r.balanceMinor, r.currency),
    ]),
    ...totals.map((t) => [
      t.currency,
      'total',
      null,
      money(t.openingMinor, t.currency),
      money(t.debitsMinor, t.currency),
      money(t.creditsMinor, t.currency),
      money(t.balanceMinor, t.currency),
    ]),
  ]);
}
