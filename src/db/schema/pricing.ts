/** Margins on a price: operators' pricing rules, parent agencies' markups for their sub-agencies, and the price's parts they set. */
import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, money, updatedAt } from './columns';
import { partners } from './partners';

/** `flight_change`: the fee on a change a partner makes to a ticketed flight (its margin on the change's net). */
export const MARKUP_SERVICES = ['hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change'] as const;
export type MarkupService = (typeof MARKUP_SERVICES)[number];

/**
 * A parent agency's markup for one of its sub-agencies, by service (docs/decisions/sub-agencies.md):
 * percent of the operator's price to the parent (hundredths of a percent) + fixed (minor units
 * of the wallet's currency). One row per sub-agency and service; none: no markup.
 */
export const agencyMarkups = pgTable(
  'agency_markups',
  {
    childId: integer('child_id')
      .notNull()
      .references(() => partners.id),
    service: text('service', { enum: MARKUP_SERVICES }).notNull(),
    percentHundredths: integer('percent_hundredths').notNull().default(0),
    fixed: money('fixed_minor').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.childId, t.service] }),
    check('agency_markups_service', sql`${t.service} IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change')`),
    check('agency_markups_non_negative', sql`${t.percentHundredths} >= 0 and ${t.fixed} >= 0`),
    check('agency_markups_sets_something', sql`${t.percentHundredths} > 0 or ${t.fixed} > 0`),
  ],
);

/**
 * Operators' markups (docs/decisions/pricing-rules.md): for a service, optionally narrowed to
 * a partner and to a supplier, on the days from `valid_from` to `valid_to` (either open).
 * Margin = percent of net (hundredths of a percent) + fixed, at least the minimum, in minor
 * units of `currency` (the wallet's). Removed rules stay (orders name the rule that priced them).
 */
export const pricingRules = pgTable(
  'pricing_rules',
  {
    id: serial('id').primaryKey(),
    service: text('service', { enum: MARKUP_SERVICES }).notNull(),
    partnerId: integer('partner_id').references(() => partners.id),
    supplier: text('supplier'),
    percentHundredths: integer('percent_hundredths').notNull().default(0),
    fixed: money('fixed_minor').notNull().default(0),
    minMargin: money('min_margin_minor').notNull().default(0),
    currency: text('currency').notNull(),
    validFrom: date('valid_from'),
    validTo: date('valid_to'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    removedAt: timestamp('removed_at', { withTimezone: true }),
    removedBy: text('removed_by'),
  },
  (t) => [
    index('pricing_rules_service_idx').on(t.service, t.id),
    check('pricing_rules_service', sql`${t.service} IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change')`),
    check('pricing_rules_non_negative', sql`${t.percentHundredths} >= 0 and ${t.fixed} >= 0 and ${t.minMargin} >= 0`),
    check('pricing_rules_sets_something', sql`${t.percentHundredths} > 0 or ${t.fixed} > 0 or ${t.minMargin} > 0`),
    check('pricing_rules_dates', sql`${t.validFrom} is null or ${t.validTo} is null or ${t.validFrom} <= ${t.validTo}`),
  ],
);

/**
 * The price's two parts in the wallet's currency, never shown to partners: what the supplier
 * is paid (net) and the company's margin, with the pricing rule that set it; and the share of
 * the margin that is the parent agency's, on a sub-agency's sale (the rest is the company's).
 * On orders and on the bookings they are made from.
 */
export const priceParts = () => ({
  netPrice: money('net_minor'),
  margin: money('margin_minor'),
  pricingRuleId: integer('pricing_rule_id').references(() => pricingRules.id),
  agencyMargin: money('agency_margin_minor').notNull().default(0),
});
