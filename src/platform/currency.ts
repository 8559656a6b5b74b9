import * as dineroJs from 'dinero.js';

// Well under 2^53 minor units: large enough for any wallet, small enough to stay exact.
export const MAX_AMOUNT_MINOR = 10 ** 15;

/**
 * Currencies and their minor units. Suppliers price in their own currency, as a decimal
 * string and a code (Duffel: `total_amount` "123.45", `total_currency` "GBP"); the engine
 * keeps every amount as integer minor units of its own currency, whose exponent is the
 * currency's ISO 4217 one (GBP 2, JPY 0, KWD 3). The ISO 4217 definitions are the ones
 * dinero.js ships; IRT is the engine's own (below).
 */
export interface CurrencyDefinition {
  code: string;
  base: number;
  /** How many minor digits: 123.45 GBP is 12345 minor units at exponent 2. */
  exponent: number;
}

/**
 * The Iranian toman: not in ISO 4217 (which has the rial, IRR, exponent 2), and the wallet's
 * default currency (CURRENCY). The engine writes it with 2 minor digits, as every wallet
 * amount is (src/domain/money/money.ts).
 */
export const IRT: CurrencyDefinition = { code: 'IRT', base: 10, exponent: 2 };

const isDefinition = (v: unknown): v is CurrencyDefinition =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as CurrencyDefinition).code === 'string' &&
  typeof (v as CurrencyDefinition).base === 'number' &&
  typeof (v as CurrencyDefinition).exponent === 'number';

/** dinero.js exports each ISO 4217 currency by its code (GBP, JPY, ...), next to its functions. */
const CURRENCIES: ReadonlyMap<string, CurrencyDefinition> = new Map(
  [...(Object.values(dineroJs) as unknown[]).filter(isDefinition), IRT]
    .filter((c) => c.base === 10)
    .map((c) => [c.code, { code: c.code, base: c.base, exponent: c.exponent }]),
);

/** Why a supplier's amount is not one the engine can keep. */
export type CurrencyAmountProblem = 'unknown_currency' | 'not_an_amount' | 'too_precise' | 'too_large';

/**
 * A supplier's amount or currency the engine cannot keep exactly: an unknown currency, a
 * malformed amount, more decimals than the currency has, or an amount beyond what the engine
 * stores. An adapter answers it as the supplier's failure; it is never the partner's fault.
 */
export class CurrencyAmountError extends Error {
  constructor(
    readonly problem: CurrencyAmountProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CurrencyAmountError';
  }
}

/** The definition of a currency code, or undefined when the engine does not know it. */
export function currencyDefinition(code: string): CurrencyDefinition | undefined {
  return CURRENCIES.get(code);
}

export const isKnownCurrency = (code: string): boolean => CURRENCIES.has(code);

/** The minor-unit exponent of a known currency (GBP 2, JPY 0, KWD 3); a CurrencyAmountError for another. */
export function exponentOf(code: string): number {
  const c = CURRENCIES.get(code);
  if (!c) throw new CurrencyAmountError('unknown_currency', `unknown currency: ${JSON.stringify(code)}`);
  return c.exponent;
}

const SUPPLIER_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * A supplier's decimal amount in integer minor units of its currency, exactly:
 * ("123.45", "GBP") → 12345, ("1500", "JPY") → 1500, ("1.234", "KWD") → 1234, ("10.5", "GBP")
 * → 1050. More decimals than the currency has (unless they are zeros), an unknown currency,
 * anything but a plain decimal, or more than the engine stores (MAX_AMOUNT_MINOR) is a
 * CurrencyAmountError.
 */
export function parseSupplierAmount(amount: string, currency: string): number {
  const exponent = exponentOf(currency);
  if (typeof amount !== 'string' || !SUPPLIER_DECIMAL.test(amount)) {
    throw new CurrencyAmountError('not_an_amount', `not a decimal amount: ${JSON.stringify(amount)}`);
  }
  const negative = amount.startsWith('-');
  const [whole, frac = ''] = (negative ? amount.slice(1) : amount).split('.') as [string, string?];
  const significant = frac.replace(/0+$/, '');
  if (significant.length > exponent) {
    throw new CurrencyAmountError('too_precise', `${amount} ${currency} has more decimals than ${currency}'s ${exponent}`);
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(significant.padEnd(exponent, '0') || '0');
  if (minor > BigInt(MAX_AMOUNT_MINOR)) throw new CurrencyAmountError('too_large', `${amount} ${currency} is larger than the engine keeps`);
  return Number(negative ? -minor : minor);
}

/**
 * Integer minor units of a currency as the decimal a supplier reads, with exactly the
 * currency's decimals: (12345, "GBP") → "123.45", (1500, "JPY") → "1500", (1234, "KWD") →
 * "1.234". A CurrencyAmountError for an unknown currency; a RangeError for a non-integer.
 */
export function formatMinor(amountMinor: number, currency: string): string {
  const exponent = exponentOf(currency);
  if (!Number.isSafeInteger(amountMinor)) throw new RangeError(`not an amount in minor units: ${amountMinor}`);
  const digits = String(Math.abs(amountMinor)).padStart(exponent + 1, '0');
  const sign = amountMinor < 0 ? '-' : '';
  if (exponent === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
