/**
 * The simulator's airline/GDS: airports, search, revalidate, fare rules, baggage, book
 * (a PNR with a ticket time limit), ticket, cancel, refund. Deterministic timetable and
 * fares; bookings and seats in memory. Sandbox scenarios (X-Sandbox-Scenario):
 * price_changed (revalidate), supplier_reject, supplier_flaky, supplier_slow, supplier_down
 * and supplier_lost_response (ticket), refund_reject (refund).
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { SANDBOX_SCENARIO_HEADER } from '../../http';
import { downAnswer, madeAnswer } from '../unreachable';
import { parseDate } from '../hotels/pricing';
import { signFareCode, verifyFareCode, type FareCodePayload } from './fare-code';
import { AIRLINES, AIRPORTS, CABINS, findAirport, findFlight, type Cabin } from './inventory';
import {
  FAMILIES,
  PASSENGER_TYPES,
  baggageAllowance,
  changedPrice,
  familiesOf,
  legBaseMinor,
  passengerCount,
  penalties,
  quote,
  type FareFamily,
  type Passengers,
  type PassengerType,
} from './pricing';
import { SeatBook, type SeatKey } from './seats';
import { legArrival, legDeparture, legsFor, segmentOn, type Leg, type Segment } from './schedule';

/** Scenarios only the air side knows, on top of supplier_reject / supplier_flaky / supplier_slow. */
export const AIR_SCENARIOS = ['price_changed', 'refund_reject'] as const;

export const DEFAULT_TICKET_TIME_LIMIT_MS = 2 * 60 * 60_000;
export const DEFAULT_FARE_CODE_TTL_MS = 30 * 60_000;
/** Ticketing closes this long before the first departure: the ticket time limit is never later. */
export const TICKETING_CLOSES_BEFORE_DEPARTURE_MS = 3 * 60 * 60_000;
/** Search offers only trips whose first flight leaves at least this long from now. */
export const MIN_LEAD_TIME_MS = 4 * 60 * 60_000;
/** A return flight leaves at least this long after the outbound trip lands. */
export const MIN_STAY_MS = 2 * 60 * 60_000;
/** Adults + children on one booking (infants sit on laps and do not count). */
export const MAX_SEATED_PASSENGERS = 9;
const CURRENCY = 'IRT';

export interface AirRoutesOptions {
  /** How long supplier_slow takes on ticketing. */
  slowMs: number;
  /** A booking must be ticketed within this long (and never later than 3 h before departure). */
  ticketTimeLimitMs?: number;
  /** A fare source code is honoured this long after the search that issued it. */
  fareCodeTtlMs?: number;
  /** supplier_flaky answers 503 this many times per client reference, then succeeds. */
  flakyFailures: number;
  /** supplier_down answers 503 to this many calls of a client reference. */
  downFailures: number;
}

const AirportCode = z.string().regex(/^[A-Z]{3}$/, 'airport codes are 3 uppercase letters (IATA)');
const CalendarDate = z.string().refine((s) => parseDate(s) !== null, 'dates must be YYYY-MM-DD');
const Nationality = z.string().regex(/^[A-Z]{2}$/, 'nationality must be 2 uppercase letters (ISO 3166-1 alpha-2)');
const ClientReference = z.string().min(1).max(300);
const FareSourceCode = z.string().min(1).max(10_000);

const SearchBody = z
  .object({
    origin: AirportCode,
    destination: AirportCode,
    departure_date: CalendarDate,
    return_date: CalendarDate.optional(),
    adults: z.number().int().min(1),
    children: z.number().int().min(0).default(0),
    infants: z.number().int().min(0).default(0),
    cabin: z.enum(CABINS),
  })
  .superRefine((b, ctx) => {
    if (b.return_date !== undefined && b.return_date < b.departure_date) {
      ctx.addIssue({ code: 'custom', path: ['return_date'], message: 'return_date must not be before departure_date' });
    }
    if (b.infants > b.adults) ctx.addIssue({ code: 'custom', path: ['infants'], message: 'every infant needs an adult: infants must not outnumber adults' });
    if (b.adults + b.children > MAX_SEATED_PASSENGERS) {
      ctx.addIssue({ code: 'custom', path: ['children'], message: `at most ${MAX_SEATED_PASSENGERS} adults and children on one booking` });
    }
  });

