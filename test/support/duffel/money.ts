/**
 * Amounts as Duffel writes them: decimal strings in the currency's own exponent
 * ("227.33" GBP, "35100" JPY). The stand-in keeps integer minor units and formats at the edge.
 */
const EXPONENTS: Record<string, number> = { JPY: 0, KRW: 0, KWD: 3, BHD: 3 };

export const exponentOf = (currency: string): number => EXPONENTS[currency] ?? 2;

export function formatMinor(minor: number, currency: string): string {
  const exp = exponentOf(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(exp + 1, '0');
  return exp === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
}

/** The minor units of a decimal string, or null when it is not one in this currency's exponent. */
export function parseMinor(amount: string, currency: string): number | null {
  const exp = exponentOf(currency);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > exp) return null;
  return Number(match[1]) * 10 ** exp + Number(fraction.padEnd(exp, '0') || '0');
}

/** Major units of each currency per pound, for prices, penalties and services. */
const PER_GBP: Record<string, number> = { GBP: 1, USD: 1.27, JPY: 190 };

/** Minor units of a pound amount in the currency, rounded to whole major units for JPY. */
export const fromGbp = (gbp: number, currency: string): number => Math.round(gbp * (PER_GBP[currency] ?? 1) * 10 ** exponentOf(currency));

/** Like `parseMinor`, with a leading minus allowed (a change that refunds). */
export function parseSignedMinor(amount: string, currency: string): number | null {
  const negative = amount.startsWith('-');
  const minor = parseMinor(negative ? amount.slice(1) : amount, currency);
  return minor === null ? null : negative ? -minor : minor;
}
