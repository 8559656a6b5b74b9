import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '../../db/client';
import { walletAlertSettings } from '../../db/schema';
import { validation } from '../errors';
import { formatDecimal, parseAmount } from './money';
import { requirePartner } from '../partners';

/**
 * Credit alerts (docs/decisions/credit-alerts.md): a partner hears `wallet.low_balance` when
 * its credit left falls below one of its thresholds. Credit left is available / base, where
 * the base is the credit limit, or for a partner without credit the prepaid base an operator
 * set (none: no alerts). Migration 0022's trigger on `wallets` writes the event with the
 * movement that crossed, and holds the defaults (`wallet_alert_default_thresholds()`).
 */

/** At most this many thresholds per partner. */
export const MAX_THRESHOLDS = 5;

/** Whole percents of credit left, 1 to 99, distinct; highest first. An empty list: no alerts. */
export function checkThresholds(input: unknown): number[] {
  if (!Array.isArray(input)) throw validation('thresholds', 'must be a list of whole percents, e.g. [40, 20]');
  if (input.length > MAX_THRESHOLDS) throw validation('thresholds', `at most ${MAX_THRESHOLDS}`);
  for (const t of input) {
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > 99) throw validation('thresholds', 'each must be a whole percent from 1 to 99');
  }
  const list = [...new Set(input as number[])].sort((a, b) => b - a);
  if (list.length !== input.length) throw validation('thresholds', 'must not repeat a percent');
  return list;
}

/** A wallet as an alert shows it: minor units, as the trigger stores it in the event. */
interface WalletSnapshot {
  balance: number;
  creditLimit: number;
  currency: string;
  updatedAt: Date;
}

export interface AlertState {
  partnerId: number;
  name: string;
  status: string;
  wallet: WalletSnapshot;
  thresholds: number[];
  /** Whether the thresholds are the defaults (the partner has none of its own). */
  defaults: boolean;
  prepaidBase: number | null;
  /** What the shares are of now: the credit limit, or the prepaid base; null: no alerts. */
  base: number | null;
  /** The lowest threshold the wallet is below now; null: none. */
  below: number | null;
}

type StateRow = {
  partner_id: number;
  name: string;
  status: string;
  balance_minor: string | number;
  credit_limit_minor: string | number;
  currency: string;
  updated_at: string | Date;
  thresholds: number[];
  own: boolean;
  prepaid_base_minor: string | number | null;
  base: string | number | null;
  below: number | null;
};

/** Each wallet with its alert settings (the defaults where it has none) and where it stands. */
const alertStates = sql`
  select p.id as partner_id, p.name, p.status, w.balance_minor, w.credit_limit_minor, w.currency, w.updated_at,
    a.thresholds, a.own, s.prepaid_base_minor, a.base,
    wallet_alert_level(w.balance_minor + w.credit_limit_minor, a.base, a.thresholds) as below
  from wallets w
  join partners p on p.id = w.partner_id
  left join wallet_alert_settings s on s.partner_id = w.partner_id
  cross join lateral (select coalesce(s.thresholds, wallet_alert_default_thresholds()) as thresholds, s.partner_id is not null as own,
    wallet_alert_base(w.credit_limit_minor, s.prepaid_base_minor) as base) a`;

const orNull = (v: string | number | null) => (v === null ? null : Number(v));

function stateOf(r: StateRow): AlertState {
  return {
    partnerId: r.partner_id,
    name: r.name,
    status: r.status,
    wallet: { balance: Number(r.balance_minor), creditLimit: Number(r.credit_limit_minor), currency: r.currency, updatedAt: new Date(r.updated_at) },
    thresholds: [...r.thresholds].sort((a, b) => b - a),
    defaults: !r.own,
    prepaidBase: orNull(r.prepaid_base_minor),
    base: orNull(r.base),
    below: r.below,
  };
}