const FareCodeBody = z.object({ fare_source_code: FareSourceCode });

const Traveler = z.object({
  first_name: z.string().trim().min(1).max(100),
  last_name: z.string().trim().min(1).max(100),
  birth_date: CalendarDate,
  gender: z.enum(['male', 'female']),
  passenger_type: z.enum(PASSENGER_TYPES),
  nationality: Nationality,
  national_id: z.string().trim().min(1).max(30).optional(),
  passport_number: z.string().trim().min(1).max(30).optional(),
  passport_expiry_date: CalendarDate.optional(),
});
type Traveler = z.infer<typeof Traveler>;
const Contact = z.object({ phone_number: z.string().trim().min(5).max(30), email: z.email() });
type Contact = z.infer<typeof Contact>;

const BookingBody = z.object({
  fare_source_code: FareSourceCode,
  client_reference: ClientReference,
  travelers: z.array(Traveler).min(1).max(MAX_SEATED_PASSENGERS * 2),
  contact: Contact,
});
const ReferenceBody = z.object({ client_reference: ClientReference });
const SeatsBody = z.object({
  flight_number: z.string().min(1),
  date: CalendarDate,
  cabin: z.enum(CABINS),
  count: z.number().int().min(0),
});

type BookingStatus = 'booked' | 'ticketed' | 'cancelled' | 'expired' | 'refunded';

interface Ticket {
  traveler_index: number;
  first_name: string;
  last_name: string;
  passenger_type: PassengerType;
  ticket_number: string;
}

interface StoredBooking {
  booking_ref: string;
  pnr: string;
  client_reference: string;
  status: BookingStatus;
  ticket_time_limit_ms: number;
  total_price_minor: number;
  base_total_minor: number;
  cabin: Cabin;
  fare_family: FareFamily;
  refund_penalty_minor: number;
  legs: Leg[];
  travelers: Traveler[];
  contact: Contact;
  tickets: Ticket[];
  refund: { refunded_minor: number; penalty_minor: number } | null;
  seat_keys: SeatKey[];
  /** Adults + children: the seats taken on every segment. */
  seated: number;
  /** True while this booking's seats are taken out of the seat book. */
  holds_seats: boolean;
  /** The seat-book epochs the seats were taken in (see SeatBook.set). */
  epochs: number[];
}

function invalid(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `invalid ${what}: ${path}${issue?.message ?? 'malformed'}`;
}

