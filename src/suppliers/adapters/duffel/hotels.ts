/// <reference types="@duffel/api" />
import { createHash, randomUUID } from 'node:crypto';
import type { Airport as DuffelAirport, Guest, StaysAccommodation, StaysBooking, StaysQuote, StaysRoomRate } from '@duffel/api/types';
import { SupplierRejectedError, SupplierUnavailableError } from '../../errors';
import type {
  Contact,
  GuestDetails,
  HotelSupplier,
  Money,
  Occupancy,
  PolicyStep,
  RateQuote,
  Stay,
  StayHold,
  SupplierCity,
  SupplierHotel,
  SupplierHotelDetail,
  SupplierRate,
} from '../../hotels';
import type { PlaceIds, PlaceInfo } from '../../place-ids';
import type { DuffelCalls } from './client';
import { moneyOf } from './mapping';

/** How far from a city's airports a search looks for hotels, in km (Duffel's `location.radius`). */
export const CITY_RADIUS_KM = 50;
/** How many hotels of a search get their rates fetched (one `fetch_all_rates` each, in parallel). */
export const RATED_HOTELS = 8;
/** Bookings made under a client reference are found again by their metadata (Duffel's list does not filter on it). */
const BOOKING_SCAN_PAGES = 5;
/** How many searched rates the adapter remembers the guests' nationality and rooms of, for their quotes. */
const REMEMBERED_RATES = 5_000;
const DOMESTIC_COUNTRY = 'IR';

/** A rate as this process's search found it. */
interface Searched {
  nationality: string;
  rooms: Occupancy[];
  total: Money;
}

/** A Duffel quote: its API reference gives it an `expires_at`, which the SDK's type lacks. */
type Quote = StaysQuote & { expires_at?: string | null };
type Rate = StaysRoomRate & { expires_at?: string | null };

/** Duffel's board types in the partner's codes (RO room only, BB bed and breakfast, HB half board, FB full board, AI all inclusive). */
const BOARD: Record<StaysRoomRate['board_type'], string> = {
  room_only: 'RO',
  breakfast: 'BB',
  half_board: 'HB',
  full_board: 'FB',
  all_inclusive: 'AI',
};
export const boardOf = (b: StaysRoomRate['board_type']) => BOARD[b] ?? b.toUpperCase();

/** Duffel names a hotel's rooms and gives them no code: the code is the name's digest, the same in every search. */
export const roomCodeOf = (name: string) => `R${createHash('sha256').update(name.trim().toLowerCase()).digest('hex').slice(0, 8).toUpperCase()}`;

/** The search's rooms as Duffel counts them: a number of rooms and everybody's ages. */
function guestsOf(rooms: Occupancy[]): Guest[] {
  return rooms.flatMap((r) => [
    ...Array.from({ length: r.adults }, () => ({ type: 'adult' as const })),
    ...r.children_ages.map((age) => ({ type: 'child' as const, age })),
  ]);
}

/** Duffel keeps a stay's guests without their rooms: adults, then children, are dealt to the rooms in turn. */
export function occupancyOf(rooms: number, guests: Guest[]): Occupancy[] {
  const out: Occupancy[] = Array.from({ length: Math.max(rooms, 1) }, () => ({ adults: 0, children_ages: [] }));
  const adults = guests.filter((g) => g.type === 'adult').length;
  for (let i = 0; i < adults; i++) out[i % out.length]!.adults++;
  guests.filter((g): g is Extract<Guest, { type: 'child' }> => g.type === 'child').forEach((g, i) => out[i % out.length]!.children_ages.push(g.age));
  return out;
}

/**
 * Duffel's cancellation timeline says what is refunded if the booking is cancelled `before`
 * each moment; ours says what cancelling costs from each moment on. The penalty of a step is
 * the total less the refund of the step still ahead; past the last `before`, nothing is refunded.
 */
