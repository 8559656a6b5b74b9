/** Tours, their departures and the seats held on them. */
import { sql } from 'drizzle-orm';
import { check, date, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { personalData } from '../personal-data';
import { bookingTimes, money } from './columns';
import { orders } from './orders';
import { holdOwner } from './partners';
import { priceParts } from './pricing';

export const tours = pgTable('tours', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  title: text('title').notNull(),
  destinationCity: text('destination_city').notNull(),
  destinationCountry: text('destination_country').notNull(),
  category: text('category').notNull(),
  durationDays: integer('duration_days').notNull(),
  description: text('description').notNull(),
  itinerary: jsonb('itinerary').$type<Array<{ day: number; title: string; description: string }>>().notNull(),
  includes: jsonb('includes').$type<string[]>().notNull(),
});

export const tourDepartures = pgTable(
  'tour_departures',
  {
    id: serial('id').primaryKey(),
    tourId: integer('tour_id')
      .notNull()
      .references(() => tours.id),
    code: text('code').notNull().unique(),
    startDate: date('start_date').notNull(),
    capacity: integer('capacity').notNull(),
    // Seats held by prebooks and sold: a conditional UPDATE keeps it within capacity under concurrency.
    seatsTaken: integer('seats_taken').notNull().default(0),
    priceAdult: money('price_adult_minor').notNull(),
    priceChild: money('price_child_minor').notNull(),
    priceInfant: money('price_infant_minor').notNull(),
  },
  (t) => [check('tour_seats_within_capacity', sql`${t.seatsTaken} >= 0 and ${t.seatsTaken} <= ${t.capacity}`)],
);

export const TOUR_PREBOOK_STATUSES = ['held', 'confirmed', 'expired', 'cancelled'] as const;

export const tourPrebooks = pgTable(
  'tour_prebooks',
  {
    id: serial('id').primaryKey(),
    ...holdOwner(),
    // The workflow that placed it: a retried activity finds its row instead of holding seats twice.
    holdRef: text('hold_ref').notNull().unique(),
    departureId: integer('departure_id')
      .notNull()
      .references(() => tourDepartures.id),
    passengers: personalData<Array<Record<string, unknown>>>('tour_prebooks', 'passengers').notNull(),
    seats: integer('seats').notNull(),
    totalPrice: money('total_price_minor').notNull(),
    // The price's two parts and the pricing rule, as the order made from the prebook records them.
    ...priceParts(),
    currency: text('currency').notNull(),
    status: text('status', { enum: TOUR_PREBOOK_STATUSES }).notNull().default('held'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    orderId: integer('order_id').references(() => orders.id),
    confirmationNumber: text('confirmation_number'),
    ...bookingTimes(),
  },
  (t) => [uniqueIndex('tour_prebooks_order_uq').on(t.orderId)],
);
