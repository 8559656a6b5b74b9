/**
 * The simulated airline after the sale, its HTTP routes for changes: the traveller's (change
 * requests answering offers, a change made from one, then confirmed) and the airline's own
 * (schedule changes, listed per booking and accepted; planted through the control API or the
 * schedule_change scenario at ticketing). Sandbox scenarios: change_penalty and
 * change_offer_expires (change requests); supplier_reject, supplier_flaky, supplier_slow,
 * supplier_down and supplier_lost_response on making, confirming and accepting, with the
 * look-up of the change made from an offer counted with its making.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyOf, CURRENCY, jsonBody, stepOn } from '../requests';
import { Attempts, lookupDownAnswer, madeAnswer, pause, refusal, scenarioOf, type ScenarioOptions } from '../scenarios';
import { DEFAULT_SHIFT_MINUTES, type AirlineChanges } from './airline-changes';
import { openAirlineChanges, TICKETING_CLOSES_BEFORE_DEPARTURE_MS, type AirBookings, type StoredBooking } from './bookings';
import { ChangeOffers, SCENARIO_CHANGE_PENALTY_PERCENT, type ChangeOfferRecord, type OrderChangeRecord } from './changes';
import { findAirport } from './inventory';
import { penalties } from './pricing';
import { AirlineChangeBody, ChangeRequestBody, ConfirmChangeBody, CreateChangeBody } from './requests';
import { legDeparture } from './schedule';
import { airlineChangeView, changeOfferView, orderChangeView } from './change-views';

/** How long a change offer is honoured by default (SIMULATOR_CHANGE_OFFER_TTL_MS). */
export const DEFAULT_CHANGE_OFFER_TTL_MS = 30 * 60_000;
/** A booking has at most this many legs (out and back). */
const MAX_LEGS = 2;

