import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders, tourDepartures, tourPrebooks, tours } from '../../db/schema';
import { notFound, validation } from '../errors';
import { validateTraveler } from '../flights/travelers';
import { isStorableId } from '../ids';
import { sum } from '../money/money';
import { carriedPriceColumns, priceColumns, summedPrice } from '../money/markup';
import { ownMarkup, type CatalogueSettings } from '../money/markup-rules';
import type { OrderRow } from '../orders';
import { actorNow } from '../../platform/request-context';
import type { PrebookRequest } from '../../../workflows/tour.types';

export type TourPrebookRow = typeof tourPrebooks.$inferSelect;

/** Validates what can be checked without taking seats: the departure, and each passenger on its start date. */
export async function checkPrebook(db: DbOrTx, input: Omit<PrebookRequest, 'holdRef' | 'ttlMs' | 'partnerId' | 'currency'>) {
  const [departure] = isStorableId(input.departureId)
    ? await db
        .select()
        .from(tourDepartures)
        .where(and(eq(tourDepartures.id, input.departureId), eq(tourDepartures.tourId, input.tourId)))
    : [];
  if (!departure) throw validation('departure_id', `tour ${input.tourId} has no departure ${input.departureId}`);
  if (departure.startDate <= new Date().toISOString().slice(0, 10)) throw validation('departure_id', `departure ${departure.id} has already left`);
  input.passengers.forEach((p, i) => validateTraveler(p, `passengers.${i}`, departure.startDate));
  if (!input.passengers.some((p) => p.passenger_type === 'ADT')) throw validation('passengers', 'at least one adult travels');
  const infants = input.passengers.filter((p) => p.passenger_type === 'INF').length;
  if (infants > input.passengers.filter((p) => p.passenger_type === 'ADT').length) throw validation('passengers', 'at most one infant per adult');
  return departure;
}

/**
 * Takes the seats and records the prebook, in one transaction: the conditional UPDATE
 * keeps the departure within capacity however many partners race for it (one wins, the
 * other gets "not enough seats"). Keyed by the workflow's hold reference, so a retried
 * activity answers the first prebook.
 */
export async function holdTourSeats(db: DbOrTx, input: PrebookRequest, catalogue: CatalogueSettings): Promise<TourPrebookRow> {
  // Each passenger's price with the partner's markup, as the departure shows it, in the wallet's currency.
  const markup = await ownMarkup({ ...catalogue, db, currency: input.currency }, 'tours', input.partnerId);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(tourPrebooks).where(eq(tourPrebooks.holdRef, input.holdRef));
    if (existing) return existing;
    const departure = await checkPrebook(tx, input);
    // Infants sit on a lap: they pay but take no seat.
    const seats = input.passengers.filter((p) => p.passenger_type !== 'INF').length;
    const taken = await tx
      .update(tourDepartures)
      .set({ seatsTaken: sql`${tourDepartures.seatsTaken} + ${seats}` })
      .where(and(eq(tourDepartures.id, departure.id), sql`${tourDepartures.seatsTaken} + ${seats} <= ${tourDepartures.capacity}`))
      .returning({ id: tourDepartures.id });
    if (taken.length === 0) {
      const left = departure.capacity - departure.seatsTaken;
      throw validation('departure_id', `not enough seats: ${left} left on departure ${departure.id}, ${seats} asked`);
    }
    const price = { ADT: departure.priceAdult, CHD: departure.priceChild, INF: departure.priceInfant };
    const net = sum(
      input.passengers.map((p) => markup.net(price[p.passenger_type])),
      input.currency,
    );
    const totalPrice = sum(
      input.passengers.map((p) => markup.sell(price[p.passenger_type])),
      input.currency,
    );
    const [row] = await tx
      .insert(tourPrebooks)
      .values({
        partnerId: input.partnerId,
        createdBy: actorNow(),
        holdRef: input.holdRef,
        departureId: departure.id,
        passengers: input.passengers as unknown as Array<Record<string, unknown>>,
        seats,
        totalPrice,
        ...priceColumns(
          summedPrice(markup, {
            net,
            operator: sum(
              input.passengers.map((p) => markup.operatorSell(price[p.passenger_type])),
              input.currency,
            ),
            sell: totalPrice,
          }),
        ),
        currency: input.currency,
        expiresAt: new Date(Date.now() + input.ttlMs),
      })
      .returning();
    return row!;
  });
}

