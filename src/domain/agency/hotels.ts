import { and, desc, eq, gte, isNotNull, sql } from 'drizzle-orm';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { hotelBookings, ledgerEntries, orders } from '../../db/schema';
import { SupplierRejectedError } from '../../suppliers/errors';
import type { HotelSupplier, SupplierCity, SupplierHotelDetail, SupplierRate } from '../../suppliers/hotels';
import type { PricingDeps } from '../money/pricing';
import { soldSearch, type SellHotel } from '../hotels/prices';
import type { Sold } from '../search/derived';
import { findHotels, withinSearch } from '../search/suppliers';
import { DomainError, notFound, validation, workflowAnswer } from '../errors';
import { requestFingerprint, sameRequest } from './idempotency';
import { logger } from '../../platform/log';
import { memoizePerObject } from '../../platform/memoize-per-object';
import { rowIdOf } from '../ids';
import { cancel as cancelHotelOrder, checkStay, type HotelDeps } from '../hotels/service';
import { newBookingColumns, type HotelBookingRow, type NewBooking } from '../hotels/bookings';
import type { Partner } from '../partners';
import { bookingAttributes } from '../../temporal/workflows';
import { agencyBookingWorkflowId } from '../../../workflows/agency.types';
import { settle } from './settle';
import { madeByOrAnyone, readableBy } from '../orders';

/** B's agencies sell to Iranian travellers: rates are asked for this nationality (docs/decisions/interface-b.md). */
export const AGENCY_NATIONALITY = 'IR';

export const roomIdOf = (r: Pick<SupplierRate, 'room_code' | 'board' | 'refundable'>) => `${r.room_code}-${r.board}-${r.refundable ? 'FLEX' : 'NRF'}`;
/** A room of a search: the supplier's room code, its board and whether it is refundable. */
const ROOM_ID = /^[A-Z0-9]{2,12}-(RO|BB|HB|FB|AI)-(FLEX|NRF)$/;

const hotelIdOf = (raw: string) => rowIdOf(raw, 'hotel');

/**
 * Each city list by its names and IATA codes, lower-case, made once per list (the search
 * layer hands out the same list while it keeps it): a name or code two cities share names
 * the first of them.
 */
const cityIndex = memoizePerObject((cities: readonly SupplierCity[]) => {
  const index = new Map<string, SupplierCity>();
  for (const c of cities) {
    for (const key of [c.name.toLowerCase(), c.iata_code.toLowerCase()]) if (!index.has(key)) index.set(key, c);
  }
  return index;
});

async function cityOf(supplier: HotelSupplier, city: string) {
  const found = cityIndex(await supplier.cities()).get(city.trim().toLowerCase());
  if (!found) throw validation('city', `unknown city ${city}; give a city name or its IATA code`);
  return found;
}

/** What a city search found: the city, the nights of the stay, and the hotels kept (stars, limit). */
export interface AgencySearch {
  city: SupplierCity;
  nights: number;
  hotels: SellHotel[];
}

type AgencyQuery = { city: string; check_in: string; check_out: string; guests: number; stars?: number; limit: number };

/** GET /v1/hotels/search: its city list and its search within one deadline. */
export const searchHotels = (supplier: HotelSupplier, pricing: PricingDeps, q: AgencyQuery, now: Date, partnerId: number): Promise<Sold<AgencySearch>> =>
  withinSearch(supplier, () => searchAndSell(supplier, pricing, q, now, partnerId));

async function searchAndSell(supplier: HotelSupplier, pricing: PricingDeps, q: AgencyQuery, now: Date, partnerId: number): Promise<Sold<AgencySearch>> {
  const city = await cityOf(supplier, q.city);
  checkStay(q.check_in, q.check_out, now.toISOString().slice(0, 10));
  const nights = (Date.parse(q.check_out) - Date.parse(q.check_in)) / 86_400_000;
  const found = await findHotels(supplier, {
    city_id: city.id,
    check_in: q.check_in,
    check_out: q.check_out,
    nationality: AGENCY_NATIONALITY,
    rooms: [{ adults: q.guests, children_ages: [] }],
  });
  // stars means "at least".
  return soldSearch(pricing, found, now, { partnerId, supplier: supplier.name }, `b:${q.stars ?? 0}:${q.limit}`, (answer, sell) => ({
    city,
    nights,
    hotels: sell(answer.hotels.filter((h) => q.stars === undefined || h.stars >= q.stars).slice(0, q.limit)),
  }));
}

