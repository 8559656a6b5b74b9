/**
 * The simulator's bedbank: search, rate check, hold (prebook), guests, confirm, release,
 * cancel. Deterministic inventory and prices; holds, bookings and allotment in memory.
 * Sandbox scenarios (X-Sandbox-Scenario): price_changed (check and hold), supplier_reject,
 * supplier_flaky, supplier_slow, supplier_down and supplier_lost_response (confirm),
 * cancel_reject (cancel).
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { SANDBOX_SCENARIO_HEADER } from '../../http';
import { downAnswer, madeAnswer } from '../unreachable';
import { AllotmentBook } from './allotment';
import { CITIES, findCity, findHotel, findRoom, hotelsInCity, type Hotel, type RoomType } from './inventory';
import {
  BOARDS,
  cancellationPolicy,
  changedPrice,
  fits,
  parseDate,
  quote,
  stayNights,
  type Board,
  type Occupancy,
  type PenaltyStep,
} from './pricing';
import { signRateKey, verifyRateKey, type RateKeyPayload } from './rate-key';

/** Scenarios only the hotel side knows, on top of supplier_reject / supplier_flaky / supplier_slow. */
export const HOTEL_SCENARIOS = ['price_changed', 'cancel_reject'] as const;

export const DEFAULT_HOLD_TTL_MS = 15 * 60_000;
export const DEFAULT_PREBOOK_TTL_MS = 5 * 60_000;
export const DEFAULT_RATE_KEY_TTL_MS = 30 * 60_000;
/** Longest stay one search may ask for. */
export const MAX_NIGHTS = 30;
const CURRENCY = 'IRT';

export interface HotelRoutesOptions {
  /** How long supplier_slow takes on confirm. */
  slowMs: number;
  /** A hold with guest names lives this long (and again after guests are added). */
  holdTtlMs?: number;
  /** A hold without guest names (a prebook) lives this long. */
  prebookTtlMs?: number;
  /** A rate key is honoured this long after the search that issued it. */
  rateKeyTtlMs?: number;
  /** supplier_flaky answers 503 this many times per client reference, then succeeds. */
  flakyFailures: number;
  /** supplier_down answers 503 to this many calls of a client reference. */
  downFailures: number;
}

const Nationality = z.string().regex(/^[A-Z]{2}$/, 'nationality must be 2 uppercase letters (ISO 3166-1 alpha-2)');
const CalendarDate = z.string().refine((s) => parseDate(s) !== null, 'dates must be YYYY-MM-DD');
const ClientReference = z.string().min(1).max(300);
const RoomOccupancy = z.object({
  adults: z.number().int().min(1),
  children_ages: z.array(z.number().int().min(0).max(17)).default([]),
});

const AvailabilityBody = z
  .object({
    city_id: z.number().int().optional(),
    hotel_id: z.number().int().optional(),
    check_in: CalendarDate,
    check_out: CalendarDate,
    nationality: Nationality,
    rooms: z.array(RoomOccupancy).min(1).max(8),
    domestic: z.boolean().optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.city_id === undefined) === (b.hotel_id === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of city_id and hotel_id' });
    }
    const nights = stayNights(b.check_in, b.check_out).length;
    if (nights < 1) ctx.addIssue({ code: 'custom', path: ['check_out'], message: 'check_out must be after check_in' });
    if (nights > MAX_NIGHTS) ctx.addIssue({ code: 'custom', path: ['check_out'], message: `a stay is at most ${MAX_NIGHTS} nights` });
  });

const RateKeyBody = z.object({ rate_key: z.string().min(1).max(10_000) });

const Guest = z.object({
  first_name: z.string().trim().min(1).max(100),
  last_name: z.string().trim().min(1).max(100),
  nationality: Nationality,
  national_id: z.string().trim().min(1).max(30).optional(),
  passport_number: z.string().trim().min(1).max(30).optional(),
});
type Guest = z.infer<typeof Guest>;
/** One array of guests per room, in the order of the rate's rooms. */
const Guests = z.array(z.array(Guest).min(1)).min(1).max(8);
const Contact = z.object({ phone_number: z.string().trim().min(5).max(30), email: z.email() });
type Contact = z.infer<typeof Contact>;

const HoldBody = z.object({
  rate_key: z.string().min(1).max(10_000),
  client_reference: ClientReference,
  guests: Guests.optional(),
  contact: Contact.optional(),
});
const GuestsBody = z.object({ guests: Guests, contact: Contact.optional() });
const ReferenceBody = z.object({ client_reference: ClientReference });
const AllotmentBody = z.object({ hotel_id: z.number().int(), room_code: z.string().min(1), count: z.number().int().min(0) });

