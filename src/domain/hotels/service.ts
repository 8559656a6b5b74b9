import type { Client } from '@temporalio/client';
import type { PlaceHoldInput } from '../../../workflows/hotel.types';
import type { Db } from '../../db/client';
import { supplierRead } from '../supplier-reads';
import type { Contact, GuestDetails, HotelSupplier, PolicyStep } from '../../suppliers/hotels';
import { cancelWorkflowId, holdWorkflowId, HotelFailure, type CancelHotelInput } from '../../../workflows/hotel.types';
import { termsForCancel } from './cancellation';
import { bookingOf, bookingOfOrder, newBooking, orderBooking, type HotelBookingRow } from './bookings';
import { validateGuests } from './guests';
import { DomainError, validation } from '../errors';
import { formatDecimal } from '../money';
import { renderTravelOrder, serviceOrderOf } from '../orders';
import type { Partner } from '../partners';
import { awaitWorkflow, bookingAttributes, startOrJoin } from '../../temporal/workflows';

export interface HotelDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  supplier: HotelSupplier;
}

const DAY_MS = 86_400_000;
export const MAX_NIGHTS = 30;

const policyView = (policy: PolicyStep[] | null, currency: string) =>
  (policy ?? []).map((s) => ({ from: s.from, penalty: formatDecimal(s.penalty_minor, currency) }));

export async function listCities(supplier: HotelSupplier, search: string | undefined) {
  const cities = await supplier.cities();
  const q = search?.trim().toLowerCase();
  return cities
    .filter((c) => !q || c.name.toLowerCase().includes(q) || c.iata_code.toLowerCase() === q)
    .map((c) => ({ id: c.id, name: c.name, iata_code: c.iata_code, country: c.country, domestic: c.domestic }));
}

export interface SearchInput {
  check_in: string;
  check_out: string;
  city_id?: number;
  hotel_id?: number;
  nationality_id: string;
  rooms: Array<{ adult_count: number; child_count: number; child_ages: number[] }>;
  is_domestic?: boolean;
}

/** Dates are calendar days (YYYY-MM-DD); "today" is the UTC date. */
export function checkStay(checkIn: string, checkOut: string, today: string): void {
  if (checkIn < today) throw validation('check_in', `must not be in the past (today is ${today})`);
  const nights = (Date.parse(checkOut) - Date.parse(checkIn)) / DAY_MS;
  if (nights < 1) throw validation('check_out', 'must be after check_in');
  if (nights > MAX_NIGHTS) throw validation('check_out', `a stay is at most ${MAX_NIGHTS} nights`);
}

export async function searchHotels(supplier: HotelSupplier, input: SearchInput, currency: string, now: Date) {
  checkStay(input.check_in, input.check_out, now.toISOString().slice(0, 10));
  const field = input.city_id !== undefined ? 'city_id' : 'hotel_id';
  const found = await supplierRead(field, () =>
    supplier.availability({
      city_id: input.city_id,
      hotel_id: input.hotel_id,
      check_in: input.check_in,
      check_out: input.check_out,
      nationality: input.nationality_id,
      rooms: input.rooms.map((r) => ({ adults: r.adult_count, children_ages: r.child_ages })),
      domestic: input.is_domestic,
    }),
  );
  return {
    search_id: found.search_id,
    results: found.hotels.map((h) => ({
      hotel_id: h.hotel_id,
      name: h.name,
      stars: h.stars,
      city_id: h.city_id,
      address: h.address,
      rates: h.rates.map((r) => ({
        rate_key: r.rate_key,
        room_name: r.room_name,
        board: r.board,
        total_price: formatDecimal(r.total_price_minor, currency),
        currency,
        refundable: r.refundable,
        rooms: r.rooms,
      })),
    })),
  };
}

export async function checkRate(supplier: HotelSupplier, rateKey: string, currency: string, scenario?: string) {
  const rate = await supplierRead('rate_key', () => supplier.checkRate(rateKey, scenario));
  return {
    rate_key: rate.rate_key,
    hotel_id: rate.hotel_id,
    hotel_name: rate.hotel_name,
    city_id: rate.city_id,
    room_name: rate.room_name,
    board: rate.board,
    refundable: rate.refundable,
    check_in: rate.check_in,
    check_out: rate.check_out,
    rooms: rate.rooms,
    total_price: formatDecimal(rate.total_price_minor, currency),
    previous_price: formatDecimal(rate.original_price_minor, currency),
    price_changed: rate.price_changed,
    currency,
    cancellation_policy: policyView(rate.cancellation_policy, currency),
    expires_at: rate.expires_at,
  };
}

export function renderBooking(b: HotelBookingRow) {
  return {
    booking_id: b.id,
    status: b.status,
    order_id: b.orderId,
    expires_at: b.expiresAt?.toISOString() ?? null,
    total_price: b.totalPrice === null ? null : formatDecimal(b.totalPrice, b.currency),
    currency: b.currency,
    hotel_id: b.hotelId,
    hotel_name: b.hotelName,
    city_id: b.cityId,
    room_name: b.roomName,
    board: b.board,
    refundable: b.refundable,
    check_in: b.checkIn,
    check_out: b.checkOut,
    rooms: b.rooms,
    guests: b.guests ?? [],
    contact: b.contact,
    confirmation_number: b.confirmationNumber,
    cancellation_policy: policyView(b.cancellationPolicy, b.currency),
  };
}