/** GET /v1/hotels/{hotel_id}: the hotel, its rooms, amenities and policies. */
export async function hotelDetail(supplier: HotelSupplier, rawId: string): Promise<SupplierHotelDetail> {
  const id = hotelIdOf(rawId);
  try {
    return await supplier.hotel(id);
  } catch (err) {
    if (err instanceof SupplierRejectedError && err.status === 404) throw notFound(`hotel ${rawId}`);
    throw err;
  }
}

export type AgencyBookingStatus = 'pending' | 'active' | 'completed' | 'cancelled';

/** An agency booking and where it stands in B's words: pending until paid, active until checked out, then completed; or cancelled. */
export interface AgencyBooking {
  booking: HotelBookingRow;
  status: AgencyBookingStatus;
}

function agencyBooking(b: HotelBookingRow, orderStatus: string | null, today: string): AgencyBooking {
  const status: AgencyBookingStatus =
    orderStatus === 'cancelled' ? 'cancelled' : orderStatus === 'completed' ? (b.checkOut! < today ? 'completed' : 'active') : 'pending';
  return { booking: b, status };
}

export interface AgencyBookingDeps extends HotelDeps {
  temporal: Client;
  /** The phone number a booking gives a supplier that requires one (AGENCY_CONTACT_PHONE): Interface B carries none. */
  contactPhone?: string;
}

export interface AgencyBookingInput {
  hotel_id: string;
  room_id: string;
  guest_name: string;
  guest_email: string;
  check_in: string;
  check_out: string;
  special_requests?: string;
  guests: number;
}

/**
 * POST /v1/hotels/bookings: reserve → debit → confirm as one workflow, answered only
 * once confirmed. With an Idempotency-Key, a retried request joins the first booking; the
 * key with a different request is refused.
 */
export async function createBooking(
  deps: AgencyBookingDeps,
  partner: Partner,
  input: AgencyBookingInput,
  currency: string,
  idempotencyKey?: string,
  scenario?: string,
): Promise<{ done: boolean; booking: AgencyBooking }> {
  let bookingId: number | undefined;
  const fingerprint = requestFingerprint(input);
  if (idempotencyKey) {
    const [same] = await deps.db
      .select()
      .from(hotelBookings)
      .where(and(eq(hotelBookings.partnerId, partner.id), eq(hotelBookings.idempotencyKey, idempotencyKey)));
    if (same) sameRequest(idempotencyKey, same.idempotencyRequest, fingerprint);
    bookingId = same?.id;
  }
  if (bookingId === undefined && deps.supplier.requiresPhone && !deps.contactPhone) {
    logger.warn(
      { supplier: deps.supplier.name },
      'an Interface B hotel booking was refused: the hotel supplier needs a phone number; set AGENCY_CONTACT_PHONE',
    );
    throw new DomainError(
      'conflict',
      `hotel bookings are not offered on this interface by the current hotel supplier (${deps.supplier.name}): it needs a contact phone number, which this interface does not carry; book through Interface A`,
    );
  }
  if (bookingId === undefined) {
    checkStay(input.check_in, input.check_out, new Date().toISOString().slice(0, 10));
    const hotelId = hotelIdOf(input.hotel_id);
    if (!ROOM_ID.test(input.room_id)) throw validation('room_id', 'is not a room_id of this API (see GET /v1/hotels/search)');
    let found;
    try {
      found = await deps.supplier.search(
        {
          hotel_id: hotelId,
          check_in: input.check_in,
          check_out: input.check_out,
          nationality: AGENCY_NATIONALITY,
          rooms: [{ adults: input.guests, children_ages: [] }],
        },
        { fresh: true },
      );
    } catch (err) {
      if (err instanceof SupplierRejectedError && err.status === 404) throw notFound(`hotel ${input.hotel_id}`);
      throw err;
    }
    const rate = found.hotels[0]?.rates.find((r) => roomIdOf(r) === input.room_id);
    if (!rate) throw validation('room_id', `room ${input.room_id} is not available at hotel ${input.hotel_id} for these dates`);
    const [first, ...rest] = input.guest_name.trim().split(/\s+/);
    bookingId = await newAgencyBooking(deps.db, {
      partnerId: partner.id,
      rateKey: rate.rate_id,
      currency,
      supplier: deps.supplier.name,
      guests: [[{ first_name: first!, last_name: rest.join(' ') || first!, nationality: AGENCY_NATIONALITY }]],
      // B carries no phone number: a supplier that needs one gets the engine's (AGENCY_CONTACT_PHONE), with the guest's e-mail.
      contact: deps.supplier.requiresPhone && deps.contactPhone ? { phone_number: deps.contactPhone, email: input.guest_email } : undefined,
      agency: { room_id: input.room_id, guest_name: input.guest_name, guest_email: input.guest_email, special_requests: input.special_requests ?? null },
      idempotencyKey,
      idempotencyRequest: idempotencyKey ? fingerprint : undefined,
    });
  }
  const done = await settle(
    deps,
    'agencyHotelBooking',
    {
      workflowId: agencyBookingWorkflowId(bookingId),
      args: [{ partnerId: partner.id, bookingId, ...(scenario ? { scenario } : {}) }],
      attributes: bookingAttributes({ partnerId: partner.id, service: 'hotel', stage: 'holding' }),
    },
    workflowAnswer('agencyHotelBooking', 'room_id'),
  );
  return { done, booking: await bookingView(deps.db, partner.id, bookingId) };
}

