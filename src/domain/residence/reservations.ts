import { and, asc, count, eq, gt, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { ACTIVE_RESERVATION_STATUSES, ledgerEntries, orders, properties, propertyBlocks, reservations, type ReservationStatus } from '../../db/schema';
import { DomainError, notFound, validation } from '../errors';
import { isStorableId } from '../ids';
import { formatDecimal } from '../money';
import type { OrderRow } from '../orders';
import { paginate } from '../pagination';
import type { PaymentRun } from '../payments';
import { settleRefund } from '../refunds';
import { applyMovement, insufficientCredit, lockWallet } from '../wallet';
import { priceStay, refundPercent, type CancellationPolicy } from './pricing';

type PropertyRow = typeof properties.$inferSelect;
export type ReservationRow = typeof reservations.$inferSelect;

export const MAX_NIGHTS = 60;

function renderProperty(p: PropertyRow, currency: string) {
  return {
    id: p.id,
    code: p.code,
    name: p.name,
    type: p.type,
    city: p.city,
    region: p.region,
    country: p.country,
    address: p.address,
    bedrooms: p.bedrooms,
    max_guests: p.maxGuests,
    nightly_price: formatDecimal(p.nightlyPrice, currency),
    weekend_price: formatDecimal(p.weekendPrice, currency),
    cleaning_fee: formatDecimal(p.cleaningFee, currency),
    min_nights: p.minNights,
    cancellation_policy: p.cancellationPolicy,
    currency,
  };
}

/** Dates taken: host blocks and active reservations, as [start, end) ranges. */
async function takenRanges(db: DbOrTx, propertyId: number, from: string, to: string, exceptReservation?: number) {
  const blocks = await db
    .select({ start: propertyBlocks.startDate, end: propertyBlocks.endDate })
    .from(propertyBlocks)
    .where(and(eq(propertyBlocks.propertyId, propertyId), lt(propertyBlocks.startDate, to), gt(propertyBlocks.endDate, from)));
  const conditions: SQL[] = [
    eq(reservations.propertyId, propertyId),
    inArray(reservations.status, ACTIVE_RESERVATION_STATUSES),
    lt(reservations.checkIn, to),
    gt(reservations.checkOut, from),
  ];
  if (exceptReservation !== undefined) conditions.push(sql`${reservations.id} <> ${exceptReservation}`);
  const booked = await db
    .select({ start: reservations.checkIn, end: reservations.checkOut })
    .from(reservations)
    .where(and(...conditions));
  return [...blocks.map((b) => ({ ...b, reason: 'blocked' as const })), ...booked.map((b) => ({ ...b, reason: 'booked' as const }))];
}

export async function listProperties(
  db: DbOrTx,
  q: { city?: string; country?: string; type?: string; guests?: number; check_in?: string; check_out?: string; page: number },
  requestUrl: string,
  currency: string,
) {
  const filters: SQL[] = [];
  if (q.city) filters.push(sql`lower(${properties.city}) = lower(${q.city})`);
  if (q.country) filters.push(eq(properties.country, q.country.toUpperCase()));
  if (q.type) filters.push(eq(properties.type, q.type));
  if (q.guests !== undefined) filters.push(sql`${properties.maxGuests} >= ${q.guests}`);
  const where = filters.length ? and(...filters) : undefined;
  // Availability for dates is a filter too, so it is applied before paging.
  let ids: number[] | undefined;
  if (q.check_in && q.check_out) {
    const candidates = await db.select().from(properties).where(where);
    const free: number[] = [];
    for (const p of candidates) if ((await takenRanges(db, p.id, q.check_in, q.check_out)).length === 0) free.push(p.id);
    ids = free;
  }
  const scoped = ids ? and(where, ids.length ? inArray(properties.id, ids) : sql`false`) : where;
  return paginate(
    requestUrl,
    q.page,
    async () => (await db.select({ n: count() }).from(properties).where(scoped))[0]!.n,
    async (offset, limit) =>
      (await db.select().from(properties).where(scoped).orderBy(asc(properties.id)).limit(limit).offset(offset)).map((p) => renderProperty(p, currency)),
  );
}

/** Property detail: description, amenities, house rules, policy, and the dates already taken in the next months. */
export async function propertyDetail(db: DbOrTx, id: number, currency: string, now: Date) {
  const [p] = isStorableId(id) ? await db.select().from(properties).where(eq(properties.id, id)) : [];
  if (!p) throw notFound(`property ${id}`);
  const from = now.toISOString().slice(0, 10);
  const to = new Date(now.getTime() + 365 * 86_400_000).toISOString().slice(0, 10);
  const taken = (await takenRanges(db, p.id, from, to)).sort((a, b) => a.start.localeCompare(b.start));
  return {
    ...renderProperty(p, currency),
    description: p.description,
    amenities: p.amenities,
    house_rules: p.houseRules,
    unavailable: taken.map((t) => ({ from: t.start, to: t.end })),
  };
}

export interface HoldDatesInput {
  partnerId: number;
  holdRef: string;
  propertyId: number;
  checkIn: string;
  checkOut: string;
  guests: number;
  leadGuest: Record<string, unknown>;
  ttlMs: number;
  currency: string;
}

/** Checks a stay against a property (dates, nights, guests) without locking anything. */
export function checkStay(p: PropertyRow, checkIn: string, checkOut: string, guests: number, now: Date): void {
  if (checkIn <= now.toISOString().slice(0, 10)) throw validation('check_in', 'must be in the future');
  if (checkOut <= checkIn) throw validation('check_out', 'must be after check_in');
  const nights = priceStay(p, checkIn, checkOut).nights;
  if (nights < p.minNights) throw validation('check_out', `this property takes at least ${p.minNights} nights`);
  if (nights > MAX_NIGHTS) throw validation('check_out', `a stay is at most ${MAX_NIGHTS} nights`);
  if (guests > p.maxGuests) throw validation('guests', `this property sleeps at most ${p.maxGuests}`);
}

async function lockProperty(tx: Tx, propertyId: number): Promise<PropertyRow> {
  const [p] = isStorableId(propertyId) ? await tx.select().from(properties).where(eq(properties.id, propertyId)).for('update') : [];
  if (!p) throw validation('property_id', `no property ${propertyId}`);
  return p;
}

async function assertFree(tx: Tx, propertyId: number, checkIn: string, checkOut: string, exceptReservation?: number) {
  const taken = await takenRanges(tx, propertyId, checkIn, checkOut, exceptReservation);
  if (taken.length) {
    const t = taken[0]!;
    throw validation('check_in', `the property is ${t.reason} from ${t.start} to ${t.end}`);
  }
}

/**
 * Holds the dates: the property row is locked, so two reservations of overlapping dates
 * serialise here and the second sees the first. Keyed by the workflow's hold reference.
 */
export async function holdDates(db: DbOrTx, input: HoldDatesInput): Promise<ReservationRow> {
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(reservations).where(eq(reservations.holdRef, input.holdRef));
    if (existing) return existing;
    const p = await lockProperty(tx, input.propertyId);
    checkStay(p, input.checkIn, input.checkOut, input.guests, new Date());
    await assertFree(tx, p.id, input.checkIn, input.checkOut);
    const [row] = await tx
      .insert(reservations)
      .values({
        partnerId: input.partnerId,
        holdRef: input.holdRef,
        propertyId: p.id,
        checkIn: input.checkIn,
        checkOut: input.checkOut,
        guests: input.guests,
        leadGuest: input.leadGuest,
        totalPrice: priceStay(p, input.checkIn, input.checkOut).totalMinor,
        currency: input.currency,
        expiresAt: new Date(Date.now() + input.ttlMs),
      })
      .returning();
    return row!;
  });
}

