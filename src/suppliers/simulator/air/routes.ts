/**
 * The simulator's airline/GDS, its HTTP routes: airports, search, revalidate, fare rules,
 * baggage, book (a PNR with a ticket time limit), ticket, cancel, refund, and what happens
 * after the sale (./change-routes.ts). Deterministic timetable and fares; bookings and seats
 * in memory (./bookings.ts). Sandbox scenarios (X-Sandbox-Scenario): price_changed
 * (revalidate), supplier_reject, supplier_flaky, supplier_slow, supplier_down and
 * supplier_lost_response (ticket), schedule_change (ticket: the airline then moves the first
 * flight), refund_reject (refund).
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { lookupRoutes } from '../records';
import { bodyOf, CURRENCY, jsonBody, ReferenceBody, stepOn } from '../requests';
import { Attempts, madeAnswer, pause, refusal, scenarioOf } from '../scenarios';
import { AirlineChanges, DEFAULT_SHIFT_MINUTES } from './airline-changes';
import { AirBookings, seatedOf, seatKeys, TICKETING_CLOSES_BEFORE_DEPARTURE_MS, type BookingStatus } from './bookings';
import { openFareCode, signFareCode } from './fare-code';
import { fareRules } from './fare-rules';
import { AIRPORTS, findAirport, findFlight } from './inventory';
import { changeRoutes, type ChangeRoutesOptions } from './change-routes';
import { baggageAllowance, changedPrice, legFares, penalties } from './pricing';
import { BookingBody, FareCodeBody, SearchBody, SeatsBody, travelersProblem } from './requests';
import { legDeparture } from './schedule';
import { searchOffers } from './search';
import { serviceRoutes } from './service-routes';
import { servicesAtBooking } from './services';
import { bookingView as view, legsView } from './views';

export const DEFAULT_TICKET_TIME_LIMIT_MS = 2 * 60 * 60_000;
export const DEFAULT_FARE_CODE_TTL_MS = 30 * 60_000;

export interface AirRoutesOptions extends ChangeRoutesOptions {
  /** A booking must be ticketed within this long (and never later than 3 h before departure). */
  ticketTimeLimitMs?: number;
  /** A fare source code is honoured this long after the search that issued it. */
  fareCodeTtlMs?: number;
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function airRoutes(opts: AirRoutesOptions) {
  const ticketTimeLimitMs = opts.ticketTimeLimitMs ?? DEFAULT_TICKET_TIME_LIMIT_MS;
  const fareCodeTtlMs = opts.fareCodeTtlMs ?? DEFAULT_FARE_CODE_TTL_MS;
  const bookings = new AirBookings();
  const { seats } = bookings;
  const airlineChanges = new AirlineChanges();
  const ticketAttempts = new Attempts();

  const app = new Hono();

  app.get('/air/airports', (c) => c.json({ airports: AIRPORTS }));

  app.post('/air/search', async (c) => {
    const req = await bodyOf(c, SearchBody, 'search request');
    if (req instanceof Response) return req;
    const now = Date.now();
    bookings.sweep(now);

    const origin = findAirport(req.origin);
    if (!origin) return c.json({ error: `unknown airport ${req.origin}` }, 404);
    const destination = findAirport(req.destination);
    if (!destination) return c.json({ error: `unknown airport ${req.destination}` }, 404);
    if (origin.city_id === destination.city_id) {
      return c.json({ error: 'invalid search request: origin and destination are in the same city' }, 400);
    }
    const today = isoDate(now);
    if (req.departure_date < today) return c.json({ error: 'invalid search request: departure_date: must not be in the past' }, 400);

    const offers = searchOffers(origin.city_id, destination.city_id, req, seats, today, now);
    return c.json({ search_id: randomUUID(), offers });
  });

  app.post('/air/revalidate', async (c) => {
    const parsed = await bodyOf(c, FareCodeBody, 'revalidation');
    if (parsed instanceof Response) return parsed;
    const now = Date.now();
    bookings.sweep(now);
    const fare = openFareCode(parsed.fare_source_code, fareCodeTtlMs, now);
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    const p = fare.payload;
    const seats_left = seats.minAvailable(seatKeys(fare.legs, p.cabin));
    const bookable = legDeparture(fare.legs[0] ?? []) - TICKETING_CLOSES_BEFORE_DEPARTURE_MS > now;
    const priceChanged = scenarioOf(c) === 'price_changed';
    const original = p.total_price_minor;
    let code = parsed.fare_source_code;
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
    const parsed = await bodyOf(c, FareCodeBody, 'fare rules request');
    if (parsed instanceof Response) return parsed;
    const fare = openFareCode(parsed.fare_source_code, fareCodeTtlMs, Date.now());
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    return c.json({ ...fareRules(fare.payload.fare_family, fare.payload.base_total_minor), currency: CURRENCY });
  });

  app.post('/air/baggage', async (c) => {
    const parsed = await bodyOf(c, FareCodeBody, 'baggage request');
    if (parsed instanceof Response) return parsed;
    const fare = openFareCode(parsed.fare_source_code, fareCodeTtlMs, Date.now());
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    return c.json({ baggage: baggageAllowance(fare.payload.fare_family, fare.payload.passengers) });
  });

  app.post('/air/bookings', async (c) => {
    const req = await bodyOf(c, BookingBody, 'booking request');
    if (req instanceof Response) return req;
    // From here on nothing awaits: the de-duplication and the seat take are atomic.
    const now = Date.now();
    bookings.sweep(now);
    const known = bookings.byClientReference(req.client_reference);
    if (known) return c.json(view(known), 200);

    const fare = openFareCode(req.fare_source_code, fareCodeTtlMs, now);
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    const p = fare.payload;
    const problem = travelersProblem(req.travelers, p.passengers);
    if (problem) return c.json({ error: `invalid booking request: ${problem}` }, 400);
    const ticketTimeLimit = Math.min(now + ticketTimeLimitMs, legDeparture(fare.legs[0] ?? []) - TICKETING_CLOSES_BEFORE_DEPARTURE_MS);
    if (ticketTimeLimit <= now) return c.json({ error: 'ticketing has closed for this flight' }, 409);
    const services = servicesAtBooking(fare.legs, p.cabin, req.travelers, req.services, bookings.seatAssignments, scenarioOf(c) === 'seat_taken');
    if (!Array.isArray(services)) return c.json({ error: services.error }, services.status);
    const booking = bookings.book(
      {
        client_reference: req.client_reference,
        ticket_time_limit_ms: ticketTimeLimit,
        total_price_minor: p.total_price_minor + services.reduce((a, s) => a + s.total_minor, 0),
        base_total_minor: p.base_total_minor,
        cabin: p.cabin,
        fare_family: p.fare_family,
        refund_penalty_minor: penalties(p.fare_family, p.base_total_minor).refund_minor,
        legs: fare.legs,
        services,
        leg_fares: legFares(fare.legs, p.cabin, p.fare_family, p.passengers, isoDate(p.issued_at), p.total_price_minor, p.base_total_minor),
        passengers: p.passengers,
        travelers: req.travelers,
        contact: req.contact,
      },
      seatedOf(p.passengers),
    );
    if (booking === null) return c.json({ error: 'sold out: not enough seats' }, 409);
    return c.json(view(booking), 201);
  });

  lookupRoutes(app, '/air/bookings', 'booking', bookings, view);

  app.post('/air/bookings/:pnr/ticket', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => bookings.current(c.req.param('pnr')), 'unknown booking', ReferenceBody, 'ticketing request');
    if (step instanceof Response) return step;
    const { record: booking, body } = step;
    const scenario = scenarioOf(c);
    // A repeated ticketing answers the booking as it stands (ticketed, or refunded since).
    if (booking.status === 'ticketed' || booking.status === 'refunded') return madeAnswer(c, scenario, () => c.json(view(booking), 200));
    if (booking.status === 'cancelled') return c.json({ error: 'booking is cancelled' }, 410);
    if (booking.status === 'expired') return c.json({ error: 'booking expired: the ticket time limit has passed' }, 410);

    const attempt = ticketAttempts.next(body.client_reference);
    const refused = refusal(c, scenario, attempt, opts, 'the airline rejected ticketing: fare no longer available');
    if (refused) return refused;
    if (scenario === 'supplier_slow') {
      await pause(opts.slowMs);
      // Meanwhile a duplicate may have ticketed it, or it may have expired or been cancelled.
      bookings.sweep();
      const status = booking.status as BookingStatus; // TS keeps the narrowing from before the await
      if (status === 'ticketed' || status === 'refunded') return c.json(view(booking), 200);
      if (status === 'cancelled') return c.json({ error: 'booking is cancelled' }, 410);
      if (status === 'expired') return c.json({ error: 'booking expired: the ticket time limit has passed' }, 410);
    }

    bookings.ticket(booking);
    if (scenario === 'schedule_change') airlineChanges.plant(booking, 0, DEFAULT_SHIFT_MINUTES);
    return madeAnswer(c, scenario, () => c.json(view(booking), 200));
  });

  app.post('/air/bookings/:pnr/cancel', (c) => {
    const booking = bookings.current(c.req.param('pnr'));
    if (!booking) return c.json({ error: 'unknown booking' }, 404);
    if (!bookings.cancel(booking)) return c.json({ error: 'booking is ticketed: refund it instead' }, 409);
    return c.json(view(booking), 200);
  });

  app.post('/air/bookings/:pnr/refund', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => bookings.current(c.req.param('pnr')), 'unknown booking', ReferenceBody, 'refund request');
    if (step instanceof Response) return step;
    const booking = step.record;
    if (booking.status === 'refunded') return c.json(view(booking), 200);
    if (booking.status !== 'ticketed') return c.json({ error: `only a ticketed booking can be refunded (this one is ${booking.status})` }, 409);
    if (scenarioOf(c) === 'refund_reject') return c.json({ error: 'the airline refused the refund' }, 422);
    bookings.refund(booking);
    return c.json(view(booking), 200);
  });

  app.post('/_control/air/seats', async (c) => {
    const parsed = await bodyOf(c, SeatsBody, 'seats');
    if (parsed instanceof Response) return parsed;
    const { flight_number, date, cabin, count } = parsed;
    bookings.sweep();
    const flight = findFlight(flight_number);
    if (!flight) return c.json({ error: `unknown flight ${flight_number}` }, 404);
    if (!flight.cabins.includes(cabin)) return c.json({ error: `flight ${flight_number} has no ${cabin} cabin` }, 404);
    seats.set({ flight_number, date, cabin }, count);
    return c.json({ flight_number, date, cabin, count });
  });

  app.route('/', changeRoutes(bookings, airlineChanges, opts));
  app.route('/', serviceRoutes(bookings, opts, fareCodeTtlMs));

  return app;
}