export async function prebookOf(db: DbOrTx, partnerId: number, prebookId: number): Promise<TourPrebookRow> {
  const [row] = isStorableId(prebookId)
    ? await db
        .select()
        .from(tourPrebooks)
        .where(and(eq(tourPrebooks.id, prebookId), eq(tourPrebooks.partnerId, partnerId)))
    : [];
  if (!row) throw notFound(`prebook ${prebookId}`);
  return row;
}

export async function prebookOfOrder(db: DbOrTx, orderId: number): Promise<TourPrebookRow | undefined> {
  const [row] = await db.select().from(tourPrebooks).where(eq(tourPrebooks.orderId, orderId));
  return row;
}

/** A prebook with the tour and departure it holds seats on. */
export interface PrebookView {
  prebook: TourPrebookRow;
  tour: typeof tours.$inferSelect;
  departure: typeof tourDepartures.$inferSelect;
}

export async function withDeparture(db: DbOrTx, p: TourPrebookRow): Promise<PrebookView> {
  const [d] = await db
    .select({ departure: tourDepartures, tour: tours })
    .from(tourDepartures)
    .innerJoin(tours, eq(tours.id, tourDepartures.tourId))
    .where(eq(tourDepartures.id, p.departureId));
  return { prebook: p, tour: d!.tour, departure: d!.departure };
}

/** POST /api/tours/finalize/: a held prebook becomes the pending travel order, once. */
export async function finalizePrebook(db: DbOrTx, partnerId: number, prebookId: number): Promise<{ order: OrderRow; prebook: TourPrebookRow }> {
  return db.transaction(async (tx) => {
    const [p] = isStorableId(prebookId)
      ? await tx
          .select()
          .from(tourPrebooks)
          .where(and(eq(tourPrebooks.id, prebookId), eq(tourPrebooks.partnerId, partnerId)))
          .for('update')
      : [];
    if (!p) throw notFound(`prebook ${prebookId}`);
    if (p.orderId !== null) throw validation('prebook_id', `prebook ${prebookId} is already order ${p.orderId}`);
    if (p.status !== 'held' || p.expiresAt.getTime() <= Date.now()) {
      throw validation('prebook_id', `prebook ${prebookId} is ${p.status === 'held' ? 'expired' : p.status}`);
    }
    const [order] = await tx
      .insert(orders)
      .values({
        createdBy: actorNow(),
        actedBy: actorNow(),
        partnerId,
        service: 'tour',
        totalPrice: p.totalPrice,
        currency: p.currency,
        paymentMethod: 'PARTNER_CREDIT',
        details: { prebook_id: p.id },
        ...carriedPriceColumns(p),
      })
      .returning();
    const [updated] = await tx.update(tourPrebooks).set({ orderId: order!.id, updatedAt: new Date() }).where(eq(tourPrebooks.id, p.id)).returning();
    return { order: order!, prebook: updated! };
  });
}

export type PrebookCheck = { done: true; release: null } | { done: false; expiresAt: number };

/** The prebook's deadline passed unpaid: seats go back, prebook and pending order expire, in one transaction. */
export async function expirePrebookIfDue(db: DbOrTx, prebookId: number, now: Date): Promise<PrebookCheck> {
  return db.transaction(async (tx) => {
    const [peek] = await tx.select({ orderId: tourPrebooks.orderId }).from(tourPrebooks).where(eq(tourPrebooks.id, prebookId));
    if (!peek) throw notFound(`prebook ${prebookId}`);
    const [order] = peek.orderId === null ? [] : await tx.select().from(orders).where(eq(orders.id, peek.orderId)).for('update');
    const [p] = await tx.select().from(tourPrebooks).where(eq(tourPrebooks.id, prebookId)).for('update');
    if (p!.status !== 'held' || (order && order.status !== 'pending')) return { done: true, release: null };
    if (p!.expiresAt.getTime() > now.getTime()) return { done: false, expiresAt: p!.expiresAt.getTime() };
    await tx
      .update(tourDepartures)
      .set({ seatsTaken: sql`${tourDepartures.seatsTaken} - ${p!.seats}` })
      .where(eq(tourDepartures.id, p!.departureId));
    await tx.update(tourPrebooks).set({ status: 'expired', updatedAt: now }).where(eq(tourPrebooks.id, p!.id));
    if (order) await tx.update(orders).set({ status: 'expired', actedBy: actorNow(), updatedAt: now }).where(eq(orders.id, order.id));
    return { done: true, release: null };
  });
}

export async function recordTourConfirmation(db: DbOrTx, prebookId: number, confirmationNumber: string): Promise<void> {
  await db.update(tourPrebooks).set({ status: 'confirmed', confirmationNumber, updatedAt: new Date() }).where(eq(tourPrebooks.id, prebookId));
}

export type { PrebookRequest };