/** A partner's alert settings and where its wallet stands against them. */
export async function getAlertState(db: DbOrTx, partnerId: number): Promise<AlertState> {
  await requirePartner(db, partnerId);
  const [row] = rowsOf<StateRow>(await db.execute(sql`${alertStates} where w.partner_id = ${partnerId}`));
  if (!row) throw validation('partner', `partner ${partnerId} has no wallet`);
  return stateOf(row);
}

/**
 * Sets a partner's thresholds and prepaid base; what is not given keeps its value (the
 * defaults' thresholds, no base, for a partner that had none). A change emits nothing by
 * itself: the next movement across a threshold does.
 */
export async function setAlertSettings(db: DbOrTx, partnerId: number, input: { thresholds?: unknown; prepaidBase?: unknown }): Promise<AlertState> {
  const thresholds = input.thresholds === undefined ? undefined : checkThresholds(input.thresholds);
  const prepaidBase = input.prepaidBase === undefined || input.prepaidBase === null ? input.prepaidBase : parseAmount('prepaid_base', input.prepaidBase);
  if (thresholds === undefined && prepaidBase === undefined) throw validation('body', 'give thresholds, prepaid_base, or both');
  const current = await getAlertState(db, partnerId);
  const row = {
    partnerId,
    thresholds: thresholds ?? current.thresholds,
    prepaidBase: prepaidBase === undefined ? current.prepaidBase : prepaidBase,
    updatedAt: new Date(),
  };
  await db.insert(walletAlertSettings).values(row).onConflictDoUpdate({ target: walletAlertSettings.partnerId, set: row });
  return getAlertState(db, partnerId);
}

/** Partners whose credit left is below their highest threshold, the least credit left first. */
export async function partnersNearLimit(db: DbOrTx): Promise<AlertState[]> {
  const rows = rowsOf<StateRow>(
    await db.execute(sql`select * from (${alertStates}) n where n.below is not null
      order by (n.balance_minor + n.credit_limit_minor)::numeric / n.base, n.partner_id`),
  );
  return rows.map(stateOf);
}

/** Credit left as a percent of the base, to two decimals (rounded down), e.g. "35.25"; null without a base. */
export function creditLeftPercent(s: Pick<AlertState, 'wallet' | 'base'>): string | null {
  if (s.base === null) return null;
  const hundredths = (BigInt(s.wallet.balance + s.wallet.creditLimit) * 10_000n) / BigInt(s.base);
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
}

/** The wallet as Interface A answers it (its wallet endpoint, and the data of `wallet.low_balance`). */
export function walletView(w: WalletSnapshot) {
  return {
    balance: formatDecimal(w.balance, w.currency),
    credit_limit: formatDecimal(w.creditLimit, w.currency),
    available: formatDecimal(w.balance + w.creditLimit, w.currency),
    currency: w.currency,
    updated_at: w.updatedAt.toISOString(),
  };
}

/** The wallet in Interface B's style: amounts as numbers, as B writes prices. */
export function agencyWalletView(w: WalletSnapshot) {
  const a = walletView(w);
  return { ...a, balance: Number(a.balance), credit_limit: Number(a.credit_limit), available: Number(a.available) };
}

/** A `wallet.low_balance` event's data as the trigger stores it. */
export function lowBalanceFromSnapshot(data: Record<string, unknown>): { wallet: WalletSnapshot; threshold: number } {
  return {
    wallet: {
      balance: Number(data.balance_minor),
      creditLimit: Number(data.credit_limit_minor),
      currency: String(data.currency),
      updatedAt: new Date(String(data.updated_at)),
    },
    threshold: Number(data.threshold),
  };
}

/** A `wallet.low_balance` event's data as Interface A shows it: the wallet as it was, and the threshold it fell below. */
export function lowBalanceView(data: Record<string, unknown>) {
  const { wallet, threshold } = lowBalanceFromSnapshot(data);
  return { wallet: walletView(wallet), threshold };
}

/** The same in Interface B's style. */
export function agencyLowBalanceView(data: Record<string, unknown>) {
  const { wallet, threshold } = lowBalanceFromSnapshot(data);
  return { wallet: agencyWalletView(wallet), threshold };
}
