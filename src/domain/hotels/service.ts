import type { Client } from '@temporalio/client';
import type { PlaceHoldInput } from '../../../workflows/hotel.types';
import type { Db } from '../../db/client';
import { supplierRead } from '../supplier-reads';
import type { Contact, GuestDetails, HotelSupplier } from '../../suppliers/hotels';
import { withScenario } from '../../sandbox/context';
import type { PricingDeps } from '../money/pricing';
import { sellRateCheck, soldSearch, type SellHotel, type SellRate, type SellRateCheck } from './prices';
import type { Sold } from '../search/derived';
import { findHotels } from '../search/suppliers';
import { fixedUntil, heldPrice, openCode, sealCode } from '../offer-codes';
import type { SupplierPrice } from '../money/supplier-price';

/** A rate as a partner sees it: its `rate_key` seals the rate with the price shown. */
export interface PartnerRate extends SellRate {
  code: string;
}

export interface PartnerHotel extends Omit<SellHotel, 'rates'> {
  rates: PartnerRate[];
}

/** A rate check as a partner sees it: `rateKey` fixes its price; `fixed` is the price the partner's own key had fixed, if it still holds. */
export interface PartnerRateCheck extends SellRateCheck {
  rateKey: string;
  fixed: SupplierPrice | null;
}
import { cancelWorkflowId, holdWorkflowId, type CancelHotelInput } from '../../../workflows/hotel.types';
import { giveMoneyBack } from '../money-back';
import type { MoneyBackOutcome } from '../refund-terms';
import { termsForCancel } from './cancellation';
import { bookingOf, bookingOfOrder, newBooking, orderBooking, type HotelBookingRow } from './bookings';
import { validateGuests } from './guests';
import { validation, workflowAnswer } from '../errors';
import { serviceOrderOf, type OrderRow } from '../orders';
import type { Partner } from '../partners';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrJoin, inProcessOutcome } from '../../temporal/workflows';

export interface HotelDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  /** What this process's own worker tells of the runs it closes (npm start; src/temporal/outcomes.ts). */
  outcomes?: WorkflowOutcomes;
  supplier: HotelSupplier;
}

const DAY_MS = 86_400_000;
export const MAX_NIGHTS = 30;

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

export async function searchHotels(
  supplier: HotelSupplier,
  pricing: PricingDeps,
  input: SearchInput,
  now: Date,
  partnerId: number,
): Promise<Sold<{ search_id: string; hotels: PartnerHotel[] }>> {
  checkStay(input.check_in, input.check_out, now.toISOString().slice(0, 10));
  const field = input.city_id !== undefined ? 'city_id' : 'hotel_id';
  const found = await supplierRead(field, () =>
    findHotels(supplier, {
      city_id: input.city_id,
      hotel_id: input.hotel_id,
      check_in: input.check_in,
      check_out: input.check_out,
      nationality: input.nationality_id,
      rooms: input.rooms.map((r) => ({ adults: r.adult_count, children_ages: r.child_ages })),
      domestic: input.is_domestic,
    }),
  );
  return soldSearch(pricing, found, now, { partnerId, supplier: supplier.name }, 'a', (answer, sell) => ({
    search_id: answer.search_id,
    hotels: sell(answer.hotels).map((h) => ({
      ...h,
      rates: h.rates.map((r) => ({
        ...r,
        code: sealCode(pricing, { id: r.rate_id, supplier: r.total, price: r.priceMinor, rate: r.rate, until: null }),
      })),
    })),
  }));
}

/**
 * POST /api/hotel/check_rate/: the rate priced again, at the partner's price, which the
 * answer's `rate_key` fixes until the supplier's quote expires.
 */
export async function checkRate(
  supplier: HotelSupplier,
  pricing: PricingDeps,
  partnerId: number,
  rateKey: string,
  scenario?: string,
): Promise<PartnerRateCheck> {
  const shown = openCode(pricing, rateKey, 'rate_key');
  const quote = await supplierRead('rate_key', () => withScenario(scenario, () => supplier.checkRate(shown.id)));
  const now = new Date();
  const sold = await sellRateCheck(pricing, quote, now, { partnerId, supplier: supplier.name });
  const held = heldPrice(shown.priced, now, quote.total);
  return {
    ...sold,
    previousMinor: shown.priced?.price ?? sold.previousMinor,
    rateKey: sealCode(pricing, {
      id: sold.rateId,
      supplier: sold.supplierTotal,
      price: sold.priceMinor,
      rate: sold.fxRate,
      until: fixedUntil(sold.expiresAt, now),
    }),
    fixed: held ? { amount: held.supplier, rate: held.rate } : null,
  };
}

/** Runs the hold workflow and answers the booking as it stands after it (or still placing). */
async function runHold(deps: HotelDeps, partner: Partner, input: PlaceHoldInput, field: string): Promise<{ placed: boolean; booking: HotelBookingRow }> {
  const started = await startOrJoin(deps.temporal, 'placeHotelHold', {
    workflowId: holdWorkflowId(input.bookingId, input.mode),
    taskQueue: deps.taskQueue,
    args: [input],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, service: 'hotel', stage: 'holding' }),
  });
  const placed = await awaitWorkflow(started.handle, deps.waitMs, workflowAnswer('hotelHold', field), { inProcess: inProcessOutcome(deps.outcomes, started) });
  return { placed: placed !== null, booking: await bookingOf(deps.db, partner.id, input.bookingId) };
}

