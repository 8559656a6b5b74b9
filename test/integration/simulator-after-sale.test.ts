import type { RunningServer } from '../../src/platform/listen';
import { withScenario } from '../../src/sandbox/context';
import { simulatorFlightAfterSale } from '../../src/suppliers/adapters/simulator/flight-after-sale';
import { simulatorFlightSupplier } from '../../src/suppliers/adapters/simulator/flights';
import { checkedFlightAfterSale, checkedFlightSupplier } from '../../src/suppliers/contract-checks';
import { SupplierRejectedError, SupplierUnavailableError } from '../../src/suppliers/errors';
import type { FlightAfterSale } from '../../src/suppliers/flight-after-sale';
import type { FlightOrder, FlightSupplier } from '../../src/suppliers/flights';
import { startSimulator } from '../../src/suppliers/simulator/app';
import { contact, day, traveller } from '../support/fixtures';

/**
 * The after-sale port on the simulated airline, over HTTP as the engine calls it: the
 * adapter (src/suppliers/adapters/simulator/flight-after-sale.ts) with its answers checked
 * (src/suppliers/contract-checks.ts), against the simulator's routes
 * (src/suppliers/simulator/air/change-routes.ts). Each test flies on days of its own: the
 * simulated airline sells a flight's seats once.
 */

const CHANGE_OFFER_TTL_MS = 1500;

interface Airline {
  server: RunningServer;
  flights: FlightSupplier;
  afterSale: FlightAfterSale;
}

async function airline(opts: { changeOfferTtlMs?: number } = {}): Promise<Airline> {
  const server = await startSimulator({ port: 0, slowMs: 300, ...opts });
  const flights = checkedFlightSupplier(simulatorFlightSupplier(server.url, 5000));
  const afterSale = checkedFlightAfterSale({ name: 'simulator', ...simulatorFlightAfterSale(server.url, 5000) });
  return { server, flights, afterSale };
}

let sim: Airline;
/** One whose change offers expire within the test. */
let brief: Airline;
beforeAll(async () => {
  sim = await airline();
  brief = await airline({ changeOfferTtlMs: CHANGE_OFFER_TTL_MS });
});
afterAll(async () => {
  await sim?.server.close();
  await brief?.server.close();
});

let sequence = 0;
const reference = () => `after-sale-${++sequence}`;

const searchOn = (daysAhead: number) => ({
  origin: 'THR',
  destination: 'MHD',
  departure_date: day(daysAhead),
  adults: 1,
  children: 0,
  infants: 0,
  cabin: 'economy' as const,
});

/** A THR–MHD booking `daysAhead` in `family`, ticketed unless `ticket` is false (and under `scenario` when given). */
async function booked(on: Airline, daysAhead: number, family: string, opts: { ticket?: boolean; scenario?: string } = {}): Promise<FlightOrder> {
  const found = await on.flights.search(searchOn(daysAhead));
  const offer = found.offers.find((o) => o.fare_family === family)!;
  const held = await on.flights.hold({ offerId: offer.offer_id, clientReference: reference(), travelers: [traveller], contact });
  if (opts.ticket === false) return held;
  return withScenario(opts.scenario, () => on.flights.issue(held.order_id, { clientReference: reference(), amount: held.total }));
}

const laterFlight = (daysAhead: number) => ({
  remove: [0],
  add: [{ origin: 'THR', destination: 'MHD', departure_date: day(daysAhead), cabin: 'economy' as const }],
});

/** What the call threw (it must throw). */
async function failure(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: Error) => err,
  );
}

