/**
 * The simulator's bedbank, its HTTP routes: search, rate check, hold (prebook), guests,
 * confirm, release, cancel. Deterministic inventory and prices; holds, bookings and allotment
 * in memory (./holds.ts). Sandbox scenarios (X-Sandbox-Scenario): price_changed (check and
 * hold), supplier_reject, supplier_flaky, supplier_slow, supplier_down and
 * supplier_lost_response (confirm), cancel_reject (cancel).
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { lookupRoutes } from '../records';
import { bodyOf, CURRENCY, invalid, jsonBody, ReferenceBody, stepOn } from '../requests';
import { Attempts, madeAnswer, pause, refusal, scenarioOf, type ScenarioOptions } from '../scenarios';
import { HotelHolds, type HoldStatus } from './holds';
import { CITIES, findCity, findHotel, findRoom, hotelsInCity, type Hotel } from './inventory';
import { openRateKey, priceNow, stayOf } from './rate-key';
import { AllotmentBody, AvailabilityBody, GuestsBody, guestsProblem, HoldBody, RateKeyBody } from './requests';
import { availableHotels } from './search';
import { hotelView, holdView as view } from './views';

export const DEFAULT_HOLD_TTL_MS = 15 * 60_000;
export const DEFAULT_PREBOOK_TTL_MS = 5 * 60_000;
export const DEFAULT_RATE_KEY_TTL_MS = 30 * 60_000;

export interface HotelRoutesOptions extends ScenarioOptions {
  /** A hold with guest names lives this long (and again after guests are added). */
  holdTtlMs?: number;
  /** A hold without guest names (a prebook) lives this long. */
  prebookTtlMs?: number;
  /** A rate key is honoured this long after the search that issued it. */
  rateKeyTtlMs?: number;
}

