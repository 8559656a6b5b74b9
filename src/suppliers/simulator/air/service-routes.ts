/**
 * The simulated airline's seats and bags, its HTTP routes: an offer's seat maps and bags for
 * sale (chosen with the booking, ./routes.ts), and the bags a ticketed booking may still add,
 * added for their price. Sandbox scenarios on adding bags: bag_refused, and supplier_reject,
 * supplier_flaky, supplier_slow, supplier_down and supplier_lost_response, counted per
 * booking (a lost answer is found on the booking).
 */
import { Hono } from 'hono';
import { bodyOf, CURRENCY, jsonBody, stepOn } from '../requests';
import { Attempts, madeAnswer, pause, refusal, scenarioOf, type ScenarioOptions } from '../scenarios';
import { seatedOf, TICKETING_CLOSES_BEFORE_DEPARTURE_MS, type AirBookings, type StoredBooking, type StoredService } from './bookings';
import { openFareCode } from './fare-code';
import { AddServicesBody, FareCodeBody } from './requests';
import { legDeparture, type Leg } from './schedule';
import { bagsOnSale, EXTRA_BAG_KG, MAX_BAGS, seatRows, seatService, serviceRef, type BagOnSale } from './services';
import { bookingView } from './views';

const bagView = (b: BagOnSale) => ({
  service_id: b.service_id,
  type: 'baggage' as const,
  price_minor: b.price_minor,
  max_quantity: MAX_BAGS,
  traveler_indexes: [b.traveler_index],
  segments: b.segments,
  bag: { kind: 'checked' as const, max_weight_kg: EXTRA_BAG_KG },
});

/** The bags a ticketed booking may still add: none on a leg it has, or a leg whose check-in has closed. */
function bagsToAdd(b: StoredBooking, now: number): BagOnSale[] {
  const open = (leg: Leg) => legDeparture(leg) - TICKETING_CLOSES_BEFORE_DEPARTURE_MS > now;
  const booked = (bag: BagOnSale) => b.services.some((s) => s.type === 'baggage' && s.leg_index === bag.leg_index && s.traveler_index === bag.traveler_index);
  return bagsOnSale(b.legs, b.travelers.length).filter((bag) => open(b.legs[bag.leg_index]!) && !booked(bag));
}

export function serviceRoutes(bookings: AirBookings, opts: ScenarioOptions, fareCodeTtlMs: number) {
  const attempts = new Attempts();
  const app = new Hono();

  /** Each segment's seats, priced for each seated traveller (adults, then children: indexes from 0). */
  app.post('/air/seat_maps', async (c) => {
    const parsed = await bodyOf(c, FareCodeBody, 'seat map request');
    if (parsed instanceof Response) return parsed;
    bookings.sweep();
    const fare = openFareCode(parsed.fare_source_code, fareCodeTtlMs, Date.now());
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    const seated = seatedOf(fare.payload.passengers);
    const cabin = fare.payload.cabin;
    const seat_maps = fare.legs.flatMap((leg, leg_index) =>
      leg.map((segment, segment_index) => ({
        leg_index,
        segment_index,
        flight_number: segment.flight.flight_number,
        cabins: [
          {
            cabin,
            rows: seatRows(segment, cabin, bookings.seatAssignments).map(({ row, seats }) => ({
              row,
              seats: seats.map((seat) => ({
                designator: seat.designator,
                available: seat.available,
                prices: seat.available
                  ? Array.from({ length: seated }, (_, traveler_index) => ({
                      service_id: seatService(leg_index, segment_index, seat.designator, traveler_index),
                      traveler_index,
                      price_minor: seat.price_minor,
                    }))
                  : [],
                disclosures: seat.disclosures,
              })),
            })),
          },
        ],
      })),
    );
    return c.json({ seat_maps, currency: CURRENCY });
  });

  /** The bags an offer sells with it: one extra checked bag per traveller and leg. */
  app.post('/air/services', async (c) => {
    const parsed = await bodyOf(c, FareCodeBody, 'services request');
    if (parsed instanceof Response) return parsed;
    const fare = openFareCode(parsed.fare_source_code, fareCodeTtlMs, Date.now());
    if ('error' in fare) return c.json({ error: fare.error }, 400);
    const p = fare.payload.passengers;
    return c.json({ services: bagsOnSale(fare.legs, p.adults + p.children + p.infants).map(bagView), currency: CURRENCY });
  });

  app.get('/air/bookings/:pnr/services', (c) => {
    const b = bookings.current(c.req.param('pnr'));
    if (!b) return c.json({ error: 'unknown booking' }, 404);
    if (b.status !== 'ticketed') return c.json({ error: `bags are added to a ticketed booking (this one is ${b.status})` }, 409);
    return c.json({ services: bagsToAdd(b, Date.now()).map(bagView), currency: CURRENCY });
  });

  app.post('/air/bookings/:pnr/services', async (c) => {
    const step = stepOn(c, await jsonBody(c), () => bookings.current(c.req.param('pnr')), 'unknown booking', AddServicesBody, 'services request');
    if (step instanceof Response) return step;
    const { record: b, body } = step;
    if (b.status !== 'ticketed') return c.json({ error: `bags are added to a ticketed booking (this one is ${b.status})` }, 409);
    const onSale = new Map(bagsToAdd(b, Date.now()).map((bag) => [bag.service_id, bag]));
    const services: StoredService[] = [];
    for (const [i, chosen] of body.services.entries()) {
      const ref = serviceRef(chosen.service_id);
      if (ref?.type === 'seat') return c.json({ error: `seats are chosen with the booking only: services.${i} is a seat` }, 422);
      const bag = onSale.get(chosen.service_id);
      const booked = ref && b.services.some((s) => s.type === 'baggage' && s.leg_index === ref.leg_index && s.traveler_index === ref.traveler_index);
      if (booked) return c.json({ error: `${chosen.service_id} is already on the booking` }, 409);
      if (!bag || services.some((s) => s.service_id === chosen.service_id)) {
        return c.json({ error: `invalid services request: services.${i}: not a bag this booking can add` }, 400);
      }
      if (chosen.quantity > MAX_BAGS) return c.json({ error: `invalid services request: services.${i}: at most ${MAX_BAGS} of this bag` }, 400);
      services.push({
        service_id: bag.service_id,
        type: 'baggage',
        traveler_index: bag.traveler_index,
        leg_index: bag.leg_index,
        segments: bag.segments,
        quantity: chosen.quantity,
        total_minor: bag.price_minor * chosen.quantity,
      });
    }
    const total = services.reduce((a, s) => a + s.total_minor, 0);
    if (body.payment.currency !== CURRENCY || body.payment.amount_minor !== total) {
      return c.json({ error: `the payment must be the bags' total, ${total} (minor units of ${CURRENCY})` }, 422);
    }
    const scenario = scenarioOf(c);
    if (scenario === 'bag_refused') return c.json({ error: 'the airline refused the bags: nothing was added' }, 422);
    const refused = refusal(c, scenario, attempts.next(`services:${b.pnr}`), opts, 'the airline refused the bags');
    if (refused) return refused;
    if (scenario === 'supplier_slow') {
      await pause(opts.slowMs);
      // Meanwhile a duplicate may have added them.
      if (services.some((s) => b.services.some((x) => x.type === 'baggage' && x.leg_index === s.leg_index && x.traveler_index === s.traveler_index))) {
        return c.json({ error: 'the bags were added meanwhile' }, 409);
      }
    }
    bookings.addServices(b, services);
    return madeAnswer(c, scenario, () => c.json(bookingView(b), 200));
  });

  return app;
}
