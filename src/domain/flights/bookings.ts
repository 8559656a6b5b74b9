import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { flightBookings, orders } from '../../db/schema';
import type { ChosenService } from '../../suppliers/flight-after-sale';
import type { FlightOrder, Traveler } from '../../suppliers/flights';
import { DomainError, notFound } from '../errors';
import { serviceOrderOf, type OrderRow } from '../orders';
import { priceColumns, type SellPrice } from '../money/markup';
import { supplierPriceColumns, type SupplierPrice } from '../money/supplier-price';
import { actorNow } from '../../platform/request-context';

export type FlightBookingRow = typeof flightBookings.$inferSelect;

export async function newFlightBooking(
  db: DbOrTx,
  input: {
    partnerId: number;
    fareSourceCode: string;
    departureAt: Date;
    travelers: Traveler[];
    contact: { phone_number: string; email: string };
    currency: string;
    supplier: string;
    /** The price a revalidation fixed for this offer, if it still holds. */
    fixed?: SupplierPrice | null;
    /** Seats and bags to book with it; once booked, the order's own. */
    services?: ChosenService[];
  },
): Promise<FlightBookingRow> {
  const [row] = await db
    .insert(flightBookings)
    .values({
      partnerId: input.partnerId,
      fareSourceCode: input.fareSourceCode,
      departureAt: input.departureAt,
      travelers: input.travelers as unknown as Array<Record<string, unknown>>,
      contact: input.contact,
      currency: input.currency,
      supplier: input.supplier,
      services: input.services ?? [],
      ...(input.fixed ? supplierPriceColumns(input.fixed) : {}),
    })
    .returning();
  return row!;
}

export async function flightBookingById(db: DbOrTx, id: number): Promise<FlightBookingRow> {
  const [row] = await db.select().from(flightBookings).where(eq(flightBookings.id, id));
  if (!row) throw notFound(`flight booking ${id}`);
  return row;
}

/** The booking whose airline order has this supplier id. */
export async function flightBookingBySupplierRef(db: DbOrTx, supplierRef: string): Promise<FlightBookingRow | undefined> {
  const [row] = await db.select().from(flightBookings).where(eq(flightBookings.supplierBookingRef, supplierRef));
  return row;
}

export async function flightBookingOfOrder(db: DbOrTx, orderId: number): Promise<FlightBookingRow | undefined> {
  const [row] = await db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId));
  return row;
}

/**
 * Records the airline's held order (its id, PNR, payment deadline, price) and creates the
 * pending travel order for it at the partner's price (`price`, in the wallet's currency), in
 * one transaction; a retry finds the order already there.
 */
export async function recordAirBooking(
  db: DbOrTx,
  bookingId: number,
  air: FlightOrder,
  price: { parts: SellPrice; refundPenaltyMinor: number | null; supplier: SupplierPrice },
): Promise<{ booking: FlightBookingRow; order: OrderRow }> {
  return db.transaction(async (tx) => {
    const [booking] = await tx.select().from(flightBookings).where(eq(flightBookings.id, bookingId)).for('update');
    if (!booking) throw notFound(`flight booking ${bookingId}`);
    if (booking.orderId !== null) {
      const [order] = await tx.select().from(orders).where(eq(orders.id, booking.orderId));
      return { booking, order: order! };
    }
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId: booking.partnerId,
        service: 'flight',
        totalPrice: price.parts.sellMinor,
        currency: booking.currency,
        paymentMethod: 'PARTNER_CREDIT',
        details: { booking_id: booking.id, pnr: air.booking_reference },
        supplier: booking.supplier,
        ...supplierPriceColumns(price.supplier),
        ...priceColumns(price.parts),
      })
      .returning();
    const [updated] = await tx
      .update(flightBookings)
      .set({
        status: 'booked',
        pnr: air.booking_reference,
        supplierBookingRef: air.order_id,
        ticketTimeLimit: new Date(air.payment_required_by),
        cabin: air.cabin,
        fareFamily: air.fare_family,
        refundable: air.refundable,
        refundPenalty: price.refundPenaltyMinor,
        legs: air.legs,
        services: air.services ?? [],
        totalPrice: price.parts.sellMinor,
        ...supplierPriceColumns(price.supplier),
        orderId: order!.id,
        updatedAt: new Date(),
      })
      .where(eq(flightBookings.id, bookingId))
      .returning();
    return { booking: updated!, order: order! };
  });
}

export async function markFlightBookingFailed(db: DbOrTx, bookingId: number, reason: string): Promise<void> {
  await db
    .update(flightBookings)
    .set({ status: 'failed', failure: reason.slice(0, 500), updatedAt: new Date() })
    .where(and(eq(flightBookings.id, bookingId), eq(flightBookings.status, 'booking')));
}

