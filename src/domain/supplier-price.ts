import type { Money } from '../suppliers/money';
import type { AppliedRate, Pricer } from './pricing';

/** What a supplier charges for a booking, and the rate its price was converted with (null: the wallet's own currency). */
export interface SupplierPrice {
  amount: Money;
  rate: AppliedRate | null;
}

export const supplierPriceOf = (pricer: Pricer, amount: Money): SupplierPrice => ({ amount, rate: pricer.rateOf(amount.currency) });

/** The columns bookings and orders keep it in. */
export const supplierPriceColumns = (p: SupplierPrice) => ({
  supplierAmount: p.amount.amount_minor,
  supplierCurrency: p.amount.currency,
  fxRateAmount: p.rate?.rate.amount ?? null,
  fxRateScale: p.rate?.rate.scale ?? null,
  fxRateId: p.rate?.rateId ?? null,
});

/** The supplier's amount a booking or order records, if it records one. */
export const recordedSupplierAmount = (row: { supplierAmount: number | null; supplierCurrency: string | null }): Money | null =>
  row.supplierAmount === null || row.supplierCurrency === null ? null : { amount_minor: row.supplierAmount, currency: row.supplierCurrency };
