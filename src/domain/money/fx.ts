import { convert as dineroConvert, createDinero, halfAwayFromZero, toSnapshot, transformScale, type DineroCalculator } from 'dinero.js';
import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { exchangeRates } from '../../db/schema';
import { logWarn } from '../../platform/log';
import { fxRateRefusals } from '../../platform/metrics';
import { CurrencyAmountError, currencyDefinition, exponentOf, isKnownCurrency } from '../../platform/currency';
import { DomainError, validation } from '../errors';
import { MAX_AMOUNT_MINOR } from './money';

/**
 * Exchange rates and conversion into the wallet's currency (docs/decisions/currency-conversion.md).
 * Operators keep the rates; a sale priced in another currency is converted with the current
 * one, and refused when there is none or it is older than the bound (FX_RATE_MAX_AGE_HOURS).
 */

/** An exact decimal rate: `amount / 10^scale` units of the target currency per 1 unit of the source. */
export interface ExactRate {
  amount: number;
  scale: number;
}

/** At most this many decimals in a rate. */
export const MAX_RATE_SCALE = 12;
/** At most this many significant digits in a rate (its amount stays an exact integer). */
export const MAX_RATE_DIGITS = 15;

const IDENTITY: ExactRate = { amount: 1, scale: 0 };
const RATE_DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;
const HOUR_MS = 60 * 60 * 1000;

/**
 * An operator's rate, a decimal string or a JSON number ("52000", 52000, "0.0123"), as an
 * exact decimal with no trailing zeros. Refused with a validation error naming `field`: not a
 * plain decimal, not above zero, more than MAX_RATE_SCALE decimals or MAX_RATE_DIGITS
 * significant digits.
 */
export function parseRate(field: string, input: unknown): ExactRate {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : typeof input === 'string' ? input.trim() : undefined;
  if (text === undefined || !RATE_DECIMAL.test(text)) {
    throw validation(field, 'must be a positive decimal number of wallet units per 1 unit of the currency, e.g. "52000" or "0.0125"');
  }
  const [whole, frac = ''] = text.split('.') as [string, string?];
  const decimals = frac.replace(/0+$/, '');
  if (decimals.length > MAX_RATE_SCALE) throw validation(field, `must have at most ${MAX_RATE_SCALE} decimals`);
  const digits = `${whole}${decimals}`.replace(/^0+/, '');
  if (digits === '') throw validation(field, 'must be greater than zero');
  if (digits.length > MAX_RATE_DIGITS) throw validation(field, `must have at most ${MAX_RATE_DIGITS} significant digits`);
  return trimRate({ amount: Number(digits), scale: decimals.length });
}

/** The same rate without trailing zeros in its amount (52000.00 as 52000, scale 0). */
function trimRate({ amount, scale }: ExactRate): ExactRate {
  while (scale > 0 && amount % 10 === 0) {
    amount /= 10;
    scale -= 1;
  }
  return { amount, scale };
}

