import { add, dinero, multiply, toSnapshot, type Dinero } from 'dinero.js';
import { validation } from '../errors';

/**
 * The wallet's money lives in the database as integer minor units (1/100 of the wallet
 * currency, which has two minor digits: CURRENCY must) and is computed with dinero.js, so
 * no float ever touches an amount. These helpers are the only place where wallet amounts
 * cross between decimals (what people type and read) and minor units (what is stored). A
 * supplier's currency has its own exponent: src/platform/currency.ts.
 */
export const MINOR_DIGITS = 2;
import { MAX_AMOUNT_MINOR } from '../../platform/currency';

export { MAX_AMOUNT_MINOR };

function currencyOf(code: string) {
  return { code, base: 10, exponent: MINOR_DIGITS };
}

export function money(amountMinor: number, currency: string): Dinero<number> {
  return dinero({ amount: amountMinor, currency: currencyOf(currency) });
}

const minorOf = (d: Dinero<number>) => toSnapshot(d).amount;

export function lineTotal(unitMinor: number, quantity: number, currency: string): number {
  return minorOf(multiply(money(unitMinor, currency), quantity));
}

export function sum(amountsMinor: number[], currency: string): number {
  return minorOf(amountsMinor.reduce((acc, a) => add(acc, money(a, currency)), money(0, currency)));
}

const SCALE = 10 ** MINOR_DIGITS;

/**
 * "1250000.00": the decimal string the wallet renders. Every currency here has two minor
 * digits, so this is integer arithmetic on an exact integer (the remainder, then an exact
 * division), the same text as dinero.js's `toDecimal` (test/unit/money.test.ts checks them
 * against each other). `toDecimal` builds a Dinero object and formats it generally: a
 * product page or a ledger page renders dozens of amounts, and that was a fifth of the
 * product list's CPU.
 */
export function formatDecimal(amountMinor: number, _currency: string): string {
  if (!Number.isSafeInteger(amountMinor)) throw new RangeError(`not an amount in minor units: ${amountMinor}`);
  const abs = Math.abs(amountMinor);
  const minor = abs % SCALE;
  return `${amountMinor < 0 ? '-' : ''}${(abs - minor) / SCALE}.${String(minor).padStart(MINOR_DIGITS, '0')}`;
}

/** 1250000: the JSON number the pay response renders (exact for two decimals). */
export function toNumber(amountMinor: number, currency: string): number {
  return Number(formatDecimal(amountMinor, currency));
}

const DECIMAL = /^(0|[1-9]\d*)(\.\d{1,2})?$/;

/** Parses a positive decimal amount in currency units ("500000" or "500000.00") into minor units. */
export function parseAmount(field: string, input: unknown, opts: { allowZero?: boolean } = {}): number {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : input;
  if (typeof text !== 'string' || !DECIMAL.test(text.trim())) {
    throw validation(field, 'must be a non-negative decimal amount with at most two decimals, e.g. "500000" or "500000.00"');
  }
  const [whole, frac = ''] = text.trim().split('.');
  const minor = Number(whole) * 10 ** MINOR_DIGITS + Number(frac.padEnd(MINOR_DIGITS, '0'));
  if (!Number.isSafeInteger(minor) || minor > MAX_AMOUNT_MINOR) throw validation(field, 'is too large');
  if (minor === 0 && !opts.allowZero) throw validation(field, 'must be greater than zero');
  return minor;
}