type HoldStatus = 'prebooked' | 'held' | 'confirmed' | 'released' | 'expired' | 'cancelled';

interface StoredHold {
  hold_id: string;
  client_reference: string;
  status: HoldStatus;
  expires_at_ms: number;
  total_price_minor: number;
  hotel: Hotel;
  room: RoomType;
  board: Board;
  refundable: boolean;
  check_in: string;
  check_out: string;
  nationality: string;
  rooms: Occupancy[];
  nights: string[];
  cancellation_policy: PenaltyStep[];
  confirmation_number: string | null;
  guests: Guest[][] | null;
  contact: Contact | null;
  /** True while this hold's rooms are taken out of the allotment. */
  holds_rooms: boolean;
  /** The allotment epoch the rooms were taken in (see AllotmentBook.set). */
  epoch: number;
}

function invalid(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `invalid ${what}: ${path}${issue?.message ?? 'malformed'}`;
}

async function jsonBody(c: Context): Promise<unknown> {
  return c.req.json().catch(() => null);
}

/** 'CNF-' + 8 base-36 characters: a bijection of the counter, so numbers look unrelated yet never repeat. */
function confirmationNumber(sequence: number): string {
  const space = 36n ** 8n;
  const scrambled = (BigInt(sequence) * 2654435761n) % space; // odd prime, coprime with 36^8
  return `CNF-${scrambled.toString(36).toUpperCase().padStart(8, '0')}`;
}

function guestsProblem(guests: Guest[][], rooms: Occupancy[]): string | null {
  if (guests.length !== rooms.length) return `guests must hold one list per room (${rooms.length})`;
  for (const [i, list] of guests.entries()) {
    const room = rooms[i];
    if (room && list.length > room.adults + room.children_ages.length) {
      return `room ${i + 1} has ${room.adults + room.children_ages.length} guests, not ${list.length}`;
    }
  }
  return null;
}

