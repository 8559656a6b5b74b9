import { and, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { hotelBookings, orders, type HotelBookingStatus } from '../../db/schema';
import type { StayHold } from '../../suppliers/hotels';
import { DomainError, notFound } from '../errors';
import { isStorableId } from '../ids';
import type { Contact, GuestDetails } from './guests';
import type { WalletPolicyStep } from './prices';
import { supplierPriceColumns, type SupplierPrice } from '../money/supplier-price';
import { carriedPriceColumns, priceColumns, type SellPrice } from '../money/markup';
import { readableBy, type AGENCY_CHANNEL } from '../orders';
import { actorNow } from '../../platform/request-context';

export type HotelBookingRow = typeof hotelBookings.$inferSelect;

/** A booking of this partner, or 404: another partner's booking does not exist for the caller. */
export async function bookingOf(db: DbOrTx, partnerId: number, bookingId: number, access: 'read' | 'act' = 'act'): Promise<HotelBookingRow> {
  const whose = access === 'read' ? readableBy(partnerId, hotelBookings.partnerId) : eq(hotelBookings.partnerId, partnerId);
  const [row] = isStorableId(bookingId)
    ? await db
        .select()
        .from(hotelBookings)
        .where(and(eq(hotelBookings.id, bookingId), whose))
    : [];
  if (!row) throw notFound(`booking ${bookingId}`);
  return row;
}

export async function bookingById(db: DbOrTx, bookingId: number): Promise<HotelBookingRow> {
  const [row] = await db.select().from(hotelBookings).where(eq(hotelBookings.id, bookingId));
  if (!row) throw notFound(`booking ${bookingId}`);
  return row;
}

/** The booking of a supplier hold. */
export async function bookingByHoldId(db: DbOrTx, holdId: string): Promise<HotelBookingRow | undefined> {
  const [row] = await db.select().from(hotelBookings).where(eq(hotelBookings.supplierHoldId, holdId));
  return row;
}

/** The booking a supplier confirmed under this number. */
export async function bookingByConfirmation(db: DbOrTx, confirmationNumber: string): Promise<HotelBookingRow | undefined> {
  const [row] = await db.select().from(hotelBookings).where(eq(hotelBookings.confirmationNumber, confirmationNumber));
  return row;
}

export async function bookingOfOrder(db: DbOrTx, orderId: number): Promise<HotelBookingRow | undefined> {
  const [row] = await db.select().from(hotelBookings).where(eq(hotelBookings.orderId, orderId));
  return row;
}

/** What a new booking row is made of, whichever interface asks. */
export interface NewBooking {
  partnerId: number;
  rateKey: string;
  currency: string;
  supplier: string;
  /** The price a rate check fixed for this rate, if it still holds. */
  fixed?: SupplierPrice | null;
  guests?: GuestDetails[][];
  contact?: Contact;
}

/** A new booking row's columns, by whom it is created (the request's actor). */
export const newBookingColumns = (input: NewBooking) => ({
  partnerId: input.partnerId,
  createdBy: actorNow(),
  rateKey: input.rateKey,
  currency: input.currency,
  supplier: input.supplier,
  ...(input.fixed ? supplierPriceColumns(input.fixed) : {}),
  guests: input.guests ?? null,
  contact: input.contact ?? null,
});

/** The booking row exists before the supplier is asked, so a crash mid-way leaves a trace, not a stray hold. */
export async function newBooking(db: DbOrTx, input: NewBooking): Promise<HotelBookingRow> {
  const [row] = await db.insert(hotelBookings).values(newBookingColumns(input)).returning();
  return row!;
}

/**
 * Stores what the supplier answered for a hold (placed, or given its guests) at the
 * partner's price (`price.parts`, in the wallet's currency: net, margin and the rule): held
 * once it has its guests, prebooked until then.
 */
export async function recordHold(
  db: DbOrTx,
  bookingId: number,
  hold: StayHold,
  price: { parts: SellPrice; policy: WalletPolicyStep[]; supplier: SupplierPrice },
  extra: { guests?: GuestDetails[][]; contact?: Contact } = {},
) {
  const [current] = await db.select({ guests: hotelBookings.guests }).from(hotelBookings).where(eq(hotelBookings.id, bookingId));
  const status: HotelBookingStatus = extra.guests || current?.guests ? 'held' : 'prebooked';
  const [row] = await db
    .update(hotelBookings)
    .set({
      status,
      supplierHoldId: hold.hold_id,
      hotelId: hold.hotel_id,
      hotelName: hold.hotel_name,
      cityId: hold.city_id,
      roomName: hold.room_name,
      board: hold.board,
      refundable: hold.refundable,
      checkIn: hold.check_in,
      checkOut: hold.check_out,
      rooms: hold.rooms,
      totalPrice: price.parts.sellMinor,
      ...priceColumns(price.parts),
      ...supplierPriceColumns(price.supplier),
      cancellationPolicy: price.policy,
      expiresAt: new Date(hold.expires_at),
      ...(extra.guests ? { guests: extra.guests } : {}),
      ...(extra.contact ? { contact: extra.contact } : {}),
      updatedAt: new Date(),
    })
    .where(eq(hotelBookings.id, bookingId))
    .returning();
  return row!;
}

export async function markBookingFailed(db: DbOrTx, bookingId: number, reason: string): Promise<void> {
  await db
    .update(hotelBookings)
    .set({ status: 'failed', failure: reason.slice(0, 500), updatedAt: new Date() })
    .where(and(eq(hotelBookings.id, bookingId), eq(hotelBookings.status, 'placing')));
}

const isExpired = (b: HotelBookingRow, now: Date) => b.expiresAt !== null && b.expiresAt.getTime() <= now.getTime();

/**
 * POST /api/hotel/order/: a held booking with guests becomes a pending travel order, once;
 * `channel` marks the order of an Interface B booking (AGENCY_CHANNEL).
 */
export async function orderBooking(db: DbOrTx, partnerId: number, bookingId: number, channel?: typeof AGENCY_CHANNEL) {
  return db.transaction(async (tx) => {
    const [booking] = isStorableId(bookingId)
      ? await tx
          .select()
          .from(hotelBookings)
          .where(and(eq(hotelBookings.id, bookingId), eq(hotelBookings.partnerId, partnerId)))
          .for('update')
      : [];
    if (!booking) throw notFound(`booking ${bookingId}`);
    if (booking.orderId !== null) throw new DomainError('validation', `booking_id: booking ${bookingId} is already order ${booking.orderId}`);
    if (booking.status === 'prebooked')
      throw new DomainError('validation', `booking_id: booking ${bookingId} has no guests yet; add them with /api/hotel/book/`);
    if (booking.status !== 'held' || isExpired(booking, new Date())) {
      throw new DomainError('validation', `booking_id: booking ${bookingId} is ${booking.status === 'held' ? 'expired' : booking.status}`);
    }
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId,
        service: 'hotel',
        totalPrice: booking.totalPrice!,
        currency: booking.currency,
        paymentMethod: 'PARTNER_CREDIT',
        details: { booking_id: booking.id, ...channel },
        supplier: booking.supplier,
        supplierAmount: booking.supplierAmount,
        supplierCurrency: booking.supplierCurrency,
        fxRateAmount: booking.fxRateAmount,
        fxRateScale: booking.fxRateScale,
        fxRateId: booking.fxRateId,
        ...carriedPriceColumns({ ...booking, totalPrice: booking.totalPrice! }),
      })
      .returning();
    await tx.update(hotelBookings).set({ orderId: order!.id, updatedAt: new Date() }).where(eq(hotelBookings.id, booking.id));
    return { order: order!, booking: { ...booking, orderId: order!.id } };
  });
}

