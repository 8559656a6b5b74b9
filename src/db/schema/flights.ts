/** Flight bookings, the changes partners make to them, and the airlines' schedule changes. */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { personalData } from '../personal-data';
import { actor, bookingTimes, createdAt, money } from './columns';
import { supplierPrice } from './exchange-rates';
import { orderRef, orders } from './orders';
import { partnerRef } from './partners';

/**
 * A change a partner makes to a ticketed flight (docs/decisions/flight-changes.md): other
 * flights (`change`: the airline's change offer it confirmed) or bags added (`services`),
 * priced in the wallet's currency (signed: negative is money back), and where its workflow
 * stands. One per partner and idempotency key.
 */
export const FLIGHT_CHANGE_KINDS = ['change', 'services'] as const;
export const FLIGHT_CHANGE_STATUSES = ['confirming', 'confirmed', 'failed'] as const;
export const flightChanges = pgTable(
  'flight_changes',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    orderId: orderRef(),
    idempotencyKey: text('idempotency_key').notNull(),
    kind: text('kind', { enum: FLIGHT_CHANGE_KINDS }).notNull().default('change'),
    status: text('status', { enum: FLIGHT_CHANGE_STATUSES }).notNull().default('confirming'),
    supplier: text('supplier').notNull(),
    // A change's: the airline's change offer, and the change made from it once it is.
    changeOfferId: text('change_offer_id'),
    supplierChangeId: text('supplier_change_id'),
    // What the airline charges (its change total: fare difference and penalty; negative, it refunds), in its currency.
    supplierAmount: bigint('supplier_amount_minor', { mode: 'number' }).notNull(),
    supplierCurrency: text('supplier_currency').notNull(),
    // The same in the wallet's currency, its penalty part, and the engine's fee: total = net + fee.
    netMinor: bigint('net_minor', { mode: 'number' }).notNull(),
    penaltyMinor: money('penalty_minor').notNull(),
    feeMinor: money('fee_minor').notNull(),
    // The parent agency's share of the fee, on a sub-agency's change.
    agencyFeeMinor: money('agency_fee_minor').notNull().default(0),
    totalMinor: bigint('total_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    pricingRuleId: integer('pricing_rule_id'),
    // The legs removed (indexes) and the legs the airline's offer puts in their place.
    remove: jsonb('remove').$type<number[]>().notNull().default([]),
    add: jsonb('add').$type<unknown[]>().notNull().default([]),
    // The services added, as the partner chose them ({service_id, quantity}), and how many bags the order had before.
    services: jsonb('services').$type<Array<{ service_id: string; quantity: number }>>().notNull().default([]),
    bagsBefore: integer('bags_before'),
    workflowId: text('workflow_id').notNull(),
    failure: text('failure'),
    createdBy: actor('created_by'),
    createdAt: createdAt(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('flight_changes_key_uq').on(t.partnerId, t.idempotencyKey),
    index('flight_changes_order_idx').on(t.orderId),
    check('flight_changes_total', sql`${t.totalMinor} = ${t.netMinor} + ${t.feeMinor}`),
    check('flight_changes_kind', sql`(${t.kind} = 'change') = (${t.changeOfferId} is not null)`),
  ],
);

export const FLIGHT_BOOKING_STATUSES = ['booking', 'booked', 'ticketed', 'expired', 'cancelled', 'refunded', 'refund_requested', 'failed'] as const;
export type FlightBookingStatus = (typeof FLIGHT_BOOKING_STATUSES)[number];

/**
 * A flight booking: the airline's PNR with its ticket time limit, then tickets once paid.
 * The itinerary, fare and travellers are what the airline answered when it booked.
 */
export const flightBookings = pgTable(
  'flight_bookings',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    status: text('status', { enum: FLIGHT_BOOKING_STATUSES }).notNull().default('booking'),
    // Which supplier holds it (FLIGHT_SUPPLIER / HOTEL_SUPPLIER when it was made).
    supplier: text('supplier').notNull().default('simulator'),
    // What the supplier charges, and the rate it was priced with (see orders).
    ...supplierPrice(),
    fareSourceCode: text('fare_source_code').notNull(),
    pnr: text('pnr'),
    supplierBookingRef: text('supplier_booking_ref'),
    ticketTimeLimit: timestamp('ticket_time_limit', { withTimezone: true }),
    departureAt: timestamp('departure_at', { withTimezone: true }).notNull(),
    cabin: text('cabin'),
    fareFamily: text('fare_family'),
    refundable: boolean('refundable'),
    refundPenalty: money('refund_penalty_minor'),
    legs: jsonb('legs').$type<unknown[]>(),
    travelers: personalData<Array<Record<string, unknown>>>('flight_bookings', 'travelers').notNull(),
    contact: personalData<{ phone_number: string; email: string }>('flight_bookings', 'contact').notNull(),
    tickets: jsonb('tickets').$type<Array<{ traveler_index: number; ticket_number: string }>>(),
    // Seats and bags booked on it, as the airline's order lists them.
    services: jsonb('services').$type<unknown[]>(),
    totalPrice: money('total_price_minor'),
    currency: text('currency').notNull(),
    orderId: integer('order_id').references(() => orders.id),
    refundReason: text('refund_reason'),
    failure: text('failure'),
    ...bookingTimes(),
  },
  (t) => [
    uniqueIndex('flight_bookings_order_uq').on(t.orderId),
    index('flight_bookings_partner_idx').on(t.partnerId),
    // A release and a refund find the booking by the airline order's id.
    index('flight_bookings_supplier_ref_idx').on(t.supplierBookingRef),
  ],
);

export const SCHEDULE_CHANGE_STATUSES = ['pending', 'accepted', 'cancelled', 'changed'] as const;
export type ScheduleChangeStatus = (typeof SCHEDULE_CHANGE_STATUSES)[number];

/**
 * An airline's change to an issued flight order (docs/decisions/schedule-changes.md): what it
 * removed and added, until when the partner may decide, and what became of it. One row per
 * order and change, however many times the change is announced or found.
 */
export const scheduleChanges = pgTable(
  'schedule_changes',
  {
    id: serial('id').primaryKey(),
    orderId: orderRef(),
    partnerId: partnerRef(),
    supplier: text('supplier').notNull(),
    // The airline's (the supplier's) id of the change.
    changeId: text('change_id').notNull(),
    removed: jsonb('removed').$type<unknown[]>().notNull(),
    added: jsonb('added').$type<unknown[]>().notNull(),
    status: text('status', { enum: SCHEDULE_CHANGE_STATUSES }).notNull().default('pending'),
    decideBy: timestamp('decide_by', { withTimezone: true }).notNull(),
    // What the engine does at decide_by when the partner has not decided.
    defaultDecision: text('default_decision', { enum: ['accept', 'cancel'] }).notNull(),
    remindedAt: timestamp('reminded_at', { withTimezone: true }),
    // Who resolved it: the partner, the default at the deadline, or a change the partner asked for.
    resolvedBy: text('resolved_by', { enum: ['partner', 'default', 'change'] }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('schedule_changes_order_change_uq').on(t.orderId, t.changeId), index('schedule_changes_status_idx').on(t.status)],
);