export function hotelRoutes(opts: HotelRoutesOptions) {
  const holdTtlMs = opts.holdTtlMs ?? DEFAULT_HOLD_TTL_MS;
  const prebookTtlMs = opts.prebookTtlMs ?? DEFAULT_PREBOOK_TTL_MS;
  const rateKeyTtlMs = opts.rateKeyTtlMs ?? DEFAULT_RATE_KEY_TTL_MS;

  const allotment = new AllotmentBook();
  const holds = new Map<string, StoredHold>();
  const holdsByReference = new Map<string, StoredHold>();
  const bookings = new Map<string, StoredHold>();
  /** Holds that still may expire (prebooked or held). */
  const open = new Set<StoredHold>();
  const confirmAttempts = new Map<string, number>();
  let holdSequence = 0;
  let confirmationSequence = 0;

  function giveRoomsBack(hold: StoredHold): void {
    if (!hold.holds_rooms) return;
    hold.holds_rooms = false;
    allotment.giveBack(hold.hotel.hotel_id, hold.room.room_code, hold.nights, hold.rooms.length, hold.epoch);
  }

  /** Lazy expiry: run at the start of every synchronous section, so state is current before use. */
  function sweep(now = Date.now()): void {
    for (const hold of open) {
      if (now >= hold.expires_at_ms) {
        hold.status = 'expired';
        open.delete(hold);
        giveRoomsBack(hold);
      }
    }
  }

  function view(h: StoredHold) {
    return {
      hold_id: h.hold_id,
      client_reference: h.client_reference,
      status: h.status,
      expires_at: new Date(h.expires_at_ms).toISOString(),
      total_price_minor: h.total_price_minor,
      currency: CURRENCY,
      hotel_id: h.hotel.hotel_id,
      hotel_name: h.hotel.name,
      city_id: h.hotel.city_id,
      room_code: h.room.room_code,
      room_name: h.room.room_name,
      board: h.board,
      refundable: h.refundable,
      check_in: h.check_in,
      check_out: h.check_out,
      rooms: h.rooms,
      cancellation_policy: h.cancellation_policy,
      confirmation_number: h.confirmation_number,
    };
  }

  type Offer = { payload: RateKeyPayload; hotel: Hotel; room: RoomType; nights: string[] };
  function openRateKey(rateKey: string, now: number): { offer: Offer } | { error: string } {
    const verified = verifyRateKey(rateKey, rateKeyTtlMs, now);
    if (!verified.ok) return { error: verified.error };
    const payload = verified.payload;
    const hotel = findHotel(payload.hotel_id);
    const room = hotel && findRoom(hotel, payload.room_code);
    if (!hotel || !room) return { error: 'invalid rate_key' };
    return { offer: { payload, hotel, room, nights: stayNights(payload.check_in, payload.check_out) } };
  }

  /** The offer's price now (7% more under price_changed) and its cancellation policy. */
  function priceNow(offer: Offer, priceChanged: boolean, now: number) {
    const p = offer.payload;
    const original = p.total_price_minor;
    const firstNight = quote({ ...p, hotel: offer.hotel, room: offer.room }).first_night_minor;
    const total = priceChanged ? changedPrice(original) : original;
    const penaltyFirstNight = priceChanged ? changedPrice(firstNight) : firstNight;
    return { original, total, policy: cancellationPolicy(p.refundable, p.check_in, total, penaltyFirstNight, now) };
  }

  const app = new Hono();

  app.get('/hotels/cities', (c) => c.json({ cities: CITIES }));

  // Static content of one hotel: rooms, amenities (by stars) and house policies.
  app.get('/hotels/:hotel_id{[0-9]+}', (c) => {
    const hotel = findHotel(Number(c.req.param('hotel_id')));
    if (!hotel) return c.json({ error: 'unknown hotel' }, 404);
    const amenities = ['Free Wi-Fi', '24-hour front desk', 'Air conditioning'];
    if (hotel.stars >= 3) amenities.push('Restaurant', 'Room service');
    if (hotel.stars >= 4) amenities.push('Fitness centre', 'Airport shuttle', 'Spa');
    if (hotel.stars === 5) amenities.push('Outdoor pool', 'Concierge');
    return c.json({
      ...hotel,
      city: findCity(hotel.city_id)?.name ?? null,
      rooms: hotel.rooms.map((r) => ({ room_code: r.room_code, room_name: r.room_name, max_occupancy: r.max_occupancy })),
      amenities,
      policies: {
        check_in_from: '14:00',
        check_out_until: '12:00',
        children: 'Children under 2 stay free in existing beds',
        cancellation: 'Refundable rates: free until 3 days before arrival, then the first night; from arrival day the whole stay',
      },
    });
  });

  app.post('/hotels/availability', async (c) => {
    const parsed = AvailabilityBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('availability request', parsed.error) }, 400);
    const req = parsed.data;
    const now = Date.now();
    sweep(now);

    let candidates: Hotel[];
    if (req.city_id !== undefined) {
      if (!findCity(req.city_id)) return c.json({ error: `unknown city ${req.city_id}` }, 404);
      candidates = hotelsInCity(req.city_id);
    } else {
      const hotel = findHotel(req.hotel_id ?? -1);
      if (!hotel) return c.json({ error: `unknown hotel ${req.hotel_id}` }, 404);
      candidates = [hotel];
    }
    if (req.domestic !== undefined) candidates = candidates.filter((h) => h.domestic === req.domestic);

    const nights = stayNights(req.check_in, req.check_out);
    const hotels = candidates
      .map((hotel) => {
        const rates = hotel.rooms
          .filter((room) => req.rooms.every((o) => fits(room, o)))
          .filter((room) => allotment.minAvailable(hotel.hotel_id, room.room_code, nights) >= req.rooms.length)
          .flatMap((room) =>
            BOARDS.flatMap((board) =>
              [true, false].map((refundable) => {
                const stay = { board, refundable, check_in: req.check_in, check_out: req.check_out, nationality: req.nationality, rooms: req.rooms };
                const { total_price_minor } = quote({ ...stay, hotel, room });
                const rate_key = signRateKey({ hotel_id: hotel.hotel_id, room_code: room.room_code, ...stay, total_price_minor, issued_at: now });
                return {
                  rate_key,
                  room_code: room.room_code,
                  room_name: room.room_name,
                  board,
                  refundable,
                  total_price_minor,
                  currency: CURRENCY,
                  rooms: req.rooms.length,
                  max_occupancy: room.max_occupancy,
                };
              }),
            ),
          )
          .sort((a, b) => a.total_price_minor - b.total_price_minor);
        return {
          hotel_id: hotel.hotel_id,
          name: hotel.name,
          stars: hotel.stars,
          city_id: hotel.city_id,
          address: hotel.address,
          domestic: hotel.domestic,
          rates,
        };
      })
      .filter((h) => h.rates.length > 0)
      .sort((a, b) => (a.rates[0]?.total_price_minor ?? 0) - (b.rates[0]?.total_price_minor ?? 0) || a.hotel_id - b.hotel_id);

    return c.json({ search_id: randomUUID(), hotels });
  });

  app.post('/hotels/rates/check', async (c) => {
    const parsed = RateKeyBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('rate check', parsed.error) }, 400);
    const now = Date.now();
    sweep(now);
    const opened = openRateKey(parsed.data.rate_key, now);
    if ('error' in opened) return c.json({ error: opened.error }, 400);
    const { offer } = opened;
    const p = offer.payload;
    if (allotment.minAvailable(p.hotel_id, p.room_code, offer.nights) < p.rooms.length) {
      return c.json({ error: 'no longer available' }, 409);
    }
    const priceChanged = c.req.header(SANDBOX_SCENARIO_HEADER) === 'price_changed';
    const price = priceNow(offer, priceChanged, now);
    return c.json({
      rate_key: parsed.data.rate_key,
      hotel_id: offer.hotel.hotel_id,
      hotel_name: offer.hotel.name,
      city_id: offer.hotel.city_id,
      room_code: offer.room.room_code,
      room_name: offer.room.room_name,
      board: p.board,
      refundable: p.refundable,
      check_in: p.check_in,
      check_out: p.check_out,
      nationality: p.nationality,
      rooms: p.rooms,
      total_price_minor: price.total,
      original_price_minor: price.original,
      price_changed: priceChanged,
      currency: CURRENCY,
      cancellation_policy: price.policy,
      expires_at: new Date(p.issued_at + rateKeyTtlMs).toISOString(),
    });
  });

  app.post('/hotels/holds', async (c) => {
    const parsed = HoldBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('hold request', parsed.error) }, 400);
    const req = parsed.data;
    // From here on nothing awaits: the de-duplication and the allotment take are atomic.
    const now = Date.now();
    sweep(now);
    const known = holdsByReference.get(req.client_reference);
    if (known) return c.json(view(known), 200);

    const opened = openRateKey(req.rate_key, now);
    if ('error' in opened) return c.json({ error: opened.error }, 400);
    const { offer } = opened;
    const p = offer.payload;
    if (req.guests) {
      const problem = guestsProblem(req.guests, p.rooms);
      if (problem) return c.json({ error: `invalid hold request: ${problem}` }, 400);
    }
    const price = priceNow(offer, c.req.header(SANDBOX_SCENARIO_HEADER) === 'price_changed', now);
    const epoch = allotment.take(p.hotel_id, p.room_code, offer.nights, p.rooms.length);
    if (epoch === null) return c.json({ error: 'sold out: no room left for these dates' }, 409);

    holdSequence += 1;
    const hold: StoredHold = {
      hold_id: `H${100_000 + holdSequence}`,
      client_reference: req.client_reference,
      status: req.guests ? 'held' : 'prebooked',
      expires_at_ms: now + (req.guests ? holdTtlMs : prebookTtlMs),
      total_price_minor: price.total,
      hotel: offer.hotel,
      room: offer.room,
      board: p.board,
      refundable: p.refundable,
      check_in: p.check_in,
      check_out: p.check_out,
      nationality: p.nationality,
      rooms: p.rooms,
      nights: offer.nights,
      cancellation_policy: price.policy,
      confirmation_number: null,
      guests: req.guests ?? null,
      contact: req.contact ?? null,
      holds_rooms: true,
      epoch,
    };
    holds.set(hold.hold_id, hold);
    holdsByReference.set(hold.client_reference, hold);
    open.add(hold);
    return c.json(view(hold), 201);
  });

  app.get('/hotels/holds', (c) => {
    sweep();
    const ref = c.req.query('client_reference');
    const hold = ref ? holdsByReference.get(ref) : undefined;
    return hold ? c.json(view(hold)) : c.json({ error: 'no hold with this client_reference' }, 404);
  });

  app.get('/hotels/holds/:hold_id', (c) => {
    sweep();
    const hold = holds.get(c.req.param('hold_id'));
    return hold ? c.json(view(hold)) : c.json({ error: 'unknown hold' }, 404);
  });

  app.post('/hotels/holds/:hold_id/guests', async (c) => {
    const body = await jsonBody(c);
    sweep();
    const hold = holds.get(c.req.param('hold_id'));
    if (!hold) return c.json({ error: 'unknown hold' }, 404);
    if (hold.status !== 'prebooked' && hold.status !== 'held') return c.json({ error: 'hold is no longer active' }, 410);
    const parsed = GuestsBody.safeParse(body);
    if (!parsed.success) return c.json({ error: invalid('guests', parsed.error) }, 400);
    const problem = guestsProblem(parsed.data.guests, hold.rooms);
    if (problem) return c.json({ error: `invalid guests: ${problem}` }, 400);
    hold.guests = parsed.data.guests;
    hold.contact = parsed.data.contact ?? hold.contact;
    hold.status = 'held';
    hold.expires_at_ms = Date.now() + holdTtlMs;
    return c.json(view(hold), 200);
  });

  app.post('/hotels/holds/:hold_id/confirm', async (c) => {
    const body = await jsonBody(c);
    sweep();
    const hold = holds.get(c.req.param('hold_id'));
    if (!hold) return c.json({ error: 'unknown hold' }, 404);
    const parsed = ReferenceBody.safeParse(body);
    if (!parsed.success) return c.json({ error: invalid('confirmation', parsed.error) }, 400);
    const scenario = c.req.header(SANDBOX_SCENARIO_HEADER);
    // A repeated confirm answers the booking as it stands (confirmed, or cancelled since).
    if (hold.status === 'confirmed' || hold.status === 'cancelled') return madeAnswer(c, scenario, () => c.json(view(hold), 200));
    if (hold.status === 'expired' || hold.status === 'released') return c.json({ error: 'hold is no longer active' }, 410);
    if (hold.status === 'prebooked') return c.json({ error: 'guest names are required before confirmation' }, 409);

    const ref = parsed.data.client_reference;
    const attempt = (confirmAttempts.get(ref) ?? 0) + 1;
    confirmAttempts.set(ref, attempt);
    if (scenario === 'supplier_reject') return c.json({ error: 'the hotel rejected the booking: rooms overbooked for these dates' }, 422);
    const down = downAnswer(c, scenario, attempt, opts);
    if (down) return down;
    if (scenario === 'supplier_flaky' && attempt <= opts.flakyFailures) {
      return c.json({ error: `temporarily unavailable (attempt ${attempt})` }, 503);
    }
    if (scenario === 'supplier_slow') {
      await new Promise((r) => setTimeout(r, opts.slowMs));
      // Meanwhile a duplicate may have confirmed it, or it may have expired or been released.
      sweep();
      const status = hold.status as HoldStatus; // TS keeps the narrowing from before the await
      if (status === 'confirmed' || status === 'cancelled') return c.json(view(hold), 200);
      if (status !== 'held') return c.json({ error: 'hold is no longer active' }, 410);
    }

    confirmationSequence += 1;
    hold.status = 'confirmed';
    hold.confirmation_number = confirmationNumber(confirmationSequence);
    open.delete(hold);
    bookings.set(hold.confirmation_number, hold);
    return madeAnswer(c, scenario, () => c.json(view(hold), 200));
  });

  app.post('/hotels/holds/:hold_id/release', (c) => {
    sweep();
    const hold = holds.get(c.req.param('hold_id'));
    if (!hold) return c.json({ error: 'unknown hold' }, 404);
    if (hold.status === 'confirmed' || hold.status === 'cancelled') {
      return c.json({ error: 'hold is confirmed: cancel the booking instead' }, 409);
    }
    if (hold.status === 'prebooked' || hold.status === 'held') {
      hold.status = 'released';
      open.delete(hold);
      giveRoomsBack(hold);
    }
    return c.json(view(hold), 200);
  });

  app.get('/hotels/bookings/:confirmation_number', (c) => {
    sweep();
    const booking = bookings.get(c.req.param('confirmation_number'));
    return booking ? c.json(view(booking)) : c.json({ error: 'unknown booking' }, 404);
  });

  app.post('/hotels/bookings/:confirmation_number/cancel', async (c) => {
    const body = await jsonBody(c);
    sweep();
    const booking = bookings.get(c.req.param('confirmation_number'));
    if (!booking) return c.json({ error: 'unknown booking' }, 404);
    const parsed = ReferenceBody.safeParse(body);
    if (!parsed.success) return c.json({ error: invalid('cancellation', parsed.error) }, 400);
    const answer = () => ({ confirmation_number: booking.confirmation_number, hold_id: booking.hold_id, status: 'cancelled' as const });
    if (booking.status === 'cancelled') return c.json(answer(), 200);
    if (c.req.header(SANDBOX_SCENARIO_HEADER) === 'cancel_reject') {
      return c.json({ error: 'the hotel refused the cancellation' }, 422);
    }
    booking.status = 'cancelled';
    giveRoomsBack(booking);
    return c.json(answer(), 200);
  });

  app.post('/_control/hotels/allotment', async (c) => {
    const parsed = AllotmentBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('allotment', parsed.error) }, 400);
    const { hotel_id, room_code, count } = parsed.data;
    sweep();
    const hotel = findHotel(hotel_id);
    if (!hotel || !findRoom(hotel, room_code)) return c.json({ error: 'unknown hotel or room' }, 404);
    allotment.set(hotel_id, room_code, count);
    return c.json({ hotel_id, room_code, count });
  });

  return app;
}