/**
 * A hold placed from a rate_key, with the price of the search that rate_key came from: the
 * hotel may hold it at another price (price_changed in the sandbox), and the partner is told.
 */
export interface PlacedHold {
  placed: boolean;
  booking: HotelBookingRow;
  /** The search's price of the rate; null when no rate_key was placed (guests added to a prebook keep its price). */
  searchedPriceMinor: number | null;
}

/** POST /api/hotel/prebook/: a provisional hold without guest names. */
export async function prebook(deps: HotelDeps, partner: Partner, rateKey: string, pricing: PricingDeps, scenario?: string): Promise<PlacedHold> {
  return holdNew(deps, partner, pricing, await checkRate(deps.supplier, pricing, partner.id, rateKey), scenario);
}

/** A new booking of a rate just checked, held at the supplier: with its guests (book), or without them yet (prebook). */
async function holdNew(
  deps: HotelDeps,
  partner: Partner,
  pricing: PricingDeps,
  rate: PartnerRateCheck,
  scenario: string | undefined,
  people: { guests?: GuestDetails[][]; contact?: Contact } = {},
): Promise<PlacedHold> {
  const booking = await newBooking(deps.db, {
    partnerId: partner.id,
    rateKey: rate.rateId,
    currency: pricing.currency,
    supplier: deps.supplier.name,
    fixed: rate.fixed,
    ...people,
  });
  const held = await runHold(deps, partner, { mode: 'create', bookingId: booking.id, clientReference: `hotel-hold:b${booking.id}`, scenario }, 'rate_key');
  return { ...held, searchedPriceMinor: rate.previousMinor };
}

/** POST /api/hotel/book/: a hold with guest details, new (rate_key) or from a prebook (booking_id). */
export async function book(
  deps: HotelDeps,
  partner: Partner,
  input: { rate_key?: string; booking_id?: number; guests: GuestDetails[][]; contact: Contact },
  pricing: PricingDeps,
  scenario?: string,
): Promise<PlacedHold> {
  if (input.booking_id !== undefined) {
    const booking = await bookingOf(deps.db, partner.id, input.booking_id);
    if (booking.status !== 'prebooked') {
      throw validation('booking_id', `booking ${booking.id} is ${booking.status}; only a prebooked booking takes guests`);
    }
    validateGuests(input.guests, booking.rooms ?? []);
    const held = await runHold(deps, partner, { mode: 'guests', bookingId: booking.id, guests: input.guests, contact: input.contact }, 'booking_id');
    return { ...held, searchedPriceMinor: null };
  }
  const rate = await checkRate(deps.supplier, pricing, partner.id, input.rate_key!);
  validateGuests(input.guests, rate.rooms);
  return holdNew(deps, partner, pricing, rate, scenario, { guests: input.guests, contact: input.contact });
}

/** POST /api/hotel/order/. */
export async function order(db: Db, partner: Partner, bookingId: number): Promise<{ order: OrderRow; booking: HotelBookingRow }> {
  return orderBooking(db, partner.id, bookingId);
}

const hotelOrderOf = (db: Db, partnerId: number, orderId: number, access: 'read' | 'act' = 'act') => serviceOrderOf(db, partnerId, orderId, 'hotel', access);

/** POST /api/hotel/booking_data/: by the order, or by the booking (whose order is null until /api/hotel/order/). */
export async function bookingData(
  db: Db,
  partner: Partner,
  ref: { order_id?: number | undefined; booking_id?: number | undefined },
): Promise<{ order: OrderRow | null; booking: HotelBookingRow | null }> {
  if (ref.booking_id !== undefined) {
    const booking = await bookingOf(db, partner.id, ref.booking_id, 'read');
    return { order: booking.orderId === null ? null : await hotelOrderOf(db, partner.id, booking.orderId, 'read'), booking };
  }
  const order = await hotelOrderOf(db, partner.id, ref.order_id!, 'read');
  return { order, booking: (await bookingOfOrder(db, order.id)) ?? null };
}

/** POST /api/hotel/cancel/: the cancellation workflow, awaited up to the bound. */
export async function cancel(deps: HotelDeps, partner: Partner, input: { order_id: number; quote_id?: string }, scenario?: string): Promise<MoneyBackOutcome> {
  await hotelOrderOf(deps.db, partner.id, input.order_id);
  const terms = await termsForCancel(deps.db, partner.id, input.order_id, input.quote_id, new Date());
  const args: CancelHotelInput = {
    orderId: input.order_id,
    partnerId: partner.id,
    refundMinor: terms.refundMinor,
    penaltyMinor: terms.penaltyMinor,
    ...(scenario ? { scenario } : {}),
  };
  return giveMoneyBack(deps, {
    workflowType: 'cancelHotelOrder',
    workflowId: cancelWorkflowId(partner.id, input.order_id),
    args: [args],
    partnerId: partner.id,
    orderId: input.order_id,
    service: 'hotel',
    refusal: workflowAnswer('hotelCancel', 'order_id'),
  });
}
