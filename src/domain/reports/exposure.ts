import { asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { partners, wallets } from '../../db/schema';
import { formatDecimal } from '../money/money';
import { toCsv } from './csv';

/** One partner's exposure: what of the credit extended to it the partner uses (minor units). */
export interface Exposure {
  partnerId: number;
  name: string;
  status: string;
  currency: string;
  balance: number;
  creditLimit: number;
  /** What the partner owes: max(0, -balance). */
  creditUsed: number;
  available: number;
}

export async function exposureByPartner(db: DbOrTx): Promise<Exposure[]> {
  const rows = await db
    .select({
      partnerId: partners.id,
      name: partners.name,
      status: partners.status,
      currency: wallets.currency,
      balance: wallets.balance,
      creditLimit: wallets.creditLimit,
    })
    .from(partners)
    .innerJoin(wallets, eq(wallets.partnerId, partners.id))
    .orderBy(asc(partners.id));
  return rows.map((r) => ({ ...r, creditUsed: Math.max(0, -r.balance), available: r.balance + r.creditLimit }));
}

/**
 * The share of the credit limit in use, in percent with two decimals ("37.50"), rounded half
 * up in integers; empty without a credit limit (nothing extended, nothing to share).
 */
export function creditShare(used: number, limit: number): string {
  if (limit <= 0) return '';
  const hundredths = (BigInt(used) * 10_000n * 2n + BigInt(limit)) / (2n * BigInt(limit));
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
}

export const EXPOSURE_HEADER = [
  'partner_id',
  'name',
  'status',
  'currency',
  'balance',
  'credit_limit',
  'credit_used',
  'credit_used_percent',
  'available',
] as const;

/** The exposure report as CSV: one row per partner, amounts as decimals of the wallet's currency. */
export async function exposureCsv(db: DbOrTx): Promise<string> {
  const rows = await exposureByPartner(db);
  return toCsv(
    EXPOSURE_HEADER,
    rows.map((r) => [
      r.partnerId,
      r.name,
      r.status,
      r.currency,
      formatDecimal(r.balance, r.currency),
      formatDecimal(r.creditLimit, r.currency),
      formatDecimal(r.creditUsed, r.currency),
      creditShare(r.creditUsed, r.creditLimit),
      formatDecimal(r.available, r.currency),
    ]),
  );
}