export async function reservationOf(db: DbOrTx, partnerId: number, id: number): Promise<ReservationRow> {
  const [r] = isStorableId(id)
    ? await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.id, id), eq(reservations.partnerId, partnerId)))
    : [];
  if (!r) throw notFound(`reservation ${id}`);
  return r;
}

export async function reservationOfOrder(db: DbOrTx, orderId: number): Promise<ReservationRow | undefined> {
  const [r] = await db.select().from(reservations).where(eq(reservations.orderId, orderId));
  return r;
}

export async function renderReservation(db: DbOrTx, r: ReservationRow, now: Date) {
  const [p] = await db.select().from(properties).where(eq(properties.id, r.propertyId));
  const [order] = r.orderId === null ? [] : await db.select().from(orders).where(eq(orders.id, r.orderId));
  return {
    reservation_id: r.id,
    status: r.status,
    property_id: r.propertyId,
    property_name: p!.name,
    check_in: r.checkIn,
    check_out: r.checkOut,
    nights: priceStay(p!, r.checkIn, r.checkOut).nights,
    guests: r.guests,
    lead_guest: r.leadGuest,
    total_price: formatDecimal(r.totalPrice, r.currency),
    currency: r.currency,
    expires_at: r.expiresAt.toISOString(),
    seconds_left: r.status === 'held' || r.status === 'booked' ? Math.max(0, Math.floor((r.expiresAt.getTime() - now.getTime()) / 1000)) : 0,
    order_id: r.orderId,
    order_status: order?.status ?? null,
    confirmation_number: r.confirmationNumber,
    cancellation_policy: p!.cancellationPolicy,
    cancel_refund: r.cancelRefund === null ? null : formatDecimal(r.cancelRefund, r.currency),
  };
}

