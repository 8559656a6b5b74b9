/** Exchange rates, and the supplier's price that a sale was converted from. */
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Exchange rates kept by operators (docs/operations.md, "Exchange rates"). Append-only: a
 * currency's current rate is its latest row. The rate is an exact decimal, `rateAmount /
 * 10^rateScale` units of `walletCurrency` per 1 unit of `currency` (52000 = 52,000 IRT per GBP).
 */
export const exchangeRates = pgTable(
  'exchange_rates',
  {
    id: serial('id').primaryKey(),
    currency: text('currency').notNull(),
    walletCurrency: text('wallet_currency').notNull(),
    rateAmount: bigint('rate_amount', { mode: 'number' }).notNull(),
    rateScale: integer('rate_scale').notNull(),
    setBy: text('set_by').notNull(),
    setAt: timestamp('set_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('exchange_rates_pair_idx').on(t.currency, t.walletCurrency, t.id),
    check('exchange_rates_rate_positive', sql`${t.rateAmount} > 0`),
    check('exchange_rates_scale_range', sql`${t.rateScale} BETWEEN 0 AND 12`),
  ],
);

/** What a supplier charges (minor units of its currency) and the exchange rate a price was converted with: orders and the bookings they come from. */
export const supplierPrice = () => ({
  supplierAmount: bigint('supplier_amount_minor', { mode: 'number' }),
  supplierCurrency: text('supplier_currency'),
  fxRateAmount: bigint('fx_rate_amount', { mode: 'number' }),
  fxRateScale: integer('fx_rate_scale'),
  fxRateId: integer('fx_rate_id').references(() => exchangeRates.id),
});