/** Locks a booking's order (first, as every money path locks orders first) and then the booking. */
async function lockBookingAndOrder(tx: Tx, bookingId: number) {
  const [peek] = await tx.select({ orderId: hotelBookings.orderId }).from(hotelBookings).where(eq(hotelBookings.id, bookingId));
  if (!peek) throw notFound(`booking ${bookingId}`);
  const [order] = peek.orderId === null ? [] : await tx.select().from(orders).where(eq(orders.id, peek.orderId)).for('update');
  const [booking] = await tx.select().from(hotelBookings).where(eq(hotelBookings.id, bookingId)).for('update');
  return { booking: booking!, order };
}

export type HoldCheck = { done: true; supplierHoldId: string | null } | { done: false; expiresAt: number };

/**
 * The hold timer fired: if the hold is still unpaid and its deadline has passed, the
 * booking and its pending order become expired (the caller then releases the supplier
 * hold). A hold being paid or already settled is left alone; a deadline moved later
 * (guests added) answers the new deadline.
 */
export async function expireHoldIfDue(db: DbOrTx, bookingId: number, now: Date): Promise<HoldCheck> {
  return db.transaction(async (tx) => {
    const { booking, order } = await lockBookingAndOrder(tx, bookingId);
    if (booking.status === 'expired') return { done: true, supplierHoldId: booking.supplierHoldId };
    if (booking.status !== 'prebooked' && booking.status !== 'held') return { done: true, supplierHoldId: null };
    if (order && order.status !== 'pending') return { done: true, supplierHoldId: null };
    if (!isExpired(booking, now)) return { done: false, expiresAt: booking.expiresAt!.getTime() };
    await tx.update(hotelBookings).set({ status: 'expired', updatedAt: now }).where(eq(hotelBookings.id, booking.id));
    if (order) await tx.update(orders).set({ status: 'expired', actedBy: actorNow(), updatedAt: now }).where(eq(orders.id, order.id));
    return { done: true, supplierHoldId: booking.supplierHoldId };
  });
}

export async function recordConfirmation(db: DbOrTx, bookingId: number, confirmationNumber: string): Promise<void> {
  await db.update(hotelBookings).set({ status: 'confirmed', confirmationNumber, updatedAt: new Date() }).where(eq(hotelBookings.id, bookingId));
}