/** POST /api/residence/reserve/book/: the held dates become a pending travel order. */
export async function bookReservation(db: DbOrTx, partnerId: number, id: number): Promise<{ order: OrderRow; reservation: ReservationRow }> {
  return db.transaction(async (tx) => {
    const [r] = isStorableId(id)
      ? await tx
          .select()
          .from(reservations)
          .where(and(eq(reservations.id, id), eq(reservations.partnerId, partnerId)))
          .for('update')
      : [];
    if (!r) throw notFound(`reservation ${id}`);
    if (r.orderId !== null) throw validation('reservation_id', `reservation ${id} is already order ${r.orderId}`);
    if (r.status !== 'held' || r.expiresAt.getTime() <= Date.now())
      throw validation('reservation_id', `reservation ${id} is ${r.status === 'held' ? 'expired' : r.status}`);
    const [order] = await tx
      .insert(orders)
      .values({
        partnerId,
        service: 'residence',
        totalPrice: r.totalPrice,
        currency: r.currency,
        paymentMethod: 'PARTNER_CREDIT',
        details: { reservation_id: r.id },
      })
      .returning();
    const [updated] = await tx
      .update(reservations)
      .set({ status: 'booked', orderId: order!.id, updatedAt: new Date() })
      .where(eq(reservations.id, r.id))
      .returning();
    return { order: order!, reservation: updated! };
  });
}

async function lockReservation(tx: Tx, id: number) {
  const [peek] = await tx.select({ orderId: reservations.orderId }).from(reservations).where(eq(reservations.id, id));
  if (!peek) throw notFound(`reservation ${id}`);
  const [order] = peek.orderId === null ? [] : await tx.select().from(orders).where(eq(orders.id, peek.orderId)).for('update');
  const [r] = await tx.select().from(reservations).where(eq(reservations.id, id)).for('update');
  return { r: r!, order };
}

export type HoldState = { state: 'expired' } | { state: 'held'; expiresAt: number } | { state: 'paid'; checkOut: string } | { state: 'gone' };

const RECHECK_WHILE_PAYING_MS = 30_000;

/** The hold timer fired: unpaid → expired (dates free again); paying → look again soon; paid → the stay goes on. */
export async function expireHoldIfDue(db: DbOrTx, id: number, now: Date): Promise<HoldState> {
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, id);
    if (order?.status === 'completed' || r.status === 'confirmed') return { state: 'paid', checkOut: r.checkOut };
    if (order?.status === 'processing') return { state: 'held', expiresAt: now.getTime() + RECHECK_WHILE_PAYING_MS };
    if (r.status !== 'held' && r.status !== 'booked') return { state: 'gone' };
    if (r.expiresAt.getTime() > now.getTime()) return { state: 'held', expiresAt: r.expiresAt.getTime() };
    await tx.update(reservations).set({ status: 'expired', updatedAt: now }).where(eq(reservations.id, r.id));
    if (order) await tx.update(orders).set({ status: 'expired', updatedAt: now }).where(eq(orders.id, order.id));
    return { state: 'expired' };
  });
}

export async function recordHostConfirmation(db: DbOrTx, id: number, confirmationNumber: string): Promise<void> {
  await db.update(reservations).set({ status: 'confirmed', confirmationNumber, updatedAt: new Date() }).where(eq(reservations.id, id));
}

export type CancelRequest = { kind: 'released' } | { kind: 'requested'; refundMinor: number; confirmationNumber: string | null };

/**
 * The partner cancels: an unpaid hold is released at once (no money), a paid stay waits
 * for the host, with the refund fixed now by the property's policy.
 */
export async function requestCancel(db: DbOrTx, id: number, now: Date): Promise<CancelRequest> {
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, id);
    if (r.status === 'cancel_requested') return { kind: 'requested', refundMinor: r.cancelRefund ?? 0, confirmationNumber: r.confirmationNumber };
    if (order?.status === 'processing')
      throw new DomainError('validation', `reservation_id: reservation ${id} is being paid; cancel once the payment finished`);
    if (r.status === 'held' || r.status === 'booked') {
      await tx.update(reservations).set({ status: 'cancelled', updatedAt: now }).where(eq(reservations.id, r.id));
      if (order) await tx.update(orders).set({ status: 'cancelled', updatedAt: now }).where(eq(orders.id, order.id));
      return { kind: 'released' };
    }
    if (r.status !== 'confirmed') throw new DomainError('validation', `reservation_id: reservation ${id} is ${r.status}`);
    const [p] = await tx.select().from(properties).where(eq(properties.id, r.propertyId));
    const refundMinor = Math.floor((r.totalPrice * refundPercent(p!.cancellationPolicy as CancellationPolicy, r.checkIn, now)) / 100);
    await tx.update(reservations).set({ status: 'cancel_requested', cancelRefund: refundMinor, updatedAt: now }).where(eq(reservations.id, r.id));
    return { kind: 'requested', refundMinor, confirmationNumber: r.confirmationNumber };
  });
}

