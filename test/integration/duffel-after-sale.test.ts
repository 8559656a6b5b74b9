import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { duffelCalls } from '../../src/suppliers/adapters/duffel/client';
import { duffelFlightSupplier } from '../../src/suppliers/adapters/duffel/flights';
import { SupplierUnavailableError } from '../../src/suppliers/errors';
import type { FlightOrder } from '../../src/suppliers/flights';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { parseSignedMinor } from '../support/duffel/money';
import { contact, day, traveller } from '../support/fixtures';

/**
 * The Duffel adapter's after-sale port (changes, the airline's changes, seats and bags)
 * against the Duffel stand-in: each call mapped onto Duffel's endpoints, a lost answer looked
 * up before anything is repeated, and the webhook that announces an airline's change signed
 * as Duffel signs it.
 */

const SECRET = 'whsec_after_sale_test';
let standIn: DuffelStandIn;
let receiver: Server;
const received: Array<{ body: string; signature: string }> = [];
let supplier: ReturnType<typeof duffelFlightSupplier>;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ body, signature: String(req.headers['x-duffel-signature'] ?? '') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/duffel`;
  standIn = await startDuffelStandIn({ webhookUrl: url, webhookSecret: SECRET });
  supplier = duffelFlightSupplier(duffelCalls({ token: 'duffel_test_after_sale', apiUrl: standIn.url, timeoutMs: 3000 }));
});
afterEach(() => {
  standIn.control.clearFaults();
  received.length = 0;
});
afterAll(async () => {
  await standIn?.stop();
  await new Promise((closed) => receiver?.close(closed));
});

const FARE = { basic: 0, standard: 1, flex: 2 } as const;
const DEPARTURE = day(30);

/** An issued one-way THR→MHD order at the fare given, for one adult. */
async function issuedOrder(fare: keyof typeof FARE, cabin: 'economy' | 'business' = 'economy'): Promise<FlightOrder> {
  const found = await supplier.search({ origin: 'THR', destination: 'MHD', departure_date: DEPARTURE, adults: 1, children: 0, infants: 0, cabin });
  const offer = found.offers[FARE[fare]]!;
  const held = await supplier.hold({ offerId: offer.offer_id, clientReference: `ref-${Math.random()}`, travelers: [traveller], contact });
  return supplier.issue(held.order_id, { clientReference: `pay-${held.order_id}`, amount: held.total });
}

/** The stand-in's balance in minor units, parsed from its decimal string as the stand-in parses amounts (exactly). */
const balanceOf = (currency: string) => parseSignedMinor(standIn.control.balance()[currency]!, currency)!;
const later = day(33);

describe('order changes', () => {
  it('prices a change with the airline penalty of a Standard fare, and refuses a Basic fare', async () => {
    const order = await issuedOrder('standard');
    const request = await supplier.requestChange(order.order_id, {
      remove: [0],
      add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }],
    });
    expect(request.offers.length).toBeGreaterThan(0);
    for (const offer of request.offers) {
      expect(offer).toMatchObject({ order_id: order.order_id, remove: [0], change_id: null, penalty: { amount_minor: 4000, currency: 'GBP' } });
      // The change costs the fare difference plus the penalty; the order then costs the new total.
      expect(offer.change_total.amount_minor).toBe(offer.new_total.amount_minor - order.total.amount_minor + offer.penalty.amount_minor);
      expect(offer.add[0]!.segments[0]!.departure.slice(0, 10)).toBe(later);
    }
    expect(await supplier.changeOffer(request.offers[0]!.change_offer_id)).toEqual(request.offers[0]);

    const basic = await issuedOrder('basic');
    await expect(
      supplier.requestChange(basic.order_id, { remove: [0], add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }] }),
    ).rejects.toMatchObject({ name: 'SupplierRejectedError', status: 422, code: 'order_change_not_allowed' });
  });

  it('makes and confirms a change paid from the balance: the order has the new leg and new tickets', async () => {
    const order = await issuedOrder('standard');
    const { offers } = await supplier.requestChange(order.order_id, {
      remove: [0],
      add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }],
    });
    const offer = offers.find((o) => o.change_total.amount_minor > 0)!;
    const before = balanceOf('GBP');
    const pending = await supplier.createChange(offer.change_offer_id);
    expect(pending).toMatchObject({ change_offer_id: offer.change_offer_id, order_id: order.order_id, change_total: offer.change_total, confirmed_at: null });
    expect(await supplier.findChange(offer.change_offer_id)).toEqual(pending);

    const confirmed = await supplier.confirmChange(pending.change_id, { amount: offer.change_total });
    expect(confirmed.confirmed_at).not.toBeNull();
    expect(before - balanceOf('GBP')).toBe(offer.change_total.amount_minor);
    const changed = await supplier.order(order.order_id);
    expect(changed.legs[0]!.segments[0]!.departure.slice(0, 10)).toBe(later);
    expect(changed.total).toEqual(offer.new_total);
    expect(changed.tickets).toHaveLength(1);
    expect(changed.tickets[0]!.ticket_number).not.toBe(order.tickets[0]!.ticket_number);
    const confirm = standIn.control.requests('POST /air/order_changes/:id/actions/confirm').at(-1)!;
    expect(confirm.body).toEqual({ payment: { type: 'balance', amount: expect.any(String), currency: 'GBP' } });
  });

  it('finds the change made and the confirmation taken when their answers are lost, and charges once', async () => {
    const order = await issuedOrder('standard');
    const { offers } = await supplier.requestChange(order.order_id, {
      remove: [0],
      add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }],
    });
    const offer = offers.find((o) => o.change_total.amount_minor > 0)!;
    standIn.control.loseNextAnswer('POST /air/order_changes');
    const pending = await supplier.createChange(offer.change_offer_id);
    expect(pending.change_offer_id).toBe(offer.change_offer_id);
    // Asked again (an activity tried again), the same change is answered: the offer names it.
    expect((await supplier.createChange(offer.change_offer_id)).change_id).toBe(pending.change_id);
    const made = standIn.control
      .requests('POST /air/order_changes')
      .filter((r) => r.status === 201 && JSON.stringify(r.body).includes(offer.change_offer_id.split('.')[0]!));
    expect(made).toHaveLength(1);

    const paymentsBefore = standIn.control.payments(order.order_id).length;
    standIn.control.loseNextAnswer('POST /air/order_changes/:id/actions/confirm');
    const confirmed = await supplier.confirmChange(pending.change_id, { amount: offer.change_total });
    expect(confirmed.confirmed_at).not.toBeNull();
    expect(await supplier.confirmChange(pending.change_id, { amount: offer.change_total })).toEqual(confirmed);
    expect(standIn.control.payments(order.order_id)).toHaveLength(paymentsBefore + 1);
  });

  it('refuses a change from an offer that expired, and one whose price is not the one sold', async () => {
    const order = await issuedOrder('flex');
    const { offers } = await supplier.requestChange(order.order_id, {
      remove: [0],
      add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }],
    });
    const [expired, other] = [offers[0]!, offers[1]!];
    standIn.control.expireOrderChangeOffer(expired.change_offer_id.split('.')[0]!);
    await expect(supplier.createChange(expired.change_offer_id)).rejects.toMatchObject({ name: 'SupplierRejectedError', status: 409 });
    expect(await supplier.findChange(expired.change_offer_id)).toBeNull();

    const pending = await supplier.createChange(other.change_offer_id);
    const wrong = { ...other.change_total, amount_minor: other.change_total.amount_minor + 100 };
    await expect(supplier.confirmChange(pending.change_id, { amount: wrong })).rejects.toMatchObject({ status: 409 });
    expect((await supplier.change(pending.change_id)).confirmed_at).toBeNull();
    // Past its expiry, the pending change is refused as no longer available.
    standIn.control.expireOrderChangeOffer(other.change_offer_id.split('.')[0]!);
    await expect(supplier.confirmChange(pending.change_id, { amount: other.change_total })).rejects.toMatchObject({
      status: 409,
      code: 'order_change_expired',
    });
  });

  it('confirms a change that refunds without a payment, and the refund goes to the balance', async () => {
    const order = await issuedOrder('flex');
    const { offers } = await supplier.requestChange(order.order_id, {
      remove: [0],
      add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }],
    });
    // The Basic fare on the new date costs less than the Flex one flown now, and Flex changes free.
    const refund = offers.find((o) => o.change_total.amount_minor < 0)!;
    expect(refund.penalty.amount_minor).toBe(0);
    const before = balanceOf('GBP');
    const pending = await supplier.createChange(refund.change_offer_id);
    const confirmed = await supplier.confirmChange(pending.change_id, { amount: refund.change_total });
    expect(confirmed.change_total.amount_minor).toBeLessThan(0);
    expect(balanceOf('GBP') - before).toBe(-refund.change_total.amount_minor);
    expect(standIn.control.requests('POST /air/order_changes/:id/actions/confirm').at(-1)!.body).toEqual({});
  });

  it('looks a change up after a 500 and finds none made; a 429 is waited out', async () => {
    const order = await issuedOrder('flex');
    const { offers } = await supplier.requestChange(order.order_id, {
      remove: [0],
      add: [{ origin: 'THR', destination: 'MHD', departure_date: later, cabin: 'economy' }],
    });
    standIn.control.failNext('POST /air/order_changes', { status: 500 });
    await expect(supplier.createChange(offers[0]!.change_offer_id)).rejects.toBeInstanceOf(SupplierUnavailableError);
    expect(await supplier.findChange(offers[0]!.change_offer_id)).toBeNull();
    standIn.control.failNext('POST /air/order_changes', { status: 429, resetSeconds: 0 });
    expect((await supplier.createChange(offers[0]!.change_offer_id)).confirmed_at).toBeNull();
  });
});

/** Duffel's signature check, written from its webhook documentation, independent of the stand-in's signing. */
function duffelSignatureValid(rawBody: string, header: string, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

describe("the airline's schedule changes", () => {
  it('announces a change by a signed webhook, lists it, and accepts it after a lost answer', async () => {
    const order = await issuedOrder('standard');
    const { change, event } = await standIn.control.plantAirlineChange(order.order_id, { shiftMinutes: 90 });
    expect(received).toHaveLength(1);
    const delivery = received[0]!;
    expect(JSON.parse(delivery.body)).toMatchObject({
      id: event.id,
      type: 'order.airline_initiated_change_detected',
      api_version: 'v2',
      live_mode: false,
      idempotency_key: change.id,
      data: { object: { id: order.order_id, aic_id: change.id } },
    });
    expect(duffelSignatureValid(delivery.body, delivery.signature, SECRET)).toBe(true);
    expect(duffelSignatureValid(delivery.body, delivery.signature, 'whsec_someone_else')).toBe(false);
    expect(duffelSignatureValid(delivery.body.replace(order.order_id, 'ord_0000forged'), delivery.signature, SECRET)).toBe(false);
    const t = Number(/^t=(\d+)/.exec(delivery.signature)![1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60);

    const [listed] = await supplier.scheduleChanges(order.order_id);
    expect(listed).toMatchObject({ order_id: order.order_id, action_taken: null, available_actions: ['accept', 'cancel', 'change', 'update'] });
    const moved = Date.parse(listed!.added[0]!.segments[0]!.departure) - Date.parse(listed!.removed[0]!.segments[0]!.departure);
    expect(moved).toBe(90 * 60_000);

    standIn.control.loseNextAnswer('POST /air/airline_initiated_changes/:id/actions/accept');
    const accepted = await supplier.acceptScheduleChange(listed!.change_id);
    expect(accepted).toMatchObject({ change_id: listed!.change_id, action_taken: 'accepted' });
    expect(await supplier.acceptScheduleChange(listed!.change_id)).toMatchObject({ action_taken: 'accepted' });
    expect((await supplier.order(order.order_id)).legs).toEqual(listed!.added);
  });

  it('delivers an event twice, and events out of the order they happened in', async () => {
    const order = await issuedOrder('flex');
    const twice = await standIn.control.plantAirlineChange(order.order_id, { deliver: 'twice' });
    expect(received.map((r) => JSON.parse(r.body).id)).toEqual([twice.event.id, twice.event.id]);
    received.length = 0;
    const first = await standIn.control.plantAirlineChange(order.order_id, { deliver: 'none' });
    const second = await standIn.control.plantAirlineChange(order.order_id, { deliver: 'none' });
    await standIn.control.deliverWebhook(second.event.id);
    await standIn.control.deliverWebhook(first.event.id);
    expect(received.map((r) => JSON.parse(r.body).id)).toEqual([second.event.id, first.event.id]);
    expect(received.every((r) => duffelSignatureValid(r.body, r.signature, SECRET))).toBe(true);
    expect((await supplier.scheduleChanges(order.order_id)).map((c) => c.change_id.split('.')[0])).toEqual([
      twice.change.id,
      first.change.id,
      second.change.id,
    ]);
  });
});

describe('seats and bags', () => {
  it('maps seat maps with prices per traveller, and none for a Basic fare', async () => {
    const found = await supplier.search({ origin: 'THR', destination: 'MHD', departure_date: DEPARTURE, adults: 2, children: 0, infants: 0, cabin: 'economy' });
    const maps = await supplier.seatMaps(found.offers[FARE.standard]!.offer_id);
    expect(maps).toHaveLength(1);
    expect(maps[0]).toMatchObject({ leg_index: 0, segment_index: 0, cabins: [{ cabin: 'economy' }] });
    const seats = maps[0]!.cabins[0]!.rows.flatMap((r) => r.seats);
    const front = seats.find((s) => s.designator.startsWith('1') && s.prices.length > 0)!;
    expect(front.prices.map((p) => p.traveler_index)).toEqual([0, 1]);
    expect(front.prices[0]!.price).toEqual({ amount_minor: 2500, currency: 'GBP' });
    expect(seats.some((s) => s.prices.length === 0)).toBe(true);
    expect(await supplier.seatMaps(found.offers[FARE.basic]!.offer_id)).toEqual([]);

    const bags = await supplier.offerServices(found.offers[FARE.standard]!.offer_id);
    expect(bags).toHaveLength(2);
    expect(bags[0]).toMatchObject({ type: 'baggage', max_quantity: 1, traveler_indexes: [0], segments: [[0, 0]], bag: { kind: 'checked', max_weight_kg: 23 } });
  });

  /** A Standard fare's offer for one adult, its first seat for sale at the front and its bag. */
  async function seatAndBag() {
    const found = await supplier.search({ origin: 'THR', destination: 'MHD', departure_date: DEPARTURE, adults: 1, children: 0, infants: 0, cabin: 'economy' });
    const offer = found.offers[FARE.standard]!;
    const seats = (await supplier.seatMaps(offer.offer_id))[0]!.cabins[0]!.rows.flatMap((r) => r.seats);
    const seat = seats.find((s) => s.designator.startsWith('1') && s.prices.length > 0)!;
    const [bag] = await supplier.offerServices(offer.offer_id);
    const services = [
      { service_id: seat.prices[0]!.service_id, quantity: 1 },
      { service_id: bag!.service_id, quantity: 1 },
    ];
    return { offer, seat, bag: bag!, services };
  }

  it('books a seat and a bag by making the order when it is paid: nothing at Duffel before, one instant order with both after', async () => {
    const { offer, seat, bag, services } = await seatAndBag();
    const ordersBefore = standIn.control.requests('POST /air/orders').length;
    const held = await supplier.hold({ offerId: offer.offer_id, clientReference: 'flight-book:seat-1', travelers: [traveller], contact, services });
    expect(standIn.control.requests('POST /air/orders')).toHaveLength(ordersBefore);
    expect(held).toMatchObject({ booking_reference: null, status: 'held', payment_required_by: offer.expires_at, tickets: [] });
    expect(held.total.amount_minor).toBe(offer.total.amount_minor + seat.prices[0]!.price.amount_minor + bag.price.amount_minor);
    expect(held.services).toEqual([
      {
        service_id: services[0]!.service_id,
        type: 'seat',
        traveler_index: 0,
        segments: [[0, 0]],
        quantity: 1,
        total: seat.prices[0]!.price,
        designator: seat.designator,
      },
      { service_id: bag.service_id, type: 'baggage', traveler_index: 0, segments: [[0, 0]], quantity: 1, total: bag.price },
    ]);
    // Unpaid, it is the offer: nothing is held to release.
    expect((await supplier.order(held.order_id)).status).toBe('held');
    await expect(supplier.release(held.order_id)).rejects.toMatchObject({ name: 'SupplierRejectedError', status: 410 });

    const balance = balanceOf('GBP');
    const issued = await supplier.issue(held.order_id, {
      clientReference: 'pay:1',
      amount: held.total,
      booking: { travelers: [traveller], contact, services },
    });
    expect(issued).toMatchObject({ status: 'issued', booking_reference: expect.stringMatching(/^[A-Z0-9]{6}$/), order_id: expect.stringMatching(/^ord_/) });
    expect(issued.services).toEqual(held.services);
    expect(issued.tickets).toHaveLength(1);
    expect(balanceOf('GBP')).toBe(balance - held.total.amount_minor);
    const made = standIn.control.requests('POST /air/orders').slice(ordersBefore);
    expect(made.map((r) => [r.status, (r.body as { type: string }).type])).toEqual([[201, 'instant']]);
    // Paid again (a retried step): the order made is found, and nothing is paid twice.
    expect(
      (await supplier.issue(held.order_id, { clientReference: 'pay:1', amount: held.total, booking: { travelers: [traveller], contact, services } })).order_id,
    ).toBe(issued.order_id);
    expect((await supplier.order(held.order_id)).order_id).toBe(issued.order_id);
    expect(standIn.control.payments(issued.order_id)).toHaveLength(1);
  });

  it('finds the order made when the answer to the instant order is lost, and pays once', async () => {
    const { offer, services } = await seatAndBag();
    const held = await supplier.hold({ offerId: offer.offer_id, clientReference: 'flight-book:seat-2', travelers: [traveller], contact, services });
    standIn.control.loseNextAnswer('POST /air/orders');
    const issued = await supplier.issue(held.order_id, {
      clientReference: 'pay:2',
      amount: held.total,
      booking: { travelers: [traveller], contact, services },
    });
    expect(issued.status).toBe('issued');
    expect(standIn.control.payments(issued.order_id)).toHaveLength(1);
  });

  it('refuses the payment of a price that moved, and of a seat taken meanwhile, making nothing', async () => {
    const { offer, seat, services } = await seatAndBag();
    const held = await supplier.hold({ offerId: offer.offer_id, clientReference: 'flight-book:seat-3', travelers: [traveller], contact, services });
    const booking = { travelers: [traveller], contact, services };
    const less = { ...held.total, amount_minor: held.total.amount_minor - 100 };
    await expect(supplier.issue(held.order_id, { clientReference: 'pay:3', amount: less, booking })).rejects.toMatchObject({
      name: 'SupplierRejectedError',
      status: 409,
    });
    // Another traveller takes the seat meanwhile.
    const maps = (await (
      await fetch(`${standIn.url}/air/seat_maps?offer_id=${offer.offer_id}`, {
        headers: { authorization: 'Bearer duffel_test_after_sale', 'duffel-version': 'v2' },
      })
    ).json()) as { data: Array<{ segment_id: string }> };
    standIn.control.takeSeat(maps.data[0]!.segment_id, seat.designator);
    const made = () => standIn.control.requests('POST /air/orders').filter((r) => r.status === 201).length;
    const before = made();
    await expect(supplier.issue(held.order_id, { clientReference: 'pay:3', amount: held.total, booking })).rejects.toMatchObject({
      name: 'SupplierRejectedError',
      status: 422,
    });
    expect(made()).toBe(before);
  });

  it('adds a bag to an issued order once when the answer is lost', async () => {
    const order = await issuedOrder('standard');
    const [bag] = await supplier.orderServices(order.order_id);
    expect(bag).toMatchObject({ type: 'baggage', max_quantity: 2, traveler_indexes: [0] });
    const paymentsBefore = standIn.control.payments(order.order_id).length;
    standIn.control.loseNextAnswer('POST /air/orders/:id/services');
    const added = await supplier.addServices(order.order_id, { services: [{ service_id: bag!.service_id, quantity: 1 }], amount: bag!.price });
    expect(added.services).toEqual([{ service_id: bag!.service_id, type: 'baggage', traveler_index: 0, segments: [[0, 0]], quantity: 1, total: bag!.price }]);
    expect(added.total.amount_minor).toBe(order.total.amount_minor + bag!.price.amount_minor);
    expect(standIn.control.payments(order.order_id)).toHaveLength(paymentsBefore + 1);
    expect((await supplier.orderServices(order.order_id))[0]!.max_quantity).toBe(1);
  });

  it('tries a read again after a 500 and a timeout on the new endpoints', async () => {
    const order = await issuedOrder('standard');
    standIn.control.failNext('GET /air/orders/:id/available_services', { status: 500 });
    standIn.control.failNext('GET /air/airline_initiated_changes', { status: 503 });
    expect(await supplier.orderServices(order.order_id)).toHaveLength(1);
    standIn.control.hangNext('GET /air/orders/:id/available_services');
    expect(await supplier.orderServices(order.order_id)).toHaveLength(1);
    expect(await supplier.scheduleChanges(order.order_id)).toEqual([]);
    standIn.control.failNext('POST /air/orders/:id/services', { status: 422 });
    const [bag] = await supplier.orderServices(order.order_id);
    await expect(supplier.addServices(order.order_id, { services: [{ service_id: bag!.service_id, quantity: 1 }], amount: bag!.price })).rejects.toMatchObject({
      name: 'SupplierRejectedError',
      status: 422,
    });
  });
});