export interface ChangeRoutesOptions extends ScenarioOptions {
  /** How long a change offer, and a change made from it, can be taken up. */
  changeOfferTtlMs?: number;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function changeRoutes(bookings: AirBookings, airlineChanges: AirlineChanges, opts: ChangeRoutesOptions) {
  const ttlMs = opts.changeOfferTtlMs ?? DEFAULT_CHANGE_OFFER_TTL_MS;
  const offers = new ChangeOffers();
  const attempts = new Attempts();
  const app = new Hono();

  const bookingOf = (o: ChangeOfferRecord): StoredBooking => bookings.current(o.pnr)!;
  const offerView = (o: ChangeOfferRecord) => {
    const b = bookingOf(o);
    return changeOfferView(o, b.cabin, b.fare_family);
  };
  /** Why an offer can no longer be taken up, as the answer to give; null when it can. */
  const stale = (c: Context, o: ChangeOfferRecord, now: number) => {
    if (now >= o.expires_ms) return c.json({ error: 'the change offer expired: ask for new offers' }, 410);
    const b = bookingOf(o);
    if (b.status !== 'ticketed' || b.version !== o.booking_version)
      return c.json({ error: 'the booking has changed since this offer: ask for new offers' }, 409);
    return null;
  };

  app.post('/air/bookings/:pnr/change_requests', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => bookings.current(c.req.param('pnr')), 'unknown booking', ChangeRequestBody, 'change request');
    if (step instanceof Response) return step;
    const { record: b, body } = step;
    const now = Date.now();
    if (b.status !== 'ticketed') return c.json({ error: `only a ticketed booking can be changed (this one is ${b.status})` }, 409);
    for (const i of body.remove) {
      const leg = b.legs[i];
      if (!leg) return c.json({ error: `invalid change request: remove: the booking has ${b.legs.length} leg(s), numbered from 0` }, 400);
      if (legDeparture(leg) - TICKETING_CLOSES_BEFORE_DEPARTURE_MS <= now) {
        return c.json({ error: `changes close 3 hours before departure: leg ${i} can no longer be changed` }, 409);
      }
    }
    if (b.legs.length - body.remove.length + body.add.length > MAX_LEGS) {
      return c.json({ error: `invalid change request: a booking has at most ${MAX_LEGS} legs` }, 400);
    }
    for (const [i, leg] of body.add.entries()) {
      const origin = findAirport(leg.origin);
      const destination = findAirport(leg.destination);
      if (!origin) return c.json({ error: `unknown airport ${leg.origin}` }, 404);
      if (!destination) return c.json({ error: `unknown airport ${leg.destination}` }, 404);
      if (origin.city_id === destination.city_id)
        return c.json({ error: `invalid change request: add.${i}: origin and destination are in the same city` }, 400);
      if (leg.departure_date < isoDate(now)) return c.json({ error: `invalid change request: add.${i}.departure_date: must not be in the past` }, 400);
      if (leg.cabin !== b.cabin) return c.json({ error: `a change keeps the booking's cabin (${b.cabin}): add.${i} asks for ${leg.cabin}` }, 422);
    }
    const scenario = scenarioOf(c);
    const made = offers.request(b, body.remove, body.add, {
      now,
      today: isoDate(now),
      seats: bookings.seats,
      expiresMs: scenario === 'change_offer_expires' ? now : now + ttlMs,
      minPenaltyPercent: scenario === 'change_penalty' ? SCENARIO_CHANGE_PENALTY_PERCENT : 0,
    });
    return c.json({ request_id: made.request_id, pnr: b.pnr, offers: made.offers.map(offerView) }, 201);
  });

  app.get('/air/change_offers/:id', (c) => {
    const offer = offers.offer(c.req.param('id'));
    return offer ? c.json(offerView(offer)) : c.json({ error: 'unknown change offer' }, 404);
  });

  app.post('/air/order_changes', async (c) => {
    const body = await bodyOf(c, CreateChangeBody, 'order change');
    if (body instanceof Response) return body;
    const offer = offers.offer(body.change_offer_id);
    if (!offer) return c.json({ error: 'unknown change offer' }, 404);
    const scenario = scenarioOf(c);
    // One change per offer: making it again answers the one made.
    if (offer.change) return madeAnswer(c, scenario, () => c.json(orderChangeView(offer.change!), 200));
    const gone = stale(c, offer, Date.now());
    if (gone) return gone;
    const refused = refusal(c, scenario, attempts.next(`make:${offer.id}`), opts, 'the airline refused the change');
    if (refused) return refused;
    if (scenario === 'supplier_slow') {
      await pause(opts.slowMs);
      const raced = offer.change as OrderChangeRecord | null; // a duplicate may have made it meanwhile
      if (raced) return c.json(orderChangeView(raced), 200);
      const goneMeanwhile = stale(c, offer, Date.now());
      if (goneMeanwhile) return goneMeanwhile;
    }
    const change = offers.create(offer);
    return madeAnswer(c, scenario, () => c.json(orderChangeView(change), 201));
  });

  /** The look-up after a lost answer: the change made from an offer. */
  app.get('/air/order_changes', (c) => {
    const offerId = c.req.query('change_offer_id') ?? '';
    const down = lookupDownAnswer(c, scenarioOf(c), `make:${offerId}`, attempts, opts);
    if (down) return down;
    const change = offers.offer(offerId)?.change;
    return change ? c.json(orderChangeView(change)) : c.json({ error: 'no change was made from this change offer' }, 404);
  });

  app.get('/air/order_changes/:id', (c) => {
    const change = offers.change(c.req.param('id'));
    return change ? c.json(orderChangeView(change)) : c.json({ error: 'unknown order change' }, 404);
  });

  app.post('/air/order_changes/:id/confirm', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => offers.change(c.req.param('id')), 'unknown order change', ConfirmChangeBody, 'change confirmation');
    if (step instanceof Response) return step;
    const { record: change, body } = step;
    const offer = change.offer;
    const scenario = scenarioOf(c);
    // Confirming a confirmed change answers it as it is.
    if (change.confirmed_ms !== null) return madeAnswer(c, scenario, () => c.json(orderChangeView(change), 200));
    const due = Math.max(offer.change_total_minor, 0);
    if (body.payment && body.payment.currency !== CURRENCY) return c.json({ error: `the payment must be in ${CURRENCY}` }, 422);
    if ((body.payment?.amount_minor ?? 0) !== due) {
      const error =
        due > 0
          ? `the payment must be the change's total, ${due} (minor units of ${CURRENCY})`
          : 'nothing is to be paid for this change: confirm it without a payment';
      return c.json({ error }, 422);
    }
    const gone = stale(c, offer, Date.now());
    if (gone) return gone;
    const refused = refusal(c, scenario, attempts.next(`confirm:${change.id}`), opts, 'the airline refused the change');
    if (refused) return refused;
    if (scenario === 'supplier_slow') {
      await pause(opts.slowMs);
      if ((change.confirmed_ms as number | null) !== null) return c.json(orderChangeView(change), 200);
      const goneMeanwhile = stale(c, offer, Date.now());
      if (goneMeanwhile) return goneMeanwhile;
    }
    const b = bookingOf(offer);
    if (!bookings.replaceLegs(b, offer.remove, offer.add, offer.add_fares)) return c.json({ error: 'sold out: not enough seats on the new flights' }, 409);
    const now = Date.now();
    b.total_price_minor = offer.new_total_minor;
    b.base_total_minor = offer.new_base_total_minor;
    b.refund_penalty_minor = penalties(b.fare_family, b.base_total_minor).refund_minor;
    bookings.ticket(b); // new flights, new tickets
    for (const open of openAirlineChanges(b)) {
      open.action_taken = 'changed';
      open.action_taken_ms = now;
    }
    change.confirmed_ms = now;
    return madeAnswer(c, scenario, () => c.json(orderChangeView(change), 200));
  });

  app.get('/air/bookings/:pnr/airline_changes', (c) => {
    const b = bookings.current(c.req.param('pnr'));
    if (!b) return c.json({ error: 'unknown booking' }, 404);
    return c.json({ airline_changes: b.airline_changes.map((a) => airlineChangeView(a, b.cabin, b.fare_family)) });
  });

  app.post('/air/airline_changes/:id/accept', async (c) => {
    bookings.sweep();
    const found = airlineChanges.find(c.req.param('id'));
    if (!found) return c.json({ error: 'unknown airline change' }, 404);
    const { change, booking: b } = found;
    const scenario = scenarioOf(c);
    const view = () => c.json(airlineChangeView(change, b.cabin, b.fare_family), 200);
    // Accepting an accepted change answers it as it is.
    if (change.action_taken === 'accepted') return madeAnswer(c, scenario, view);
    const refused = refusal(c, scenario, attempts.next(`accept:${change.id}`), opts, 'the airline refused the acceptance');
    if (refused) return refused;
    if (scenario === 'supplier_slow') await pause(opts.slowMs);
    const accepted = airlineChanges.accept(change, b);
    return accepted === true ? madeAnswer(c, scenario, view) : c.json({ error: accepted }, 409);
  });

  /** The control API: the airline moves a ticketed booking's flights (a schedule change), `shift_minutes` later. */
  app.post('/_control/air/bookings/:pnr/airline_changes', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => bookings.current(c.req.param('pnr')), 'unknown booking', AirlineChangeBody, 'airline change');
    if (step instanceof Response) return step;
    const { record: b, body } = step;
    if (b.status !== 'ticketed') return c.json({ error: `only a ticketed booking is changed by the airline (this one is ${b.status})` }, 409);
    if (!b.legs[body.leg_index]) return c.json({ error: `invalid airline change: leg_index: the booking has ${b.legs.length} leg(s)` }, 400);
    const change = airlineChanges.plant(b, body.leg_index, body.shift_minutes ?? DEFAULT_SHIFT_MINUTES);
    return c.json(airlineChangeView(change, b.cabin, b.fare_family), 201);
  });

  return app;
}
