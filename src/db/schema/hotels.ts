/** Hotel bookings. */
import { boolean, date, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { personalData } from '../personal-data';
import { bookingTimes, money } from './columns';
import { supplierPrice } from './exchange-rates';
import { orders } from './orders';
import { holdOwner } from './partners';
import { priceParts } from './pricing';

export const HOTEL_BOOKING_STATUSES = ['placing', 'prebooked', 'held', 'confirmed', 'expired', 'released', 'cancelled', 'failed'] as const;
export type HotelBookingStatus = (typeof HOTEL_BOOKING_STATUSES)[number];

/**
 * A hotel booking as the partner builds it: a supplier hold (prebooked without guest
 * names, held with them), then a travel order, then a confirmed reservation. The hotel,
 * room, dates and price are the supplier's answer when the hold was placed.
 */
export const hotelBookings = pgTable(
  'hotel_bookings',
  {
    id: serial('id').primaryKey(),
    ...holdOwner(),
    status: text('status', { enum: HOTEL_BOOKING_STATUSES }).notNull().default('placing'),
    // Which supplier holds it (FLIGHT_SUPPLIER / HOTEL_SUPPLIER when it was made).
    supplier: text('supplier').notNull().default('simulator'),
    // What the supplier charges, and the rate it was priced with (see orders).
    ...supplierPrice(),
    rateKey: text('rate_key').notNull(),
    supplierHoldId: text('supplier_hold_id'),
    hotelId: integer('hotel_id'),
    hotelName: text('hotel_name'),
    cityId: integer('city_id'),
    roomName: text('room_name'),
    board: text('board'),
    refundable: boolean('refundable'),
    checkIn: date('check_in'),
    checkOut: date('check_out'),
    rooms: jsonb('rooms').$type<Array<{ adults: number; children_ages: number[] }>>(),
    guests: personalData<unknown[][]>('hotel_bookings', 'guests'),
    contact: personalData<{ phone_number: string; email: string }>('hotel_bookings', 'contact'),
    totalPrice: money('total_price_minor'),
    // The price's two parts and the pricing rule, as the order made from the booking records them.
    ...priceParts(),
    currency: text('currency').notNull(),
    cancellationPolicy: jsonb('cancellation_policy').$type<Array<{ from: string; penalty_minor: number }>>(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    orderId: integer('order_id').references(() => orders.id),
    confirmationNumber: text('confirmation_number'),
    failure: text('failure'),
    // Interface B's own fields of a booking made there (room_id, guest_name, special_requests, idempotency key).
    agency: personalData<{ room_id: string; guest_name: string; guest_email: string; special_requests: string | null }>('hotel_bookings', 'agency'),
    // Interface B's Idempotency-Key: one booking per key and partner, whatever races.
    idempotencyKey: text('idempotency_key'),
    // The request the key was first used with (src/domain/agency/idempotency.ts): the key again with another is refused.
    idempotencyRequest: text('idempotency_request'),
    ...bookingTimes(),
  },
  (t) => [
    uniqueIndex('hotel_bookings_order_uq').on(t.orderId),
    index('hotel_bookings_partner_idx').on(t.partnerId),
    uniqueIndex('hotel_bookings_idempotency_uq').on(t.partnerId, t.idempotencyKey),
    // A hold's release and a cancellation find the booking by what the supplier named it.
    index('hotel_bookings_supplier_hold_idx').on(t.supplierHoldId),
    index('hotel_bookings_confirmation_idx').on(t.confirmationNumber),
  ],
);