export function timelineOf(rate: Pick<StaysRoomRate, 'cancellation_timeline'>, total: Money, from: string): PolicyStep[] {
  const steps = [...rate.cancellation_timeline].sort((a, b) => Date.parse(a.before) - Date.parse(b.before));
  const penalty = (refund: string | null, currency: string): Money => {
    const refunded = refund === null ? 0 : moneyOf(refund, currency).amount_minor;
    return { amount_minor: Math.max(total.amount_minor - refunded, 0), currency: total.currency };
  };
  const out: PolicyStep[] = [];
  let start = from;
  for (const s of steps) {
    out.push({ from: start, penalty: penalty(s.refund_amount, s.currency) });
    start = s.before;
  }
  out.push({ from: start, penalty: penalty(null, total.currency) });
  // A leading step that costs nothing says nothing: no penalty is due before the first step.
  return out.filter((s, i) => i > 0 || s.penalty.amount_minor > 0);
}

const refundableOf = (rate: Pick<StaysRoomRate, 'cancellation_timeline'>, now: Date) =>
  rate.cancellation_timeline.some((s) => Date.parse(s.before) > now.getTime() && Number(s.refund_amount) > 0);

const addressOf = (a: StaysAccommodation) =>
  [a.location.address.line_one, a.location.address.city_name, a.location.address.postal_code].filter(Boolean).join(', ');

/** An E.164 number as Duffel asks for it, from the partner's contact (spaces, dashes and a leading 00 allowed). */
export function e164(phone: string): string {
  const compact = phone.replace(/[\s\-().]/g, '').replace(/^00/, '+');
  if (!/^\+[1-9]\d{6,14}$/.test(compact))
    throw new SupplierRejectedError(`the hotel needs the contact's phone number in international form (+…), not ${phone}`, 422);
  return compact;
}

/**
 * The stays port on Duffel Stays (API v2, through `@duffel/api`). Cities are Duffel's airport
 * cities, hotels its accommodation, both under the registry's integer ids. A rate is Duffel's
 * rate; checking it, and holding it, is a quote (price fixed until the quote expires); the hold
 * id is the quote id and the engine keeps the guests. Booking is a Stays booking made from the
 * quote with the order's client reference in its metadata: one whose answer was lost is found
 * again by it before anything is repeated, so a quote is never booked twice. The booking
 * reference the engine keeps (the partner's `confirmation_number`) is Duffel's booking id,
 * since that is what a cancellation names.
 */