export function hotelRoutes(opts: HotelRoutesOptions) {
  const holdTtlMs = opts.holdTtlMs ?? DEFAULT_HOLD_TTL_MS;
  const prebookTtlMs = opts.prebookTtlMs ?? DEFAULT_PREBOOK_TTL_MS;
  const rateKeyTtlMs = opts.rateKeyTtlMs ?? DEFAULT_RATE_KEY_TTL_MS;
  const holds = new HotelHolds();
  const { allotment } = holds;
  const confirmAttempts = new Attempts();

  const app = new Hono();

  app.get('/hotels/cities', (c) => c.json({ cities: CITIES }));

  app.get('/hotels/:hotel_id{[0-9]+}', (c) => {
    const hotel = findHotel(Number(c.req.param('hotel_id')));
    if (!hotel) return c.json({ error: 'unknown hotel' }, 404);
    return c.json(hotelView(hotel));
  });

  app.post('/hotels/availability', async (c) => {
    const req = await bodyOf(c, AvailabilityBody, 'availability request');
    if (req instanceof Response) return req;
    const now = Date.now();
    holds.sweep(now);

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

    return c.json({ search_id: randomUUID(), hotels: availableHotels(candidates, req, allotment, now) });
  });

  app.post('/hotels/rates/check', async (c) => {
    const parsed = await bodyOf(c, RateKeyBody, 'rate check');
    if (parsed instanceof Response) return parsed;
    const now = Date.now();
    holds.sweep(now);
    const opened = openRateKey(parsed.rate_key, rateKeyTtlMs, now);
    if ('error' in opened) return c.json({ error: opened.error }, 400);
    const { offer } = opened;
    const p = offer.payload;
    if (allotment.minAvailable(p.hotel_id, p.room_code, offer.nights) < p.rooms.length) {
      return c.json({ error: 'no longer available' }, 409);
    }
    const priceChanged = scenarioOf(c) === 'price_changed';
    const price = priceNow(offer, priceChanged, now);
    return c.json({
      rate_key: parsed.rate_key,
      hotel_id: offer.hotel.hotel_id,
      hotel_name: offer.hotel.name,
      city_id: offer.hotel.city_id,
      room_code: offer.room.room_code,
      room_name: offer.room.room_name,
      ...stayOf(p),
      total_price_minor: price.total,
      original_price_minor: price.original,
      price_changed: priceChanged,
      currency: CURRENCY,
      cancellation_policy: price.policy,
      expires_at: new Date(p.issued_at + rateKeyTtlMs).toISOString(),
    });
  });

  app.post('/hotels/holds', async (c) => {
    const req = await bodyOf(c, HoldBody, 'hold request');
    if (req instanceof Response) return req;
    // From here on nothing awaits: the de-duplication and the allotment take are atomic.
    const now = Date.now();
    holds.sweep(now);
    const known = holds.byClientReference(req.client_reference);
    if (known) return c.json(view(known), 200);

    const opened = openRateKey(req.rate_key, rateKeyTtlMs, now);
    if ('error' in opened) return c.json({ error: opened.error }, 400);
    const { offer } = opened;
    const p = offer.payload;
    if (req.guests) {
      const problem = guestsProblem(req.guests, p.rooms);
      if (problem) return c.json({ error: `invalid hold request: ${problem}` }, 400);
    }
    const price = priceNow(offer, scenarioOf(c) === 'price_changed', now);
    const hold = holds.hold({
      client_reference: req.client_reference,
      expires_at_ms: now + (req.guests ? holdTtlMs : prebookTtlMs),
      total_price_minor: price.total,
      hotel: offer.hotel,
      room: offer.room,
      ...stayOf(p),
      nights: offer.nights,
      cancellation_policy: price.policy,
      guests: req.guests ?? null,
      contact: req.contact ?? null,
    });
    if (hold === null) return c.json({ error: 'sold out: no room left for these dates' }, 409);
    return c.json(view(hold), 201);
  });

  lookupRoutes(app, '/hotels/holds', 'hold', holds, view);

  app.post('/hotels/holds/:hold_id/guests', async (c) => {
    const body = await jsonBody(c);
    const hold = holds.current(c.req.param('hold_id'));
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
    const step = stepOn(c, await jsonBody(c), () => holds.current(c.req.param('hold_id')), 'unknown hold', ReferenceBody, 'confirmation');
    if (step instanceof Response) return step;
    const { record: hold, body } = step;
    const scenario = scenarioOf(c);
    // A repeated confirm answers the booking as it stands (confirmed, or cancelled since).
    if (hold.status === 'confirmed' || hold.status === 'cancelled') return madeAnswer(c, scenario, () => c.json(view(hold), 200));
    if (hold.status === 'expired' || hold.status === 'released') return c.json({ error: 'hold is no longer active' }, 410);
    if (hold.status === 'prebooked') return c.json({ error: 'guest names are required before confirmation' }, 409);

    const attempt = confirmAttempts.next(body.client_reference);
    const refused = refusal(c, scenario, attempt, opts, 'the hotel rejected the booking: rooms overbooked for these dates');
    if (refused) return refused;
    if (scenario === 'supplier_slow') {
      await pause(opts.slowMs);
      // Meanwhile a duplicate may have confirmed it, or it may have expired or been released.
      holds.sweep();
      const status = hold.status as HoldStatus; // TS keeps the narrowing from before the await
      if (status === 'confirmed' || status === 'cancelled') return c.json(view(hold), 200);
      if (status !== 'held') return c.json({ error: 'hold is no longer active' }, 410);
    }

    holds.confirm(hold);
    return madeAnswer(c, scenario, () => c.json(view(hold), 200));
  });

  app.post('/hotels/holds/:hold_id/release', (c) => {
    const hold = holds.current(c.req.param('hold_id'));
    if (!hold) return c.json({ error: 'unknown hold' }, 404);
    if (!holds.release(hold)) return c.json({ error: 'hold is confirmed: cancel the booking instead' }, 409);
    return c.json(view(hold), 200);
  });

  app.get('/hotels/bookings/:confirmation_number', (c) => {
    const booking = holds.currentBooking(c.req.param('confirmation_number'));
    return booking ? c.json(view(booking)) : c.json({ error: 'unknown booking' }, 404);
  });

  app.post('/hotels/bookings/:confirmation_number/cancel', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => holds.currentBooking(c.req.param('confirmation_number')), 'unknown booking', ReferenceBody, 'cancellation');
    if (step instanceof Response) return step;
    const booking = step.record;
    const answer = () => ({ confirmation_number: booking.confirmation_number, hold_id: booking.hold_id, status: 'cancelled' as const });
    if (booking.status === 'cancelled') return c.json(answer(), 200);
    if (scenarioOf(c) === 'cancel_reject') {
      return c.json({ error: 'the hotel refused the cancellation' }, 422);
    }
    holds.cancel(booking);
    return c.json(answer(), 200);
  });

  app.post('/_control/hotels/allotment', async (c) => {
    const parsed = await bodyOf(c, AllotmentBody, 'allotment');
    if (parsed instanceof Response) return parsed;
    const { hotel_id, room_code, count } = parsed;
    holds.sweep();
    const hotel = findHotel(hotel_id);
    if (!hotel || !findRoom(hotel, room_code)) return c.json({ error: 'unknown hotel or room' }, 404);
    allotment.set(hotel_id, room_code, count);
    return c.json({ hotel_id, room_code, count });
  });

  return app;
}
