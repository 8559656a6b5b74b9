/** Orders of every service, the pay request's idempotency keys, and cancellation quotes. */
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { actor, createdAt, money, timestamps } from './columns';
import { supplierPrice } from './exchange-rates';
import { partnerRef } from './partners';
import { priceParts } from './pricing';

export const ORDER_SERVICES = ['product', 'hotel', 'flight', 'tour', 'residence', 'visa'] as const;
export type OrderService = (typeof ORDER_SERVICES)[number];
export const ORDER_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled', 'refunded', 'refund_requested'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const PAYMENT_METHODS = ['PARTNER_CREDIT', 'GATEWAY'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** A partner's order of any service: what it costs, how it is paid, where it stands. */
export const orders = pgTable(
  'orders',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    // 'product' orders are Interface A's product orders; every other service is a travel order.
    service: text('service', { enum: ORDER_SERVICES }).notNull(),
    status: text('status', { enum: ORDER_STATUSES }).notNull().default('pending'),
    totalPrice: money('total_price_minor').notNull(),
    currency: text('currency').notNull(),
    paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }).notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    supplierRef: text('supplier_ref'),
    // Interface B's Idempotency-Key for orders it creates directly: one order per key and partner.
    idempotencyKey: text('idempotency_key'),
    // The request the key was first used with (src/domain/agency/idempotency.ts): the key again with another is refused.
    idempotencyRequest: text('idempotency_request'),
    // The pay workflow run that holds (processing) or settled (completed) the order.
    paymentWorkflowId: text('payment_workflow_id'),
    paymentRunId: text('payment_run_id'),
    // What the supplier charges for the order: its amount (minor units of `supplierCurrency`),
    // and, when that is not the wallet's currency, the exchange rate the order's price was
    // converted with (an exact decimal: fxRateAmount / 10^fxRateScale wallet units per unit)
    // and its row. Null on orders of services priced by the engine itself.
    ...supplierPrice(),
    // Who supplies it: the booking's supplier, 'simulator' for the engine's own services.
    supplier: text('supplier').notNull().default('simulator'),
    // The price's two parts, with the pricing rule that set them: total = net + margin. Null
    // on an order sold at the supplier's price (margin 0).
    ...priceParts(),
    // Who made the order, and who last asked for something to happen to it (pay, cancel,
    // refund): order events snapshot the row, so each carries who set it moving.
    createdBy: actor('created_by'),
    actedBy: actor('acted_by'),
    ...timestamps(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    index('orders_partner_service_idx').on(t.partnerId, t.service, t.id),
    uniqueIndex('orders_idempotency_uq').on(t.partnerId, t.idempotencyKey),
    check('orders_total_non_negative', sql`${t.totalPrice} >= 0`),
    check(
      'orders_price_parts',
      sql`(${t.netPrice} is null and ${t.margin} is null) or (${t.netPrice} >= 0 and ${t.margin} >= 0 and ${t.netPrice} + ${t.margin} = ${t.totalPrice})`,
    ),
    check('orders_agency_margin_within_margin', sql`${t.agencyMargin} >= 0 and ${t.agencyMargin} <= coalesce(${t.margin}, 0)`),
  ],
);

/** The order a row belongs to, which it cannot be without. */
export const orderRef = () =>
  integer('order_id')
    .notNull()
    .references(() => orders.id);

/** A pay request's Idempotency-Key, by partner, and the order it pays (src/domain/pay-request.ts). */
export const paymentKeys = pgTable(
  'payment_keys',
  {
    partnerId: partnerRef(),
    idempotencyKey: text('idempotency_key').notNull(),
    orderId: orderRef(),
    createdAt: createdAt(),
    // The key's last failed payment run whose failure has been given as an answer, and when
    // it first was: only a request that arrives after that may run the payment again
    // (src/domain/pay-request.ts). Null while no failure has been answered.
    answeredRunId: text('answered_run_id'),
    answeredAt: timestamp('answered_at', { withTimezone: true, mode: 'date', precision: 3 }),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.idempotencyKey] })],
);

/** A cancellation quote: the penalty shown by cancel_display, honoured by cancel until it expires. */
export const cancelQuotes = pgTable('cancel_quotes', {
  id: text('id').primaryKey(),
  partnerId: partnerRef(),
  orderId: orderRef(),
  penalty: money('penalty_minor').notNull(),
  refund: money('refund_minor').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt(),
});