/** The booking row of an agency request, once per Idempotency-Key (a concurrent duplicate gets the first row). */
async function newAgencyBooking(
  db: Db,
  input: NewBooking & { agency: NonNullable<HotelBookingRow['agency']>; idempotencyKey?: string; idempotencyRequest?: string },
): Promise<number> {
  const [row] = await db
    .insert(hotelBookings)
    .values({
      ...newBookingColumns(input),
      agency: input.agency,
      idempotencyKey: input.idempotencyKey ?? null,
      idempotencyRequest: input.idempotencyRequest ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: hotelBookings.id });
  if (row) return row.id;
  const [same] = await db
    .select()
    .from(hotelBookings)
    .where(and(eq(hotelBookings.partnerId, input.partnerId), eq(hotelBookings.idempotencyKey, input.idempotencyKey!)));
  sameRequest(input.idempotencyKey!, same!.idempotencyRequest, input.idempotencyRequest!);
  return same!.id;
}

async function bookingView(db: Db, partnerId: number, bookingId: number): Promise<AgencyBooking> {
  const [row] = await db
    .select({ b: hotelBookings, status: orders.status })
    .from(hotelBookings)
    .leftJoin(orders, eq(orders.id, hotelBookings.orderId))
    .where(and(eq(hotelBookings.id, bookingId), eq(hotelBookings.partnerId, partnerId), isNotNull(hotelBookings.agency)));
  if (!row) throw notFound(`booking ${bookingId}`);
  return agencyBooking(row.b, row.status, new Date().toISOString().slice(0, 10));
}

/**
 * GET /v1/hotels/bookings: the caller's settled bookings (active, completed, cancelled), and a
 * parent agency's sub-agencies' with them; cancelling one stays with the agency that made it.
 */
export async function listBookings(
  db: Db,
  partnerId: number,
  q: { status?: 'active' | 'cancelled' | 'completed'; from_date?: string },
  ownOf: number | null = null,
): Promise<AgencyBooking[]> {
  const conditions = [
    readableBy(partnerId, hotelBookings.partnerId),
    isNotNull(hotelBookings.agency),
    isNotNull(hotelBookings.orderId),
    madeByOrAnyone(sql`${orders.createdBy}`, ownOf),
  ];
  if (q.from_date) conditions.push(gte(hotelBookings.checkIn, q.from_date));
  const rows = await db
    .select({ b: hotelBookings, status: orders.status })
    .from(hotelBookings)
    .innerJoin(orders, eq(orders.id, hotelBookings.orderId))
    .where(and(...conditions))
    .orderBy(desc(hotelBookings.id));
  const today = new Date().toISOString().slice(0, 10);
  return rows
    .filter((r) => r.status === 'completed' || r.status === 'cancelled')
    .map((r) => agencyBooking(r.b, r.status, today))
    .filter((b) => !q.status || b.status === q.status);
}

/** DELETE /v1/hotels/bookings/{booking_id}: cancel with the policy's refund; a second delete answers the same. */
export async function cancelBooking(
  deps: AgencyBookingDeps,
  partner: Partner,
  rawId: string,
): Promise<{ done: boolean; refundMinor: number; currency: string }> {
  const id = rowIdOf(rawId, 'booking');
  const view = await bookingView(deps.db, partner.id, id);
  const [b] = await deps.db.select().from(hotelBookings).where(eq(hotelBookings.id, id));
  if (!b!.orderId || view.status === 'pending') throw new DomainError('conflict', `booking ${rawId} is not confirmed`);
  // Still with the hotel (slow, or parked for an operator): say so, with what is refunded so far.
  const done = view.status === 'cancelled' || (await cancelHotelOrder(deps, partner, { order_id: b!.orderId })).done;
  const refunds = await deps.db
    .select({ amount: ledgerEntries.amount })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, b!.orderId), eq(ledgerEntries.type, 'refund'), eq(ledgerEntries.step, 'cancel-refund')));
  const refund = refunds.reduce((n, r) => n + r.amount, 0);
  return { done, refundMinor: refund, currency: b!.currency };
}
