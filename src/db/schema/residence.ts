/** Residences (properties let by the night), the nights their hosts keep for themselves, and reservations. */
import { date, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { personalData } from '../personal-data';
import { bookingTimes, money } from './columns';
import { orders } from './orders';
import { holdOwner } from './partners';
import { priceParts } from './pricing';

export const properties = pgTable('properties', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  name: text('name').notNull(),
  type: text('type').notNull(),
  city: text('city').notNull(),
  region: text('region').notNull(),
  country: text('country').notNull(),
  address: text('address').notNull(),
  description: text('description').notNull(),
  bedrooms: integer('bedrooms').notNull(),
  maxGuests: integer('max_guests').notNull(),
  nightlyPrice: money('nightly_price_minor').notNull(),
  weekendPrice: money('weekend_price_minor').notNull(),
  cleaningFee: money('cleaning_fee_minor').notNull(),
  minNights: integer('min_nights').notNull(),
  amenities: jsonb('amenities').$type<string[]>().notNull(),
  houseRules: jsonb('house_rules').$type<string[]>().notNull(),
  cancellationPolicy: text('cancellation_policy', { enum: ['flexible', 'moderate', 'strict'] }).notNull(),
});

/** Nights the host keeps for itself: [start, end). */
export const propertyBlocks = pgTable('property_blocks', {
  id: serial('id').primaryKey(),
  propertyId: integer('property_id')
    .notNull()
    .references(() => properties.id),
  startDate: date('start_date').notNull(),
  endDate: date('end_date').notNull(),
});

export const RESERVATION_STATUSES = ['held', 'booked', 'confirmed', 'cancel_requested', 'cancelled', 'expired', 'completed'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];
/** Statuses that occupy the property's nights. */
export const ACTIVE_RESERVATION_STATUSES: ReservationStatus[] = ['held', 'booked', 'confirmed', 'cancel_requested'];

export const reservations = pgTable(
  'reservations',
  {
    id: serial('id').primaryKey(),
    ...holdOwner(),
    holdRef: text('hold_ref').notNull().unique(),
    propertyId: integer('property_id')
      .notNull()
      .references(() => properties.id),
    checkIn: date('check_in').notNull(),
    checkOut: date('check_out').notNull(),
    guests: integer('guests').notNull(),
    leadGuest: personalData<Record<string, unknown>>('reservations', 'lead_guest'),
    totalPrice: money('total_price_minor').notNull(),
    // The price's two parts and the pricing rule, as the order made from the reservation records them.
    ...priceParts(),
    currency: text('currency').notNull(),
    status: text('status', { enum: RESERVATION_STATUSES }).notNull().default('held'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    orderId: integer('order_id').references(() => orders.id),
    confirmationNumber: text('confirmation_number'),
    cancelRefund: money('cancel_refund_minor'),
    ...bookingTimes(),
  },
  (t) => [uniqueIndex('reservations_order_uq').on(t.orderId), index('reservations_property_idx').on(t.propertyId, t.checkIn)],
);