export function duffelHotelSupplier(duffel: DuffelCalls, places: PlaceIds, opts: { now?: () => Date } = {}): HotelSupplier {
  const now = opts.now ?? (() => new Date());
  let cityList: { at: number; list: Array<SupplierCity & { latitude: number; longitude: number }> } | null = null;
  /** What a searched rate was for, and at what price (Duffel's quotes do not say the guests' nationality or rooms). */
  const searched = new Map<string, Searched>();

  const getQuote = (id: string) => duffel.call('stays quote', (d) => d.stays.quotes.get(id) as Promise<{ data: Quote }>, { safe: true });
  const newQuote = (rateId: string) => duffel.call('stays quote', (d) => d.stays.quotes.create(rateId) as Promise<{ data: Quote }>);

  async function cities() {
    if (cityList && Date.now() - cityList.at < 3_600_000) return cityList.list;
    const byCode = new Map<string, DuffelAirport[]>();
    let after: string | undefined;
    for (;;) {
      const page = await duffel.page('airports', (d, cursor) => d.airports.list({ limit: 200, ...(cursor ? { after: cursor } : {}) }), after);
      for (const a of page.items as DuffelAirport[]) {
        const code = a.iata_city_code ?? a.iata_code;
        if (!code) continue;
        byCode.set(code, [...(byCode.get(code) ?? []), a]);
      }
      if (!page.after) break;
      after = page.after;
    }
    const found = [...byCode].map(([code, airports]) => {
      const first = airports[0]!;
      const info: PlaceInfo = {
        name: first.city?.name ?? first.city_name ?? first.name,
        country: first.iata_country_code,
        code,
        // A city's point is the middle of its airports: hotels are searched around it.
        latitude: airports.reduce((s, a) => s + a.latitude, 0) / airports.length,
        longitude: airports.reduce((s, a) => s + a.longitude, 0) / airports.length,
      };
      return { externalId: code, info };
    });
    const ids = await places.idsOf('city', found);
    const list = found.map(({ externalId, info }, i) => ({
      id: ids[i]!,
      name: info.name,
      iata_code: externalId,
      country: info.country,
      domestic: info.country === DOMESTIC_COUNTRY,
      latitude: info.latitude!,
      longitude: info.longitude!,
    }));
    cityList = { at: Date.now(), list };
    return list;
  }

  /** The city a hotel is in: the nearest of the cities, for a hotel the registry has not seen in a city search. */
  async function nearestCity(a: StaysAccommodation): Promise<number> {
    const at = a.location.geographic_coordinates;
    const list = await cities();
    if (!at || !list.length) return 0;
    const d = (c: { latitude: number; longitude: number }) => (c.latitude - at.latitude) ** 2 + (c.longitude - at.longitude) ** 2;
    return list.reduce((best, c) => (d(c) < d(best) ? c : best)).id;
  }

  async function hotelId(a: StaysAccommodation, cityId?: number): Promise<{ id: number; city_id: number }> {
    const known = await places.find('hotel', a.id);
    const city_id = cityId ?? known?.info.city_id ?? (await nearestCity(a));
    const info: PlaceInfo = { name: a.name, country: a.location.address.country_code, city_id, stars: a.rating ?? 0, address: addressOf(a) };
    return { id: await places.idOf('hotel', a.id, info), city_id };
  }

  function remember(rateId: string, what: Searched) {
    if (searched.size >= REMEMBERED_RATES) searched.delete(searched.keys().next().value!);
    searched.set(rateId, what);
  }

  /** The stay a quote is for: its hotel, room, board and guests. */
  async function stayOf(q: Quote): Promise<Stay & { rate: Rate }> {
    const room = q.accommodation.rooms[0];
    const rate = room?.rates[0] as Rate | undefined;
    if (!room || !rate) throw new SupplierUnavailableError(`Duffel answered quote ${q.id} without its room and rate`);
    const hotel = await hotelId(q.accommodation);
    return {
      hotel_id: hotel.id,
      hotel_name: q.accommodation.name,
      city_id: hotel.city_id,
      room_name: room.name,
      board: boardOf(rate.board_type),
      refundable: refundableOf(rate, now()),
      check_in: q.check_in_date,
      check_out: q.check_out_date,
      rooms: searched.get(rate.id)?.rooms ?? occupancyOf(q.rooms, q.guests),
      rate,
    };
  }

  /** A quote's price, timeline and expiry; a quote without an expiry holds as long as its rate. */
  function termsOf(q: Quote, rate: Rate) {
    const total = moneyOf(q.total_amount, q.total_currency);
    const expires_at = q.expires_at ?? rate.expires_at;
    if (!expires_at) throw new SupplierUnavailableError(`Duffel answered quote ${q.id} without saying until when it holds`);
    return { total, expires_at, cancellation_timeline: timelineOf(rate, total, now().toISOString()) };
  }

  async function holdOf(q: Quote, booking: StaysBooking | null): Promise<StayHold> {
    const { rate, ...stay } = await stayOf(q);
    const terms = termsOf(q, rate);
    const status: StayHold['status'] = booking
      ? booking.status === 'cancelled'
        ? 'cancelled'
        : 'booked'
      : Date.parse(terms.expires_at) <= now().getTime()
        ? 'expired'
        : 'held';
    return { ...stay, hold_id: q.id, status, ...terms, booking_reference: booking?.id ?? null };
  }

  /** The booking made from a quote, or under a client reference, if there is one. */
  async function findBooking(match: (metadata: Record<string, string>) => boolean): Promise<StaysBooking | null> {
    let after: string | undefined;
    for (let page = 0; page < BOOKING_SCAN_PAGES; page++) {
      const res = await duffel.page('stays bookings', (d, cursor) => d.stays.bookings.list({ limit: 200, ...(cursor ? { after: cursor } : {}) }), after);
      const found = res.items.find((b) => b.metadata && match(b.metadata as Record<string, string>));
      if (found) return found;
      if (!res.after) return null;
      after = res.after;
    }
    return null;
  }
  const bookingOfQuote = (quoteId: string) => findBooking((m) => m.quote_id === quoteId);

  return {
    name: 'duffel',
    requiresPhone: true,

    cities: async () => (await cities()).map(({ latitude: _lat, longitude: _lon, ...c }) => c),

    hotel: async (id): Promise<SupplierHotelDetail> => {
      const known = await places.lookup('hotel', id);
      if (!known) throw new SupplierRejectedError(`hotel ${id} is unknown`, 404);
      const city = known.info.city_id ? await places.lookup('city', known.info.city_id) : null;
      return {
        hotel_id: id,
        name: known.info.name,
        stars: known.info.stars ?? 0,
        city_id: known.info.city_id ?? 0,
        city: city?.info.name ?? null,
        address: known.info.address ?? '',
        domestic: known.info.country === DOMESTIC_COUNTRY,
        // Duffel tells a hotel's rooms with its rates, for a stay: a search shows them.
        rooms: [],
        amenities: [],
        policies: {},
      };
    },

    search: async (req) => {
      const common = { check_in_date: req.check_in, check_out_date: req.check_out, rooms: req.rooms.length, guests: guestsOf(req.rooms) };
      let cityId: number | undefined;
      let params;
      if (req.city_id !== undefined) {
        const city = await places.lookup('city', req.city_id);
        if (!city) throw new SupplierRejectedError(`city ${req.city_id} is unknown`, 404);
        cityId = city.id;
        params = {
          ...common,
          location: { radius: CITY_RADIUS_KM, geographic_coordinates: { latitude: city.info.latitude!, longitude: city.info.longitude! } },
        };
      } else if (req.hotel_id !== undefined) {
        const hotel = await places.lookup('hotel', req.hotel_id);
        if (!hotel) throw new SupplierRejectedError(`hotel ${req.hotel_id} is unknown`, 404);
        cityId = hotel.info.city_id;
        params = { ...common, accommodation: { ids: [hotel.externalId] } };
      } else {
        throw new SupplierRejectedError('a search names a city or a hotel', 422);
      }
      const found = await duffel.call('stays search', (d) => d.stays.search(params), { safe: true });
      const results = found.results.slice(0, RATED_HOTELS);
      const rated = await Promise.all(
        results.map(async (r) => {
          try {
            return await duffel.call('stays rates', (d) => d.stays.searchResults.fetchAllRates(r.id), { safe: true });
          } catch (err) {
            // A result gone between the search and its rates is a hotel less, not a failed search.
            if (err instanceof SupplierRejectedError) return null;
            throw err;
          }
        }),
      );
      const at = now();
      const hotels: SupplierHotel[] = [];
      for (const r of rated) {
        if (!r) continue;
        const a = r.accommodation;
        const hotel = await hotelId(a, cityId);
        const guests = req.rooms.reduce((s, o) => s + o.adults + o.children_ages.length, 0);
        const rates: SupplierRate[] = a.rooms.flatMap((room) =>
          room.rates.map((rate) => {
            const total = moneyOf(rate.total_amount, rate.total_currency);
            remember(rate.id, { nationality: req.nationality, rooms: req.rooms, total });
            return {
              rate_id: rate.id,
              room_code: roomCodeOf(room.name),
              room_name: room.name,
              board: boardOf(rate.board_type),
              refundable: refundableOf(rate, at),
              total,
              rooms: req.rooms.length,
              // Duffel prices a rate for the searched guests and states no room's capacity.
              max_occupancy: Math.ceil(guests / Math.max(req.rooms.length, 1)),
            };
          }),
        );
        if (!rates.length) continue;
        hotels.push({
          hotel_id: hotel.id,
          name: a.name,
          stars: a.rating ?? 0,
          city_id: hotel.city_id,
          address: addressOf(a),
          domestic: a.location.address.country_code === DOMESTIC_COUNTRY,
          rates,
        });
      }
      return { search_id: `stays-${found.created_at}-${randomUUID().slice(0, 8)}`, hotels };
    },

    // A rate Duffel no longer sells is its refusal (409): the partner's "no longer available".
    checkRate: async (rateId): Promise<RateQuote> => {
      const q = await newQuote(rateId);
      const { rate, ...stay } = await stayOf(q);
      return {
        ...stay,
        rate_id: rateId,
        // Duffel prices a stay without the guests' nationality; a rate this process did not find is told by its hotel's country.
        nationality: searched.get(rateId)?.nationality ?? q.accommodation.location.address.country_code,
        searched_total: searched.get(rateId)?.total ?? null,
        ...termsOf(q, rate),
      };
    },

    // A contact the hotel would refuse at booking is refused now, before anything is held.
    hold: async (req) => {
      if (req.contact) e164(req.contact.phone_number);
      else if (req.guests?.length) throw new SupplierRejectedError('the hotel books guests only with a contact phone number and email', 422);
      return holdOf(await newQuote(req.rateId), null);
    },

    // The engine keeps the guests until the booking: the quote is as it was.
    addGuests: async (holdId, _guests, contact) => {
      e164(contact.phone_number);
      return holdOf(await getQuote(holdId), null);
    },

    book: async (holdId, req) => {
      const quote = await getQuote(holdId);
      if (!req.contact) throw new SupplierRejectedError('the hotel needs a contact (email and phone) to book', 422);
      const guests = req.guests.flat().map((g: GuestDetails) => ({ given_name: g.first_name, family_name: g.last_name }));
      if (!guests.length) throw new SupplierRejectedError('the hotel needs the guests’ names to book', 422);
      const contact: Contact = req.contact;
      const payload = {
        quote_id: holdId,
        guests,
        email: contact.email,
        phone_number: e164(contact.phone_number),
        metadata: { client_reference: req.clientReference, quote_id: holdId },
      };
      try {
        return await holdOf(quote, await duffel.call('stays booking', (d) => d.stays.bookings.create(payload)));
      } catch (err) {
        // A booking made under this reference whose answer was lost has used the quote up: find it.
        if (err instanceof SupplierUnavailableError || (err instanceof SupplierRejectedError && err.status === 409)) {
          const made = await findBooking((m) => m.client_reference === req.clientReference && m.quote_id === holdId);
          if (made) return holdOf(quote, made);
        }
        throw err;
      }
    },

    retrieve: async (holdId) => {
      const quote = await getQuote(holdId);
      return holdOf(quote, await bookingOfQuote(holdId));
    },

    // A quote lapses on its own: giving it back is no call to Duffel.
    release: async (holdId) => {
      const hold = await holdOf(await getQuote(holdId), await bookingOfQuote(holdId));
      return hold.status === 'held' ? { ...hold, status: 'released' } : hold;
    },

    // Duffel refunds by the rate's cancellation timeline and does not state the refund: the engine reads the timeline.
    cancel: async (bookingId) => {
      try {
        await duffel.call('stays booking cancellation', (d) => d.stays.bookings.cancel(bookingId));
      } catch (err) {
        // Cancelled already (a cancellation whose answer was lost): the booking tells.
        const lost = err instanceof SupplierUnavailableError || (err instanceof SupplierRejectedError && err.status === 410);
        if (!lost) throw err;
        const booking = await duffel.call('stays booking', (d) => d.stays.bookings.get(bookingId), { safe: true });
        if (booking.status !== 'cancelled') throw err;
      }
      return { status: 'cancelled', refund: null };
    },
  };
}
