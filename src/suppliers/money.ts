/**
 * An amount as a supplier states it: integer minor units of its own currency (ISO 4217
 * exponents: GBP 2, JPY 0, KWD 3). Every amount a supplier port answers carries its
 * currency; the domain converts it into the wallet's before a partner sees it.
 */
export interface Money {
  amount_minor: number;
  currency: string;
}