/** The host accepted: the refund fixed at the request is credited and the stay is cancelled. */
export async function settleCancellation(db: DbOrTx, input: PaymentRun & { reservationId: number }) {
  const [r] = await db.select().from(reservations).where(eq(reservations.id, input.reservationId));
  if (!r?.orderId) throw notFound(`reservation ${input.reservationId}`);
  return settleRefund(db, {
    workflowId: input.workflowId,
    runId: input.runId,
    orderId: r.orderId,
    amountMinor: r.cancelRefund ?? 0,
    step: 'residence-cancel-refund',
    settledStatus: 'cancelled',
    note: `cancellation of residence reservation ${r.id}`,
    onSettled: async (tx) => {
      await tx.update(reservations).set({ status: 'cancelled', updatedAt: new Date() }).where(eq(reservations.id, r.id));
    },
  });
}

export async function completeStay(db: DbOrTx, id: number): Promise<void> {
  await db
    .update(reservations)
    .set({ status: 'completed', updatedAt: new Date() })
    .where(and(eq(reservations.id, id), eq(reservations.status, 'confirmed')));
}

export interface Modification {
  reservationId: number;
  seq: number;
  checkIn: string;
  checkOut: string;
  guests: number;
}

export interface ModificationResult {
  previousTotalMinor: number;
  newTotalMinor: number;
  differenceMinor: number;
  ledgerId: number | null;
  currency: string;
}

/**
 * Changes a paid stay's dates or guests: re-priced, the new dates checked free (ignoring
 * the stay's own) under the property lock, and the difference charged to or refunded
 * through the wallet, all in one transaction. A retry of the same change writes nothing.
 */
export async function modifyStay(db: DbOrTx, input: PaymentRun & Modification): Promise<ModificationResult> {
  const step = `modify-${input.seq}`;
  return db.transaction(async (tx) => {
    const { r, order } = await lockReservation(tx, input.reservationId);
    if (!order || order.status === 'pending' || order.status === 'processing') {
      throw new DomainError('validation', `reservation_id: the reservation is not paid yet`);
    }
    const wallet = await lockWallet(tx, order.partnerId);
    const [done] = await tx
      .select({ id: ledgerEntries.id })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.workflowId, input.workflowId), eq(ledgerEntries.runId, input.runId), eq(ledgerEntries.step, step)));
    if (done) return { previousTotalMinor: r.totalPrice, newTotalMinor: r.totalPrice, differenceMinor: 0, ledgerId: done.id, currency: r.currency };
    if (r.status !== 'confirmed') throw new DomainError('validation', `reservation_id: reservation ${r.id} is ${r.status}; only a confirmed stay can change`);
    const p = await lockProperty(tx, r.propertyId);
    checkStay(p, input.checkIn, input.checkOut, input.guests, new Date());
    await assertFree(tx, p.id, input.checkIn, input.checkOut, r.id);
    const newTotal = priceStay(p, input.checkIn, input.checkOut).totalMinor;
    const difference = newTotal - r.totalPrice;
    let ledgerId: number | null = null;
    if (difference > 0) {
      const available = wallet.balance + wallet.creditLimit;
      if (difference > available) throw insufficientCredit(available, difference, wallet.currency);
      ledgerId = (
        await applyMovement(tx, wallet, {
          direction: 'debit',
          type: 'payment',
          amount: difference,
          orderId: order.id,
          workflowId: input.workflowId,
          runId: input.runId,
          step,
          note: `change of residence reservation ${r.id}`,
        })
      ).id;
    } else if (difference < 0) {
      ledgerId = (
        await applyMovement(tx, wallet, {
          direction: 'credit',
          type: 'refund',
          amount: -difference,
          orderId: order.id,
          workflowId: input.workflowId,
          runId: input.runId,
          step,
          note: `change of residence reservation ${r.id}`,
        })
      ).id;
    }
    const now = new Date();
    await tx
      .update(reservations)
      .set({ checkIn: input.checkIn, checkOut: input.checkOut, guests: input.guests, totalPrice: newTotal, updatedAt: now })
      .where(eq(reservations.id, r.id));
    await tx.update(orders).set({ totalPrice: newTotal, updatedAt: now }).where(eq(orders.id, order.id));
    return { previousTotalMinor: r.totalPrice, newTotalMinor: newTotal, differenceMinor: difference, ledgerId, currency: r.currency };
  });
}

export type { ReservationStatus };