const holdFailure = (field: string) => (f: { type: string; message: string }) => (f.type === HotelFailure.holdRefused ? validation(field, f.message) : null);

/** Runs the hold workflow and answers the booking as it stands after it (or still placing). */
async function runHold(deps: HotelDeps, partner: Partner, input: PlaceHoldInput, field: string) {
  const handle = await startOrJoin(deps.temporal, 'placeHotelHold', {
    workflowId: holdWorkflowId(input.bookingId, input.mode),
    taskQueue: deps.taskQueue,
    args: [input],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, service: 'hotel', stage: 'holding' }),
  });
  const placed = await awaitWorkflow(handle, deps.waitMs, holdFailure(field));
  const booking = await bookingOf(deps.db, partner.id, input.bookingId);
  return { placed: placed !== null, booking: renderBooking(booking) };
}

/** POST /api/hotel/prebook/: a provisional hold without guest names. */
export async function prebook(deps: HotelDeps, partner: Partner, rateKey: string, currency: string, scenario?: string) {
  await supplierRead('rate_key', () => deps.supplier.checkRate(rateKey));
  const booking = await newBooking(deps.db, { partnerId: partner.id, rateKey, currency });
  return runHold(deps, partner, { mode: 'create', bookingId: booking.id, clientReference: `hotel-hold:b${booking.id}`, scenario }, 'rate_key');
}

/** POST /api/hotel/book/: a hold with guest details, new (rate_key) or from a prebook (booking_id). */
export async function book(
  deps: HotelDeps,
  partner: Partner,
  input: { rate_key?: string; booking_id?: number; guests: GuestDetails[][]; contact: Contact },
  currency: string,
  scenario?: string,
) {
  if (input.booking_id !== undefined) {
    const booking = await bookingOf(deps.db, partner.id, input.booking_id);
    if (booking.status !== 'prebooked') {
      throw validation('booking_id', `booking ${booking.id} is ${booking.status}; only a prebooked booking takes guests`);
    }
    validateGuests(input.guests, booking.rooms ?? []);
    return runHold(deps, partner, { mode: 'guests', bookingId: booking.id, guests: input.guests, contact: input.contact }, 'booking_id');
  }
  const rate = await supplierRead('rate_key', () => deps.supplier.checkRate(input.rate_key!));
  validateGuests(input.guests, rate.rooms);
  const booking = await newBooking(deps.db, { partnerId: partner.id, rateKey: input.rate_key!, currency, guests: input.guests, contact: input.contact });
  return runHold(deps, partner, { mode: 'create', bookingId: booking.id, clientReference: `hotel-hold:b${booking.id}`, scenario }, 'rate_key');
}

/** POST /api/hotel/order/. */
export async function order(db: Db, partner: Partner, bookingId: number) {
  const { order, booking } = await orderBooking(db, partner.id, bookingId);
  return { ...renderTravelOrder(order), booking_id: booking.id, hold_expires_at: booking.expiresAt?.toISOString() ?? null };
}

const hotelOrderOf = (db: Db, partnerId: number, orderId: number) => serviceOrderOf(db, partnerId, orderId, 'hotel');

/** POST /api/hotel/booking_data/. */
export async function bookingData(db: Db, partner: Partner, orderId: number) {
  const order = await hotelOrderOf(db, partner.id, orderId);
  const booking = await bookingOfOrder(db, order.id);
  return { order: renderTravelOrder(order), booking: booking ? renderBooking(booking) : null };
}

/** POST /api/hotel/cancel/: the cancellation workflow, awaited up to the bound. */
export async function cancel(deps: HotelDeps, partner: Partner, input: { order_id: number; quote_id?: string }, scenario?: string) {
  await hotelOrderOf(deps.db, partner.id, input.order_id);
  const terms = await termsForCancel(deps.db, partner.id, input.order_id, input.quote_id, new Date());
  const args: CancelHotelInput = {
    orderId: input.order_id,
    partnerId: partner.id,
    refundMinor: terms.refundMinor,
    penaltyMinor: terms.penaltyMinor,
    ...(scenario ? { scenario } : {}),
  };
  const workflowId = cancelWorkflowId(partner.id, input.order_id);
  const handle = await startOrJoin(deps.temporal, 'cancelHotelOrder', {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [args],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, orderId: input.order_id, service: 'hotel', stage: 'cancelling' }),
  });
  const result = await awaitWorkflow(handle, deps.waitMs, (f) =>
    f.type === HotelFailure.cancelRejected ? new DomainError('supplier_failed', f.message) : f.type === 'conflict' ? validation('order_id', f.message) : null,
  );
  const c = terms.order.currency;
  if (!result) return { done: false as const, data: { order_id: input.order_id, status: 'cancelling', cancellation_id: workflowId } };
  return {
    done: true as const,
    data: {
      order_id: result.orderId,
      status: 'cancelled',
      penalty: formatDecimal(result.penaltyMinor, c),
      refund_amount: formatDecimal(result.refundMinor, c),
      currency: c,
      ledger_id: result.ledgerId,
    },
  };
}