async function control(on: Airline, path: string, body: unknown) {
  const res = await fetch(`${on.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('order changes on the simulated airline', () => {
  it('offers a later flight for the fare difference plus the fare’s change penalty, and confirming it reissues the order', async () => {
    const order = await booked(sim, 30, 'Saver');
    const conditions = await sim.flights.conditions((await sim.flights.search(searchOn(30))).offers.find((o) => o.fare_family === 'Saver')!.offer_id);
    const before = Date.now();
    const request = await sim.afterSale.requestChange(order.order_id, laterFlight(32));
    expect(request.order_id).toBe(order.order_id);
    expect(request.offers.length).toBeGreaterThanOrEqual(1);
    expect(request.offers.length).toBeLessThanOrEqual(3);
    const [offer] = request.offers;
    // A one-way Saver: its change penalty is 25% of its base fare, as its conditions say.
    expect(offer!.penalty.amount_minor).toBeGreaterThan(0);
    expect(offer!.penalty).toEqual(conditions.change_before_departure.penalty);
    expect(offer!.change_total.amount_minor).toBe(offer!.new_total.amount_minor - order.total.amount_minor + offer!.penalty.amount_minor);
    expect(offer!.change_total.currency).toBe(order.total.currency);
    expect(offer!.add[0]!.segments[0]!.departure.slice(0, 10)).toBe(day(32));
    expect(Date.parse(offer!.expires_at) - before).toBeGreaterThanOrEqual(29 * 60_000);
    expect(offer!.change_id).toBeNull();

    const change = await sim.afterSale.createChange(offer!.change_offer_id);
    expect(change).toMatchObject({ change_offer_id: offer!.change_offer_id, order_id: order.order_id, confirmed_at: null, change_total: offer!.change_total });
    // Once per offer: making it again, and the look-ups, answer the same change.
    expect((await sim.afterSale.createChange(offer!.change_offer_id)).change_id).toBe(change.change_id);
    expect((await sim.afterSale.findChange(offer!.change_offer_id))?.change_id).toBe(change.change_id);
    expect((await sim.afterSale.changeOffer(offer!.change_offer_id)).change_id).toBe(change.change_id);
    // Nothing is changed until it is confirmed.
    expect((await sim.flights.order(order.order_id)).legs).toEqual(order.legs);

    const wrongAmount = await failure(
      sim.afterSale.confirmChange(change.change_id, { amount: { ...change.change_total, amount_minor: change.change_total.amount_minor - 1 } }),
    );
    expect(wrongAmount).toBeInstanceOf(SupplierRejectedError);
    expect(wrongAmount.message).toMatch(/the payment must be the change's total/);

    const confirmed = await sim.afterSale.confirmChange(change.change_id, { amount: change.change_total });
    expect(confirmed.confirmed_at).not.toBeNull();
    const changed = await sim.flights.order(order.order_id);
    expect(changed.legs).toEqual(offer!.add);
    expect(changed.total).toEqual(offer!.new_total);
    expect(changed.status).toBe('issued');
    expect(changed.tickets).toHaveLength(1);
    expect(changed.tickets[0]!.ticket_number).not.toBe(order.tickets[0]!.ticket_number);

    // Confirming again answers it as it is: nothing changes twice.
    expect(await sim.afterSale.confirmChange(change.change_id, { amount: change.change_total })).toEqual(confirmed);
    expect(await sim.flights.order(order.order_id)).toEqual(changed);
    expect(await sim.afterSale.change(change.change_id)).toEqual(confirmed);
    // The offer was priced on the order as it was: another one from the same request is stale now.
    if (request.offers[1]) expect(await failure(sim.afterSale.createChange(request.offers[1].change_offer_id))).toMatchObject({ status: 409 });
  });

  it('refunds the difference when the new flight costs less: a negative total, confirmed without a payment', async () => {
    // Within a week of departure the fare is 25% dearer; a Flex fare changes without penalty.
    const order = await booked(sim, 3, 'Flex');
    const [offer] = (await sim.afterSale.requestChange(order.order_id, laterFlight(20))).offers;
    expect(offer!.penalty.amount_minor).toBe(0);
    expect(offer!.change_total.amount_minor).toBeLessThan(0);
    expect(offer!.new_total.amount_minor).toBe(order.total.amount_minor + offer!.change_total.amount_minor);
    const change = await sim.afterSale.createChange(offer!.change_offer_id);
    const confirmed = await sim.afterSale.confirmChange(change.change_id, { amount: { amount_minor: 0, currency: offer!.change_total.currency } });
    expect(confirmed.confirmed_at).not.toBeNull();
    expect((await sim.flights.order(order.order_id)).total).toEqual(offer!.new_total);
  });

  it('charges a penalty on a fare whose change is free under the change_penalty scenario', async () => {
    const order = await booked(sim, 34, 'Flex');
    const plain = (await sim.afterSale.requestChange(order.order_id, laterFlight(36))).offers[0]!;
    const penalised = (await withScenario('change_penalty', () => sim.afterSale.requestChange(order.order_id, laterFlight(36)))).offers[0]!;
    expect(plain.penalty.amount_minor).toBe(0);
    expect(penalised.penalty.amount_minor).toBeGreaterThan(0);
    expect(penalised.change_total.amount_minor).toBe(plain.change_total.amount_minor + penalised.penalty.amount_minor);
  });

  it('refuses an offer, or a change made from one, once it has expired', async () => {
    const order = await booked(brief, 30, 'Standard');
    const [first, second] = (await brief.afterSale.requestChange(order.order_id, laterFlight(31))).offers;
    const change = await brief.afterSale.createChange(first!.change_offer_id);
    await new Promise((r) => setTimeout(r, CHANGE_OFFER_TTL_MS + 100));
    const tooLate = await failure(brief.afterSale.confirmChange(change.change_id, { amount: change.change_total }));
    expect(tooLate).toBeInstanceOf(SupplierRejectedError);
    expect(tooLate).toMatchObject({ status: 410 });
    expect(tooLate.message).toMatch(/expired/);
    expect(await failure(brief.afterSale.createChange(second!.change_offer_id))).toMatchObject({ status: 410 });
    expect((await brief.flights.order(order.order_id)).legs).toEqual(order.legs);

    // The change_offer_expires scenario: offers that expire as they are made.
    const other = await booked(sim, 38, 'Standard');
    const expiring = (await withScenario('change_offer_expires', () => sim.afterSale.requestChange(other.order_id, laterFlight(39)))).offers[0]!;
    expect(Date.parse(expiring.expires_at)).toBeLessThanOrEqual(Date.now());
    const refused = await failure(sim.afterSale.createChange(expiring.change_offer_id));
    expect(refused).toBeInstanceOf(SupplierRejectedError);
    expect(refused.message).toMatch(/the change offer expired/);
  });

  it('refuses changes the airline does not make, each a rejection', async () => {
    const held = await booked(sim, 40, 'Saver', { ticket: false });
    expect(await failure(sim.afterSale.requestChange(held.order_id, laterFlight(41)))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/only a ticketed booking/),
    });
    const issued = await booked(sim, 42, 'Saver');
    expect(await failure(sim.afterSale.requestChange(issued.order_id, { ...laterFlight(43), remove: [1] }))).toMatchObject({ status: 400 });
    expect(
      await failure(
        sim.afterSale.requestChange(issued.order_id, { remove: [0], add: [{ origin: 'THR', destination: 'MHD', departure_date: day(43), cabin: 'business' }] }),
      ),
    ).toMatchObject({ status: 422, message: expect.stringMatching(/keeps the booking's cabin/) });
    expect(await failure(sim.afterSale.requestChange('NOSUCH', laterFlight(43)))).toMatchObject({ status: 404 });
    expect(await failure(sim.afterSale.confirmChange('ACH-999999', { amount: issued.total }))).toMatchObject({ status: 404 });
    expect(await sim.afterSale.findChange('ACO-999999')).toBeNull();
  });

  it('makes and confirms a change whose answers are lost: the look-ups find it, and a repeat changes nothing twice', async () => {
    const order = await booked(sim, 44, 'Standard');
    const [offer] = (await sim.afterSale.requestChange(order.order_id, laterFlight(45))).offers;
    const lost = await failure(withScenario('supplier_lost_response', () => sim.afterSale.createChange(offer!.change_offer_id)));
    expect(lost).toBeInstanceOf(SupplierUnavailableError);
    const found = await sim.afterSale.findChange(offer!.change_offer_id);
    expect(found).toMatchObject({ change_offer_id: offer!.change_offer_id, confirmed_at: null });

    expect(
      await failure(withScenario('supplier_lost_response', () => sim.afterSale.confirmChange(found!.change_id, { amount: found!.change_total }))),
    ).toBeInstanceOf(SupplierUnavailableError);
    const confirmed = await sim.afterSale.change(found!.change_id);
    expect(confirmed.confirmed_at).not.toBeNull();
    const changed = await sim.flights.order(order.order_id);
    expect(changed.legs).toEqual(offer!.add);
    expect(await sim.afterSale.confirmChange(found!.change_id, { amount: found!.change_total })).toEqual(confirmed);
    expect(await sim.flights.order(order.order_id)).toEqual(changed);
  });

  it('answers 503 while the airline is down, the look-up included; a refusal makes no change', async () => {
    const order = await booked(sim, 46, 'Standard');
    const [offer] = (await sim.afterSale.requestChange(order.order_id, laterFlight(47))).offers;
    const down = await failure(withScenario('supplier_down', () => sim.afterSale.createChange(offer!.change_offer_id)));
    expect(down).toBeInstanceOf(SupplierUnavailableError);
    expect(await failure(withScenario('supplier_down', () => sim.afterSale.findChange(offer!.change_offer_id)))).toBeInstanceOf(SupplierUnavailableError);
    expect(await sim.afterSale.findChange(offer!.change_offer_id)).toBeNull();
    const refused = await failure(withScenario('supplier_reject', () => sim.afterSale.createChange(offer!.change_offer_id)));
    expect(refused).toMatchObject({ status: 422, message: expect.stringMatching(/refused the change/) });
    expect(await sim.afterSale.findChange(offer!.change_offer_id)).toBeNull();
  });
});

describe('the airline’s schedule changes on the simulated airline', () => {
  const HOUR_MS = 3_600_000;
  const departure = (o: FlightOrder) => Date.parse(o.legs[0]!.segments[0]!.departure);

  it('plants one through the control API; accepting it moves the order’s flight, and accepting again answers it as it is', async () => {
    const order = await booked(sim, 50, 'Saver');
    expect(await sim.afterSale.scheduleChanges(order.order_id)).toEqual([]);
    const planted = await control(sim, `/_control/air/bookings/${order.order_id}/airline_changes`, { shift_minutes: 120 });
    expect(planted.status).toBe(201);

    const [change] = await sim.afterSale.scheduleChanges(order.order_id);
    expect(change).toMatchObject({ order_id: order.order_id, available_actions: ['accept', 'cancel', 'change'], action_taken: null, action_taken_at: null });
    expect(change!.removed).toEqual(order.legs);
    expect(Date.parse(change!.added[0]!.segments[0]!.departure) - departure(order)).toBe(2 * HOUR_MS);
    // The order keeps its flights until the change is accepted.
    expect((await sim.flights.order(order.order_id)).legs).toEqual(order.legs);

    const accepted = await sim.afterSale.acceptScheduleChange(change!.change_id);
    expect(accepted).toMatchObject({ change_id: change!.change_id, action_taken: 'accepted', available_actions: [] });
    expect(accepted.action_taken_at).not.toBeNull();
    const moved = await sim.flights.order(order.order_id);
    expect(moved.legs).toEqual(change!.added);
    expect(moved.tickets).toEqual(order.tickets);
    expect(await sim.afterSale.acceptScheduleChange(change!.change_id)).toEqual(accepted);
    expect(await sim.afterSale.scheduleChanges(order.order_id)).toEqual([accepted]);
  });

  it('plants one at ticketing under the schedule_change scenario: the first flight 3 hours later', async () => {
    const order = await booked(sim, 52, 'Standard', { scenario: 'schedule_change' });
    expect(order.status).toBe('issued');
    const [change] = await sim.afterSale.scheduleChanges(order.order_id);
    expect(change).toMatchObject({ action_taken: null, available_actions: ['accept', 'cancel', 'change'] });
    expect(Date.parse(change!.added[0]!.segments[0]!.departure) - departure(order)).toBe(3 * HOUR_MS);
  });

  it('refunds in full a ticket cancelled while the airline’s change is open, and marks the change cancelled', async () => {
    const plain = await booked(sim, 54, 'Saver');
    const plainQuote = await sim.flights.quoteCancellation(plain.order_id);
    expect(plainQuote.refund.amount_minor).toBeLessThan(plain.total.amount_minor);

    const order = await booked(sim, 54, 'Saver', { scenario: 'schedule_change' });
    const quote = await sim.flights.quoteCancellation(order.order_id);
    expect(quote.refund).toEqual(order.total);
    const cancelled = await sim.flights.confirmCancellation(quote, { clientReference: reference() });
    expect(cancelled.refund).toEqual(order.total);
    const [change] = await sim.afterSale.scheduleChanges(order.order_id);
    expect(change).toMatchObject({ action_taken: 'cancelled', available_actions: [] });
    expect(await failure(sim.afterSale.acceptScheduleChange(change!.change_id))).toMatchObject({ status: 409 });
  });

  it('answers the airline’s change with the traveller’s own: the change is marked changed', async () => {
    const order = await booked(sim, 56, 'Flex', { scenario: 'schedule_change' });
    const [offer] = (await sim.afterSale.requestChange(order.order_id, laterFlight(57))).offers;
    const change = await sim.afterSale.createChange(offer!.change_offer_id);
    await sim.afterSale.confirmChange(change.change_id, { amount: change.change_total });
    const [airline] = await sim.afterSale.scheduleChanges(order.order_id);
    expect(airline).toMatchObject({ action_taken: 'changed', available_actions: [] });
  });

  it('accepts one whose answer is lost: the list shows it accepted, and accepting again changes nothing', async () => {
    const order = await booked(sim, 58, 'Saver', { scenario: 'schedule_change' });
    const [change] = await sim.afterSale.scheduleChanges(order.order_id);
    expect(await failure(withScenario('supplier_lost_response', () => sim.afterSale.acceptScheduleChange(change!.change_id)))).toBeInstanceOf(
      SupplierUnavailableError,
    );
    const [found] = await sim.afterSale.scheduleChanges(order.order_id);
    expect(found).toMatchObject({ action_taken: 'accepted' });
    const moved = await sim.flights.order(order.order_id);
    expect(moved.legs).toEqual(change!.added);
    expect(await sim.afterSale.acceptScheduleChange(change!.change_id)).toEqual(found);
    expect(await sim.flights.order(order.order_id)).toEqual(moved);
  });

  it('refuses to plant one on an order not ticketed', async () => {
    const held = await booked(sim, 60, 'Saver', { ticket: false });
    expect((await control(sim, `/_control/air/bookings/${held.order_id}/airline_changes`, {})).status).toBe(409);
    expect((await control(sim, `/_control/air/bookings/NOSUCH/airline_changes`, {})).status).toBe(404);
  });
});

describe('seats and bags on the simulated airline', () => {
  const second = { ...traveller, first_name: 'Sara', gender: 'female' as const, national_id: '0012345680' };
  const roundTrip = (daysAhead: number) => ({ ...searchOn(daysAhead), return_date: day(daysAhead + 4), adults: 2 });
  const offerFor = async (daysAhead: number) => (await sim.flights.search(roundTrip(daysAhead))).offers.find((o) => o.fare_family === 'Standard')!;
  const seatsOf = (maps: Awaited<ReturnType<FlightAfterSale['seatMaps']>>, leg = 0, segment = 0) =>
    maps.find((m) => m.leg_index === leg && m.segment_index === segment)!.cabins[0]!.rows.flatMap((r) => r.seats);
  const holding = (offerId: string, services: Array<{ service_id: string; quantity: number }>) =>
    sim.flights.hold({ offerId, clientReference: reference(), travelers: [traveller, second], contact, services });

  it('maps each segment’s seats: some taken, some free of charge, the rest priced for each traveller', async () => {
    const offer = await offerFor(70);
    const maps = await sim.afterSale.seatMaps(offer.offer_id);
    expect(maps.map((m) => [m.leg_index, m.segment_index])).toEqual(offer.legs.flatMap((leg, l) => leg.segments.map((_, s) => [l, s])));
    const seats = seatsOf(maps);
    const taken = seats.filter((s) => s.prices.length === 0);
    const free = seats.filter((s) => s.prices.length > 0 && s.prices.every((p) => p.price.amount_minor === 0));
    const paid = seats.filter((s) => s.prices.some((p) => p.price.amount_minor > 0));
    expect([taken.length, free.length, paid.length].every((n) => n > 0)).toBe(true);
    expect(paid[0]!.prices.map((p) => p.traveler_index)).toEqual([0, 1]);
    expect(new Set(paid[0]!.prices.map((p) => p.service_id)).size).toBe(2);
    expect(paid[0]!.prices[0]!.price.currency).toBe(offer.total.currency);
  });

  it('sells one checked bag per traveller and leg, and books chosen seats and bags with the order, in its total', async () => {
    const offer = await offerFor(72);
    const bags = await sim.afterSale.offerServices(offer.offer_id);
    expect(bags).toHaveLength(4);
    expect(bags.every((b) => b.type === 'baggage' && b.max_quantity === 1 && b.traveler_indexes.length === 1 && b.price.amount_minor > 0)).toBe(true);
    expect(bags.map((b) => [b.traveler_indexes[0], b.segments[0]![0]])).toEqual(
      expect.arrayContaining([
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ]),
    );

    const seats = seatsOf(await sim.afterSale.seatMaps(offer.offer_id));
    const paid = seats.find((s) => s.prices.some((p) => p.price.amount_minor > 0))!;
    const free = seats.find((s) => s.prices.length > 0 && s.prices[0]!.price.amount_minor === 0)!;
    const bag = bags.find((b) => b.traveler_indexes[0] === 0 && b.segments[0]![0] === 0)!;
    const order = await holding(offer.offer_id, [
      { service_id: paid.prices[0]!.service_id, quantity: 1 },
      { service_id: free.prices[1]!.service_id, quantity: 1 },
      { service_id: bag.service_id, quantity: 1 },
    ]);
    expect(order.services).toEqual([
      {
        service_id: paid.prices[0]!.service_id,
        type: 'seat',
        traveler_index: 0,
        segments: [[0, 0]],
        quantity: 1,
        total: paid.prices[0]!.price,
        designator: paid.designator,
      },
      {
        service_id: free.prices[1]!.service_id,
        type: 'seat',
        traveler_index: 1,
        segments: [[0, 0]],
        quantity: 1,
        total: free.prices[1]!.price,
        designator: free.designator,
      },
      { service_id: bag.service_id, type: 'baggage', traveler_index: 0, segments: bag.segments, quantity: 1, total: bag.price },
    ]);
    expect(order.total.amount_minor).toBe(offer.total.amount_minor + paid.prices[0]!.price.amount_minor + bag.price.amount_minor);

    // The seats are this order's now: the map shows them taken, and another order cannot have them.
    const after = seatsOf(await sim.afterSale.seatMaps(offer.offer_id));
    expect(after.find((s) => s.designator === paid.designator)!.prices).toEqual([]);
    const again = await failure(holding(offer.offer_id, [{ service_id: paid.prices[1]!.service_id, quantity: 1 }]));
    expect(again).toBeInstanceOf(SupplierRejectedError);
    expect(again).toMatchObject({ status: 409, message: expect.stringMatching(new RegExp(`seat ${paid.designator} on .* is not available`)) });
  });

  it('refuses a booking whose seat was taken meanwhile (seat_taken), booking nothing', async () => {
    const offer = await offerFor(74);
    const seat = seatsOf(await sim.afterSale.seatMaps(offer.offer_id)).find((s) => s.prices.length > 0)!;
    const before = await sim.flights.price(offer.offer_id);
    const refused = await failure(withScenario('seat_taken', () => holding(offer.offer_id, [{ service_id: seat.prices[0]!.service_id, quantity: 1 }])));
    expect(refused).toBeInstanceOf(SupplierRejectedError);
    expect(refused).toMatchObject({ status: 409, message: expect.stringMatching(/was taken meanwhile/) });
    expect((await sim.flights.price(offer.offer_id)).seats_left).toBe(before.seats_left);
    // Without seats the scenario books as usual.
    expect((await withScenario('seat_taken', () => holding(offer.offer_id, []))).services).toEqual([]);
  });

  it('refuses services the offer does not sell', async () => {
    const offer = await offerFor(76);
    const seat = seatsOf(await sim.afterSale.seatMaps(offer.offer_id)).find((s) => s.prices.length > 0)!;
    for (const services of [
      [{ service_id: 'bag-5-0', quantity: 1 }],
      [{ service_id: 'extra-legroom', quantity: 1 }],
      [{ service_id: seat.prices[0]!.service_id, quantity: 2 }],
      [
        { service_id: seat.prices[0]!.service_id, quantity: 1 },
        { service_id: seat.prices[1]!.service_id, quantity: 1 },
      ],
    ]) {
      expect(await failure(holding(offer.offer_id, services))).toMatchObject({ status: 400 });
    }
  });

  it('adds bags to a ticketed order for their price; a lost answer shows on the order, and adding again adds nothing', async () => {
    const offer = await offerFor(78);
    const held = await holding(offer.offer_id, []);
    expect(await failure(sim.afterSale.orderServices(held.order_id))).toMatchObject({ status: 409 });
    const order = await sim.flights.issue(held.order_id, { clientReference: reference(), amount: held.total });
    const bags = await sim.afterSale.orderServices(order.order_id);
    expect(bags).toHaveLength(4);
    const [bag] = bags;
    const chosen = [{ service_id: bag!.service_id, quantity: 1 }];

    const wrong = await failure(
      sim.afterSale.addServices(order.order_id, { services: chosen, amount: { ...bag!.price, amount_minor: bag!.price.amount_minor + 1 } }),
    );
    expect(wrong).toMatchObject({ status: 422, message: expect.stringMatching(/the payment must be the bags' total/) });
    const refused = await failure(withScenario('bag_refused', () => sim.afterSale.addServices(order.order_id, { services: chosen, amount: bag!.price })));
    expect(refused).toBeInstanceOf(SupplierRejectedError);
    expect(refused).toMatchObject({ status: 422, message: expect.stringMatching(/refused the bags/) });
    expect(await sim.flights.order(order.order_id)).toEqual(order);

    const lost = await failure(
      withScenario('supplier_lost_response', () => sim.afterSale.addServices(order.order_id, { services: chosen, amount: bag!.price })),
    );
    expect(lost).toBeInstanceOf(SupplierUnavailableError);
    const withBag = await sim.flights.order(order.order_id);
    expect(withBag.services).toEqual([
      { service_id: bag!.service_id, type: 'baggage', traveler_index: bag!.traveler_indexes[0], segments: bag!.segments, quantity: 1, total: bag!.price },
    ]);
    expect(withBag.total.amount_minor).toBe(order.total.amount_minor + bag!.price.amount_minor);
    expect((await sim.afterSale.orderServices(order.order_id)).map((b) => b.service_id)).not.toContain(bag!.service_id);
    expect(await failure(sim.afterSale.addServices(order.order_id, { services: chosen, amount: bag!.price }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/already on the booking/),
    });
    expect(await sim.flights.order(order.order_id)).toEqual(withBag);

    // A seat is chosen with the booking only.
    const seat = seatsOf(await sim.afterSale.seatMaps(offer.offer_id)).find((s) => s.prices.length > 0)!;
    expect(
      await failure(sim.afterSale.addServices(order.order_id, { services: [{ service_id: seat.prices[0]!.service_id, quantity: 1 }], amount: bag!.price })),
    ).toMatchObject({
      status: 422,
    });
  });

  it('drops the seats and bags of the legs a change removes, from the order and its new total', async () => {
    const offer = await offerFor(80);
    const seat = seatsOf(await sim.afterSale.seatMaps(offer.offer_id), 1).find((s) => s.prices.some((p) => p.price.amount_minor > 0))!;
    const bags = await sim.afterSale.offerServices(offer.offer_id);
    const outboundBag = bags.find((b) => b.segments[0]![0] === 0)!;
    const held = await holding(offer.offer_id, [
      { service_id: seat.prices[0]!.service_id, quantity: 1 },
      { service_id: outboundBag.service_id, quantity: 1 },
    ]);
    const order = await sim.flights.issue(held.order_id, { clientReference: reference(), amount: held.total });
    // The return flies two days later: its seat goes, the outbound bag stays.
    const back = order.legs[1]!.segments[0]!;
    const [change] = (
      await sim.afterSale.requestChange(order.order_id, {
        remove: [1],
        add: [{ origin: back.origin, destination: back.destination, departure_date: day(86), cabin: 'economy' }],
      })
    ).offers;
    const made = await sim.afterSale.createChange(change!.change_offer_id);
    await sim.afterSale.confirmChange(made.change_id, { amount: made.change_total });
    const changed = await sim.flights.order(order.order_id);
    expect(changed.services).toEqual([expect.objectContaining({ service_id: outboundBag.service_id, segments: outboundBag.segments })]);
    expect(changed.total).toEqual(change!.new_total);
    expect(seatsOf(await sim.afterSale.seatMaps(offer.offer_id), 1).find((s) => s.designator === seat.designator)!.prices).not.toEqual([]);
  });
});