export async function recordTickets(db: DbOrTx, bookingId: number, air: FlightOrder): Promise<void> {
  const tickets = air.tickets.map((t) => ({ traveler_index: t.traveler_index, ticket_number: t.ticket_number }));
  // An order the airline made only as it was paid (Duffel, with seats or bags) brings its id and PNR now.
  const made = air.booking_reference === null ? {} : { supplierBookingRef: air.order_id, pnr: air.booking_reference };
  await db
    .update(flightBookings)
    .set({ status: 'ticketed', tickets, ...made, updatedAt: new Date() })
    .where(eq(flightBookings.id, bookingId));
}

/** Done: the airline order to release (its supplier id, under the name the time-limit workflow gives it), if any. */
export type TimeLimitCheck = { done: true; pnr: string | null } | { done: false; expiresAt: number };

/** The id the airline knows a booking's order by. */
export const supplierOrderIdOf = (booking: Pick<FlightBookingRow, 'supplierBookingRef' | 'pnr'>): string | null => booking.supplierBookingRef ?? booking.pnr;

/** The ticket time limit passed: an unpaid booking and its pending order expire (the caller cancels the PNR). */
export async function expireFlightIfDue(db: DbOrTx, bookingId: number, now: Date): Promise<TimeLimitCheck> {
  return db.transaction(async (tx) => {
    const [peek] = await tx.select({ orderId: flightBookings.orderId }).from(flightBookings).where(eq(flightBookings.id, bookingId));
    if (!peek) throw notFound(`flight booking ${bookingId}`);
    const [order] = peek.orderId === null ? [] : await tx.select().from(orders).where(eq(orders.id, peek.orderId)).for('update');
    const [booking] = await tx.select().from(flightBookings).where(eq(flightBookings.id, bookingId)).for('update');
    if (booking!.status === 'expired') return { done: true, pnr: supplierOrderIdOf(booking!) };
    if (booking!.status !== 'booked' || (order && order.status !== 'pending')) return { done: true, pnr: null };
    if (booking!.ticketTimeLimit!.getTime() > now.getTime()) return { done: false, expiresAt: booking!.ticketTimeLimit!.getTime() };
    await tx.update(flightBookings).set({ status: 'expired', updatedAt: now }).where(eq(flightBookings.id, bookingId));
    if (order) await tx.update(orders).set({ status: 'expired', actedBy: actorNow(), updatedAt: now }).where(eq(orders.id, order.id));
    return { done: true, pnr: supplierOrderIdOf(booking!) };
  });
}

/** This partner's flight order, or 404 (another partner's order does not exist for the caller). */
export const flightOrderOf = (db: DbOrTx, partnerId: number, orderId: number, access: 'read' | 'act' = 'act'): Promise<OrderRow> =>
  serviceOrderOf(db, partnerId, orderId, 'flight', access);

/** POST /api/flights/air_refund_offline/: a ticketed order waits for an operator's decision. */
export async function requestOfflineRefund(db: DbOrTx, partnerId: number, orderId: number, reason: string): Promise<OrderRow> {
  return db.transaction(async (tx) => {
    const [order] = await tx
      .select()
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.partnerId, partnerId)))
      .for('update');
    if (!order || order.service !== 'flight') throw notFound(`flight order ${orderId}`);
    if (order.status === 'refund_requested') return order;
    if (order.status !== 'completed')
      throw new DomainError('validation', `order_id: order ${orderId} is ${order.status}; only a ticketed order can be refunded`);
    const now = new Date();
    const [updated] = await tx
      .update(orders)
      .set({ status: 'refund_requested', actedBy: actorNow(), updatedAt: now })
      .where(eq(orders.id, orderId))
      .returning();
    await tx
      .update(flightBookings)
      .set({ status: 'refund_requested', refundReason: reason.slice(0, 1000), updatedAt: now })
      .where(eq(flightBookings.orderId, orderId));
    return updated!;
  });
}

/** An operator turned an offline refund request down: the ticket stands and the order is completed again. */
export async function rejectOfflineRefund(db: DbOrTx, orderId: number): Promise<void> {
  await db.transaction(async (tx) => {
    const now = new Date();
    const moved = await tx
      .update(orders)
      .set({ status: 'completed', actedBy: actorNow(), updatedAt: now })
      .where(and(eq(orders.id, orderId), eq(orders.status, 'refund_requested')))
      .returning({ id: orders.id });
    if (moved.length) await tx.update(flightBookings).set({ status: 'ticketed', updatedAt: now }).where(eq(flightBookings.orderId, orderId));
  });
}