async function jsonBody(c: Context): Promise<unknown> {
  return c.req.json().catch(() => null);
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** 6 base-36 characters: a bijection of the counter, so PNRs look unrelated yet never repeat. */
function pnrFor(sequence: number): string {
  const space = 36n ** 6n;
  const scrambled = (BigInt(sequence) * 2654435761n) % space; // coprime with 36^6
  return scrambled.toString(36).toUpperCase().padStart(6, '0');
}

function seatKeys(legs: Leg[], cabin: Cabin): SeatKey[] {
  return legs.flat().map((s) => ({ flight_number: s.flight.flight_number, date: s.date, cabin }));
}

function seatedOf(p: Passengers): number {
  return p.adults + p.children;
}

function segmentView(s: Segment, cabin: Cabin, family: FareFamily) {
  return {
    flight_number: s.flight.flight_number,
    airline: s.flight.airline,
    airline_name: AIRLINES[s.flight.airline].name,
    origin: s.flight.origin,
    destination: s.flight.destination,
    departure: new Date(s.departure_ms).toISOString(),
    arrival: new Date(s.arrival_ms).toISOString(),
    cabin,
    booking_class: FAMILIES[family].booking_class,
  };
}

function legsView(legs: Leg[], cabin: Cabin, family: FareFamily) {
  return legs.map((leg) => ({ segments: leg.map((s) => segmentView(s, cabin, family)) }));
}

function legsPayload(legs: Leg[]): FareCodePayload['legs'] {
  return legs.map((leg) => ({ segments: leg.map((s) => ({ flight_number: s.flight.flight_number, date: s.date })) }));
}

function percentText(percent: number): string {
  return `${percent}% of the base fare`;
}

function fareRules(family: FareFamily, baseTotalMinor: number) {
  const rules = FAMILIES[family];
  const p = penalties(family, baseTotalMinor);
  const refundText = !rules.refundable
    ? 'Non-refundable fare: on cancellation the base fare is forfeited and only the taxes are refunded.'
    : rules.refund_percent === 0
      ? 'Fully refundable before departure, without penalty.'
      : `Refundable before departure; the penalty is ${percentText(rules.refund_percent)}. Taxes are refunded in full.`;
  const changeText =
    rules.change_percent === 0
      ? 'Date and flight changes are free before departure; any fare difference is charged.'
      : `Date and flight changes are allowed before departure for ${percentText(rules.change_percent)}, plus any fare difference.`;
  const noShowText =
    rules.no_show_percent === 0
      ? 'No penalty for a no-show; the unused ticket is refundable.'
      : `After a no-show ${percentText(rules.no_show_percent)} is forfeited; taxes are refunded.`;
  return {
    fare_family: family,
    refundable: rules.refundable,
    refund_penalty_minor: p.refund_minor,
    change_penalty_minor: p.change_minor,
    rules: [
      { category: 'refund' as const, allowed: true, penalty_minor: p.refund_minor, text: refundText },
      { category: 'change' as const, allowed: true, penalty_minor: p.change_minor, text: changeText },
      { category: 'no_show' as const, allowed: true, penalty_minor: p.no_show_minor, text: noShowText },
    ],
  };
}

function travelersProblem(travelers: Traveler[], passengers: Passengers): string | null {
  for (const type of PASSENGER_TYPES) {
    const given = travelers.filter((t) => t.passenger_type === type).length;
    const expected = passengerCount(passengers, type);
    if (given !== expected) {
      return `travelers must match the fare: ${passengers.adults} ADT, ${passengers.children} CHD, ${passengers.infants} INF (got ${given} ${type})`;
    }
  }
  return null;
}

export function airRoutes(opts: AirRoutesOptions) {
  const ticketTimeLimitMs = opts.ticketTimeLimitMs ?? DEFAULT_TICKET_TIME_LIMIT_MS;
  const fareCodeTtlMs = opts.fareCodeTtlMs ?? DEFAULT_FARE_CODE_TTL_MS;

  const seats = new SeatBook();
  const bookings = new Map<string, StoredBooking>();
  const bookingsByReference = new Map<string, StoredBooking>();
  /** Bookings that still may expire (booked, not yet ticketed). */
  const open = new Set<StoredBooking>();
  const ticketAttempts = new Map<string, number>();
  let bookingSequence = 0;
  let ticketSequence = 0;

  function giveSeatsBack(b: StoredBooking): void {
    if (!b.holds_seats) return;
    b.holds_seats = false;
    seats.giveBack(b.seat_keys, b.seated, b.epochs);
  }

  /** Lazy expiry: run at the start of every synchronous section, so state is current before use. */
  function sweep(now = Date.now()): void {
    for (const b of open) {
      if (now >= b.ticket_time_limit_ms) {
        b.status = 'expired';
        open.delete(b);
        giveSeatsBack(b);
      }
    }
  }

  function view(b: StoredBooking) {
    return {
      booking_ref: b.booking_ref,
      client_reference: b.client_reference,
      pnr: b.pnr,
      status: b.status,
      ticket_time_limit: new Date(b.ticket_time_limit_ms).toISOString(),
      total_price_minor: b.total_price_minor,
      currency: CURRENCY,
      fare_family: b.fare_family,
      refundable: FAMILIES[b.fare_family].refundable,
      refund_penalty_minor: b.refund_penalty_minor,
      cabin: b.cabin,
      legs: legsView(b.legs, b.cabin, b.fare_family),
      travelers: b.travelers,
      contact: b.contact,
      tickets: b.tickets,
      ...(b.refund ?? {}),
    };
  }

  type Fare = { payload: FareCodePayload; legs: Leg[] };
  function openFareCode(code: string, now: number): Fare | { error: string } {
    const verified = verifyFareCode(code, fareCodeTtlMs, now);
    if (!verified.ok) return { error: verified.error };
    const p = verified.payload;
    if (FAMILIES[p.fare_family].cabin !== p.cabin) return { error: 'invalid fare_source_code' };
    const legs: Leg[] = [];
    for (const leg of p.legs) {
      const segments: Segment[] = [];
      for (const s of leg.segments) {
        const flight = findFlight(s.flight_number);
        if (!flight || !flight.cabins.includes(p.cabin) || parseDate(s.date) === null) return { error: 'invalid fare_source_code' };
        segments.push(segmentOn(flight, s.date));
      }
      legs.push(segments);
    }
    return { payload: p, legs };
  }

  const app = new Hono();

  app.get('/air/airports', (c) => c.json({ airports: AIRPORTS }));

  app.post('/air/search', async (c) => {
    const parsed = SearchBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('search request', parsed.error) }, 400);
    const req = parsed.data;
    const now = Date.now();
    sweep(now);

    const origin = findAirport(req.origin);
    if (!origin) return c.json({ error: `unknown airport ${req.origin}` }, 404);
    const destination = findAirport(req.destination);
    if (!destination) return c.json({ error: `unknown airport ${req.destination}` }, 404);
    if (origin.city_id === destination.city_id) {
      return c.json({ error: 'invalid search request: origin and destination are in the same city' }, 400);
    }
    const today = isoDate(now);
    if (req.departure_date < today) return c.json({ error: 'invalid search request: departure_date: must not be in the past' }, 400);

    const passengers: Passengers = { adults: req.adults, children: req.children, infants: req.infants };
    const seated = seatedOf(passengers);
    const outbound = legsFor(origin.city_id, destination.city_id, req.departure_date, req.cabin, legBaseMinor).filter(
      (leg) => legDeparture(leg) >= now + MIN_LEAD_TIME_MS,
    );
    let trips: Leg[][];
    if (req.return_date === undefined) {
      trips = outbound.map((leg) => [leg]);
    } else {
      const inbound = legsFor(destination.city_id, origin.city_id, req.return_date, req.cabin, legBaseMinor);
      trips = outbound.flatMap((out) => inbound.filter((back) => legDeparture(back) >= legArrival(out) + MIN_STAY_MS).map((back) => [out, back]));
    }

    const families = familiesOf(req.cabin);
    const offers = trips
      .flatMap((legs) => {
        const seats_left = seats.minAvailable(seatKeys(legs, req.cabin));
        if (seats_left < seated) return [];
        return families.map((fare_family) => {
          const q = quote(legs, req.cabin, fare_family, passengers, today);
          const fare_source_code = signFareCode({
            legs: legsPayload(legs),
            cabin: req.cabin,
            fare_family,
            passengers,
            total_price_minor: q.total_price_minor,
            base_total_minor: q.base_total_minor,
            issued_at: now,
          });
          return {
            fare_source_code,
            total_price_minor: q.total_price_minor,
            currency: CURRENCY,
            refundable: FAMILIES[fare_family].refundable,
            fare_family,
            cabin: req.cabin,
            legs: legsView(legs, req.cabin, fare_family),
            price_breakdown: q.price_breakdown,
            seats_left,
            // Sort keys, dropped below.
            _departure: legDeparture(legs[0] ?? []),
            _stops: legs.reduce((acc, leg) => acc + leg.length - 1, 0),
            _family: families.indexOf(fare_family),
          };
        });
      })
      .sort(
        (a, b) =>
          a.total_price_minor - b.total_price_minor || a._departure - b._departure || a._stops - b._stops || a._family - b._family,
      )
      .map(({ _departure, _stops, _family, ...offer }) => offer);

    return c.json({ search_id: randomUUID(), offers });
  });

  app.post('/air/revalidate', async (c) => {
    const parsed = FareCodeBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('revalidation', parsed.error) }, 400);
    const now = Date.now();
    sweep(now);
    const fare = openFareCode(parsed.data.fare_source_code, now);
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    const p = fare.payload;
    const seats_left = seats.minAvailable(seatKeys(fare.legs, p.cabin));
    const bookable = legDeparture(fare.legs[0] ?? []) - TICKETING_CLOSES_BEFORE_DEPARTURE_MS > now;
    const priceChanged = c.req.header(SANDBOX_SCENARIO_HEADER) === 'price_changed';
    const original = p.total_price_minor;
    let code = parsed.data.fare_source_code;
    let total = original;
    if (priceChanged) {
      total = changedPrice(original);
      // The airline raised the fare, not the taxes.
      code = signFareCode({ ...p, total_price_minor: total, base_total_minor: p.base_total_minor + (total - original), issued_at: now });
    }
    return c.json({
      is_valid: bookable && seats_left >= seatedOf(p.passengers),
      fare_source_code: code,
      total_price_minor: total,
      original_price_minor: original,
      price_changed: priceChanged,
      currency: CURRENCY,
      seats_left,
      // What a GDS re-price returns besides the price: the itinerary and who it is priced for.
      legs: legsView(fare.legs, p.cabin, p.fare_family),
      passengers: p.passengers,
    });
  });

  app.post('/air/rules', async (c) => {
    const parsed = FareCodeBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('fare rules request', parsed.error) }, 400);
    const fare = openFareCode(parsed.data.fare_source_code, Date.now());
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    return c.json(fareRules(fare.payload.fare_family, fare.payload.base_total_minor));
  });

  app.post('/air/baggage', async (c) => {
    const parsed = FareCodeBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('baggage request', parsed.error) }, 400);
    const fare = openFareCode(parsed.data.fare_source_code, Date.now());
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    return c.json({ baggage: baggageAllowance(fare.payload.fare_family, fare.payload.passengers) });
  });

  app.post('/air/bookings', async (c) => {
    const parsed = BookingBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('booking request', parsed.error) }, 400);
    const req = parsed.data;
    // From here on nothing awaits: the de-duplication and the seat take are atomic.
    const now = Date.now();
    sweep(now);
    const known = bookingsByReference.get(req.client_reference);
    if (known) return c.json(view(known), 200);

    const fare = openFareCode(req.fare_source_code, now);
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    const p = fare.payload;
    const problem = travelersProblem(req.travelers, p.passengers);
    if (problem) return c.json({ error: `invalid booking request: ${problem}` }, 400);
    const ticketTimeLimit = Math.min(now + ticketTimeLimitMs, legDeparture(fare.legs[0] ?? []) - TICKETING_CLOSES_BEFORE_DEPARTURE_MS);
    if (ticketTimeLimit <= now) return c.json({ error: 'ticketing has closed for this flight' }, 409);
    const keys = seatKeys(fare.legs, p.cabin);
    const seated = seatedOf(p.passengers);
    const epochs = seats.take(keys, seated);
    if (epochs === null) return c.json({ error: 'sold out: not enough seats' }, 409);

    bookingSequence += 1;
    const booking: StoredBooking = {
      booking_ref: `B${100_000 + bookingSequence}`,
      pnr: pnrFor(bookingSequence),
      client_reference: req.client_reference,
      status: 'booked',
      ticket_time_limit_ms: ticketTimeLimit,
      total_price_minor: p.total_price_minor,
      base_total_minor: p.base_total_minor,
      cabin: p.cabin,
      fare_family: p.fare_family,
      refund_penalty_minor: penalties(p.fare_family, p.base_total_minor).refund_minor,
      legs: fare.legs,
      travelers: req.travelers,
      contact: req.contact,
      tickets: [],
      refund: null,
      seat_keys: keys,
      seated,
      holds_seats: true,
      epochs,
    };
    bookings.set(booking.pnr, booking);
    bookingsByReference.set(booking.client_reference, booking);
    open.add(booking);
    return c.json(view(booking), 201);
  });

  app.get('/air/bookings', (c) => {
    sweep();
    const ref = c.req.query('client_reference');
    const booking = ref ? bookingsByReference.get(ref) : undefined;
    return booking ? c.json(view(booking)) : c.json({ error: 'no booking with this client_reference' }, 404);
  });

  app.get('/air/bookings/:pnr', (c) => {
    sweep();
    const booking = bookings.get(c.req.param('pnr'));
    return booking ? c.json(view(booking)) : c.json({ error: 'unknown booking' }, 404);
  });

  app.post('/air/bookings/:pnr/ticket', async (c) => {
    const body = await jsonBody(c);
    sweep();
    const booking = bookings.get(c.req.param('pnr'));
    if (!booking) return c.json({ error: 'unknown booking' }, 404);
    const parsed = ReferenceBody.safeParse(body);
    if (!parsed.success) return c.json({ error: invalid('ticketing request', parsed.error) }, 400);
    const scenario = c.req.header(SANDBOX_SCENARIO_HEADER);
    // A repeated ticketing answers the booking as it stands (ticketed, or refunded since).
    if (booking.status === 'ticketed' || booking.status === 'refunded') return madeAnswer(c, scenario, () => c.json(view(booking), 200));
    if (booking.status === 'cancelled') return c.json({ error: 'booking is cancelled' }, 410);
    if (booking.status === 'expired') return c.json({ error: 'booking expired: the ticket time limit has passed' }, 410);

    const ref = parsed.data.client_reference;
    const attempt = (ticketAttempts.get(ref) ?? 0) + 1;
    ticketAttempts.set(ref, attempt);
    if (scenario === 'supplier_reject') return c.json({ error: 'the airline rejected ticketing: fare no longer available' }, 422);
    const down = downAnswer(c, scenario, attempt, opts);
    if (down) return down;
    if (scenario === 'supplier_flaky' && attempt <= opts.flakyFailures) {
      return c.json({ error: `temporarily unavailable (attempt ${attempt})` }, 503);
    }
    if (scenario === 'supplier_slow') {
      await new Promise((r) => setTimeout(r, opts.slowMs));
      // Meanwhile a duplicate may have ticketed it, or it may have expired or been cancelled.
      sweep();
      const status = booking.status as BookingStatus; // TS keeps the narrowing from before the await
      if (status === 'ticketed' || status === 'refunded') return c.json(view(booking), 200);
      if (status === 'cancelled') return c.json({ error: 'booking is cancelled' }, 410);
      if (status === 'expired') return c.json({ error: 'booking expired: the ticket time limit has passed' }, 410);
    }

    const prefix = AIRLINES[booking.legs[0]?.[0]?.flight.airline ?? 'IR'].ticket_prefix;
    booking.tickets = booking.travelers.map((t, traveler_index) => {
      ticketSequence += 1;
      return {
        traveler_index,
        first_name: t.first_name,
        last_name: t.last_name,
        passenger_type: t.passenger_type,
        ticket_number: `${prefix}${2_100_000_000 + ticketSequence}`,
      };
    });
    booking.status = 'ticketed';
    open.delete(booking);
    return madeAnswer(c, scenario, () => c.json(view(booking), 200));
  });

  app.post('/air/bookings/:pnr/cancel', (c) => {
    sweep();
    const booking = bookings.get(c.req.param('pnr'));
    if (!booking) return c.json({ error: 'unknown booking' }, 404);
    if (booking.status === 'ticketed' || booking.status === 'refunded') {
      return c.json({ error: 'booking is ticketed: refund it instead' }, 409);
    }
    if (booking.status === 'booked') {
      booking.status = 'cancelled';
      open.delete(booking);
      giveSeatsBack(booking);
    }
    return c.json(view(booking), 200);
  });

  app.post('/air/bookings/:pnr/refund', async (c) => {
    const body = await jsonBody(c);
    sweep();
    const booking = bookings.get(c.req.param('pnr'));
    if (!booking) return c.json({ error: 'unknown booking' }, 404);
    const parsed = ReferenceBody.safeParse(body);
    if (!parsed.success) return c.json({ error: invalid('refund request', parsed.error) }, 400);
    if (booking.status === 'refunded') return c.json(view(booking), 200);
    if (booking.status !== 'ticketed') return c.json({ error: `only a ticketed booking can be refunded (this one is ${booking.status})` }, 409);
    if (c.req.header(SANDBOX_SCENARIO_HEADER) === 'refund_reject') return c.json({ error: 'the airline refused the refund' }, 422);
    // The seats stay sold: a refunded ticket does not go back on sale.
    booking.status = 'refunded';
    booking.refund = {
      refunded_minor: booking.total_price_minor - booking.refund_penalty_minor,
      penalty_minor: booking.refund_penalty_minor,
    };
    return c.json(view(booking), 200);
  });

  app.post('/_control/air/seats', async (c) => {
    const parsed = SeatsBody.safeParse(await jsonBody(c));
    if (!parsed.success) return c.json({ error: invalid('seats', parsed.error) }, 400);
    const { flight_number, date, cabin, count } = parsed.data;
    sweep();
    const flight = findFlight(flight_number);
    if (!flight) return c.json({ error: `unknown flight ${flight_number}` }, 404);
    if (!flight.cabins.includes(cabin)) return c.json({ error: `flight ${flight_number} has no ${cabin} cabin` }, 404);
    seats.set({ flight_number, date, cabin }, count);
    return c.json({ flight_number, date, cabin, count });
  });

  return app;
}