/** A rate as the decimal operators write: { amount: 520005, scale: 1 } → "52000.5". */
export function formatRate({ amount, scale }: ExactRate): string {
  const digits = String(amount).padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

function assertRate(rate: ExactRate): void {
  if (!Number.isSafeInteger(rate.amount) || rate.amount <= 0 || !Number.isInteger(rate.scale) || rate.scale < 0 || rate.scale > MAX_RATE_SCALE) {
    throw new RangeError(`not an exact rate: ${JSON.stringify(rate)}`);
  }
}

/** dinero.js's arithmetic on bigint: an amount times a rate may pass 2^53 before it is rounded. */
const bigintCalculator: DineroCalculator<bigint> = {
  add: (a, b) => a + b,
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  decrement: (v) => v - 1n,
  increment: (v) => v + 1n,
  integerDivide: (a, b) => a / b,
  modulo: (a, b) => a % b,
  multiply: (a, b) => a * b,
  power: (a, b) => a ** b,
  subtract: (a, b) => a - b,
  zero: () => 0n,
};
const bigDinero = createDinero({ calculator: bigintCalculator });

const bigCurrency = (code: string) => ({ code, base: 10n, exponent: BigInt(exponentOf(code)) });

/**
 * `amountMinor` (integer minor units of `from`) in integer minor units of `to`, at `rate`
 * units of `to` per 1 unit of `from`. The one rounding rule: the exact product is rounded once,
 * at `to`'s minor unit, half away from zero (x.5 minor units rounds to x+1; -x.5 to -(x+1)).
 * The same currency is the amount itself (the rate must then be 1). An unknown currency, or a
 * result beyond what the engine stores (MAX_AMOUNT_MINOR), is a CurrencyAmountError.
 */
export function convert({ amountMinor, from, to, rate }: { amountMinor: number; from: string; to: string; rate: ExactRate }): number {
  if (!Number.isSafeInteger(amountMinor)) throw new RangeError(`not an amount in minor units: ${amountMinor}`);
  assertRate(rate);
  const source = bigCurrency(from);
  const target = bigCurrency(to);
  if (from === to) {
    if (rate.amount !== 1 || rate.scale !== 0) throw new RangeError(`a rate from ${from} to itself must be 1, not ${formatRate(rate)}`);
    return amountMinor;
  }
  const amount = bigDinero({ amount: BigInt(amountMinor), currency: source });
  const exact = dineroConvert(amount, target, { [to]: { amount: BigInt(rate.amount), scale: BigInt(rate.scale) } });
  const rounded = toSnapshot(transformScale(exact, target.exponent, halfAwayFromZero)).amount;
  if (rounded > BigInt(MAX_AMOUNT_MINOR) || rounded < -BigInt(MAX_AMOUNT_MINOR)) {
    throw new CurrencyAmountError('too_large', `${amountMinor} minor units of ${from} at ${formatRate(rate)} are more ${to} than the engine keeps`);
  }
  return Number(rounded);
}

/** A rate as stored: one row of the append-only exchange_rates table. */
export interface RateRow {
  id: number;
  /** The supplier's currency the rate converts from. */
  currency: string;
  /** The wallet currency it converts into. */
  walletCurrency: string;
  rate: ExactRate;
  /** The operator who set it (as the admin API records them). */
  setBy: string;
  setAt: Date;
}

const rowOf = (r: typeof exchangeRates.$inferSelect): RateRow => ({
  id: r.id,
  currency: r.currency,
  walletCurrency: r.walletCurrency,
  rate: { amount: r.rateAmount, scale: r.rateScale },
  setBy: r.setBy,
  setAt: r.setAt,
});

/**
 * Sets the rate of `currency` into `walletCurrency` (`rate` wallet units per 1 unit of
 * `currency`, a decimal string or number): a new row, the currency's current rate from now
 * on. Refused (validation, naming `from` or `rate`): an unknown currency, the wallet currency
 * itself, a rate that is not a positive decimal within MAX_RATE_SCALE and MAX_RATE_DIGITS.
 */
export async function setRate(db: DbOrTx, input: { currency: string; walletCurrency: string; rate: unknown; operator: string; now?: Date }): Promise<RateRow> {
  const { currency, walletCurrency } = input;
  if (!currencyDefinition(walletCurrency)) throw validation('from', `the wallet currency ${walletCurrency} is not a currency the engine knows`);
  if (!/^[A-Z]{3}$/.test(currency)) throw validation('from', 'must be a three-letter currency code in capitals, e.g. "GBP"');
  if (!currencyDefinition(currency)) throw validation('from', `${currency} is not an ISO 4217 currency`);
  if (currency === walletCurrency) throw validation('from', `${currency} is the wallet currency itself; its rate is always 1`);
  const rate = parseRate('rate', input.rate);
  const [row] = await db
    .insert(exchangeRates)
    .values({ currency, walletCurrency, rateAmount: rate.amount, rateScale: rate.scale, setBy: input.operator, setAt: input.now })
    .returning();
  return rowOf(row!);
}

/** A currency's current rate, as `fx list` shows it: with how old it is. */
export interface CurrentRate extends RateRow {
  ageMs: number;
}

/** The current rate of every currency (its latest row per wallet currency), by currency. */
export async function listRates(db: DbOrTx, now: Date = new Date()): Promise<CurrentRate[]> {
  const rows = await db
    .selectDistinctOn([exchangeRates.walletCurrency, exchangeRates.currency])
    .from(exchangeRates)
    .orderBy(exchangeRates.walletCurrency, exchangeRates.currency, desc(exchangeRates.id));
  return rows.map((r) => ({ ...rowOf(r), ageMs: Math.max(0, now.getTime() - r.setAt.getTime()) }));
}

/** The rate a price is converted with: its row's id, or null for the same currency (no rate). */
export interface RateToUse {
  rate: ExactRate;
  rateId: number | null;
  setAt: Date | null;
}

/** "30 hours", "24.5 hours": a duration in hours, to a tenth. */
const hours = (ms: number) => {
  const h = Math.floor((ms / HOUR_MS) * 10) / 10;
  return `${h} ${h === 1 ? 'hour' : 'hours'}`;
};

/** The latest rate set from `from` to `to`, however old; null when none was ever set. */
export async function latestRate(db: DbOrTx, from: string, to: string): Promise<ExactRate | null> {
  const [row] = await db
    .select({ amount: exchangeRates.rateAmount, scale: exchangeRates.rateScale })
    .from(exchangeRates)
    .where(and(eq(exchangeRates.currency, from), eq(exchangeRates.walletCurrency, to)))
    .orderBy(desc(exchangeRates.id))
    .limit(1);
  return row ?? null;
}

/**
 * The rate to convert `from` into `to` with at `now`: the current one, if set within
 * `maxAgeMs`. The same currency needs none (rate 1, rateId null). No rate, or one older than
 * the bound, refuses the sale: a `currency_unavailable` DomainError naming the currency, a
 * warn log line for operators and `fx_rate_refusals_total{currency,reason}` counted.
 */
export async function rateFor(db: DbOrTx, input: { from: string; to: string; now: Date; maxAgeMs: number }): Promise<RateToUse> {
  const { from, to, now, maxAgeMs } = input;
  if (from === to) return { rate: IDENTITY, rateId: null, setAt: null };
  const [row] = await db
    .select()
    .from(exchangeRates)
    .where(and(eq(exchangeRates.currency, from), eq(exchangeRates.walletCurrency, to)))
    .orderBy(desc(exchangeRates.id))
    .limit(1);
  if (!row) throw refuse(from, to, 'missing', `no exchange rate for ${from} to ${to}; the price cannot be given in ${to}, try again later`);
  const ageMs = now.getTime() - row.setAt.getTime();
  if (ageMs > maxAgeMs) {
    throw refuse(
      from,
      to,
      'stale',
      `the ${from} rate is ${hours(ageMs)} old, older than the ${hours(maxAgeMs)} allowed; the price cannot be given in ${to}, try again later`,
      { rateId: row.id, setAt: row.setAt.toISOString() },
    );
  }
  return { rate: { amount: row.rateAmount, scale: row.rateScale }, rateId: row.id, setAt: row.setAt };
}

function refuse(from: string, to: string, reason: 'missing' | 'stale', message: string, fields: Record<string, unknown> = {}): DomainError {
  // A currency the engine does not know is counted as one series, not one per code a supplier sent.
  fxRateRefusals.inc({ currency: isKnownCurrency(from) ? from : 'unknown', reason });
  logWarn('a sale was refused for want of a current exchange rate; set one with `admin fx set`', { currency: from, walletCurrency: to, reason, ...fields });
  return new DomainError('currency_unavailable', message);
}
