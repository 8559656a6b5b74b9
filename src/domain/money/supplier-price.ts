import type { Money } from '../../suppliers/money';
import { pricerFor, pricerWith, type AppliedRate, type Pricer, type PricingDeps } from './pricing';

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

type RecordedPrice = {
  supplierAmount: number | null;
  supplierCurrency: string | null;
  fxRateAmount: number | null;
  fxRateScale: number | null;
  fxRateId: number | null;
};

/**
 * The pricer for what a supplier answered a booking: the rate fixed when the partner was
 * shown the price (recorded on the booking), while the supplier asks the same amount;
 * otherwise today's rates.
 */
export async function pricerForBooking(pricing: PricingDeps, booking: RecordedPrice, amounts: Array<Money | null>, asked: Money, now: Date): Promise<Pricer> {
  const fixed = recordedSupplierAmount(booking);
  if (fixed && fixed.amount_minor === asked.amount_minor && fixed.currency === asked.currency) {
    const rates = new Map<string, AppliedRate>();
    if (booking.fxRateAmount !== null && booking.fxRateScale !== null && booking.fxRateId !== null) {
      rates.set(fixed.currency, { rate: { amount: booking.fxRateAmount, scale: booking.fxRateScale }, rateId: booking.fxRateId });
    }
    if (amounts.every((a) => !a || a.currency === pricing.currency || rates.has(a.currency))) return pricerWith(pricing.currency, rates);
  }
  return pricerFor(pricing, amounts, now);
}
