import { createHmac } from 'node:crypto';
import { Duffel, DuffelError } from '@duffel/api';
import type { CreateOrder, Order, SeatMapCabinRowSectionElementSeat } from '@duffel/api/types';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { signDuffelWebhook } from '../support/duffel/webhooks';

/**
 * The Duffel stand-in's endpoints after the sale (order changes, airline-initiated changes,
 * seat maps, services), driven through the real `@duffel/api` SDK: answers and refusals in
 * the shapes the SDK and Duffel's reference give them.
 */

const TOKEN = 'duffel_test_after_sale_stand_in';
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function duffelError(call: Promise<unknown>): Promise<InstanceType<typeof DuffelError>> {
  try {
    await call;
  } catch (err) {
    if (err instanceof DuffelError) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}

let standIn: DuffelStandIn;
let duffel: Duffel;

beforeAll(async () => {
  standIn = await startDuffelStandIn();
  duffel = new Duffel({ token: TOKEN, basePath: standIn.url });
});
afterAll(() => standIn.stop());
afterEach(() => standIn.control.clearFaults());

/** Basic, Standard and Flex offers THR→MHD for one adult. */
async function offers(days = 30) {
  const res = await duffel.offerRequests.create({
    slices: [{ origin: 'THR', destination: 'MHD', departure_date: inDays(days), departure_time: null, arrival_time: null }],
    passengers: [{ type: 'adult' }],
    cabin_class: 'economy',
    return_offers: true,
  });
  return res.data.offers;
}

const passenger = (id: string) => ({
  id,
  given_name: 'Leila',
  family_name: 'Rahimi',
  born_on: '1985-04-12',
  gender: 'f' as const,
  title: 'ms' as const,
  email: 'leila@example.com',
  phone_number: '+989121234567',
});

type OrderBody = Omit<CreateOrder, 'type'> & { type: 'instant' | 'hold' };
const createOrder = (body: OrderBody) => duffel.orders.create(body as unknown as CreateOrder);

async function instantOrder(fare: 0 | 1 | 2, services: Array<{ id: string; quantity: number; amount: number }> = []): Promise<Order> {
  const offer = (await offers())[fare]!;
  const total = (Number(offer.total_amount) + services.reduce((s, x) => s + x.amount * x.quantity, 0)).toFixed(2);
  const res = await createOrder({
    type: 'instant',
    selected_offers: [offer.id],
    passengers: [passenger(offer.passengers[0]!.id)],
    payments: [{ type: 'balance', amount: total, currency: offer.total_currency }],
    ...(services.length ? { services: services.map(({ id, quantity }) => ({ id, quantity })) } : {}),
  });
  return res.data;
}

describe('order changes', () => {
  it('offers a change on a paid Standard order, with the penalty, and lists the offers by request', async () => {
    const order = await instantOrder(1);
    expect(order.available_actions).toEqual(['cancel', 'change', 'update']);
    const request = (
      await duffel.orderChangeRequests.create({
        order_id: order.id,
        slices: {
          remove: [{ slice_id: order.slices[0]!.id }],
          add: [{ origin: 'THR', destination: 'MHD', departure_date: inDays(35), cabin_class: 'economy' }],
        },
      })
    ).data;
    expect(request.order_change_offers).toHaveLength(3);
    const offer = request.order_change_offers[0]! as unknown as Record<string, unknown>;
    expect(offer).toMatchObject({ order_change_id: null, penalty_total_amount: '40.00', penalty_total_currency: 'GBP', live_mode: false });
    const listed = await fetch(`${standIn.url}/air/order_change_offers?order_change_request_id=${request.id}`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'duffel-version': 'v2' },
    });
    expect(((await listed.json()) as { data: Array<{ id: string }> }).data.map((o) => o.id)).toEqual(request.order_change_offers.map((o) => o.id));
    expect((await duffel.orderChangeRequests.get(request.id)).data.id).toBe(request.id);

    const basic = await instantOrder(0);
    expect(basic.available_actions).toEqual(['cancel', 'update']);
    const refused = await duffelError(
      duffel.orderChangeRequests.create({ order_id: basic.id, slices: { remove: [{ slice_id: basic.slices[0]!.id }], add: [] } }),
    );
    expect(refused.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'order_change_not_allowed' });
    const unknownSlice = await duffelError(duffel.orderChangeRequests.create({ order_id: order.id, slices: { remove: [{ slice_id: 'sli_nope' }], add: [] } }));
    expect(unknownSlice.errors[0]).toMatchObject({ code: 'not_found', source: { pointer: '/slices/remove/0/slice_id' } });
  });

  it('confirms a change with a payment when it costs something, refuses a wrong amount or a missing payment, and names the change on its offer', async () => {
    const order = await instantOrder(1);
    const request = (
      await duffel.orderChangeRequests.create({
        order_id: order.id,
        slices: {
          remove: [{ slice_id: order.slices[0]!.id }],
          add: [{ origin: 'THR', destination: 'MHD', departure_date: inDays(35), cabin_class: 'economy' }],
        },
      })
    ).data;
    const offer = request.order_change_offers.find((o) => Number(o.change_total_amount) > 0)!;
    const change = (await duffel.orderChanges.create({ selected_order_change_offer: offer.id })).data as unknown as { id: string; confirmed_at: null };
    expect(change.confirmed_at).toBeNull();
    expect((await duffel.orderChangeOffers.get(offer.id)).data.order_change_id).toBe(change.id);
    const again = await duffelError(duffel.orderChanges.create({ selected_order_change_offer: offer.id }));
    expect(again.errors[0]!.code).toBe('offer_no_longer_available');

    expect((await duffelError(duffel.orderChanges.confirm(change.id, {}))).errors[0]).toMatchObject({ code: 'validation_required' });
    const wrong = await duffelError(duffel.orderChanges.confirm(change.id, { payment: { type: 'balance', amount: '0.01', currency: 'GBP' } }));
    expect(wrong.errors[0]!.code).toBe('price_changed');
    const confirmed = (await duffel.orderChanges.confirm(change.id, { payment: { type: 'balance', amount: offer.change_total_amount!, currency: 'GBP' } }))
      .data as unknown as { confirmed_at: string };
    expect(confirmed.confirmed_at).not.toBeNull();
    const twice = await duffelError(
      duffel.orderChanges.confirm(change.id, { payment: { type: 'balance', amount: offer.change_total_amount!, currency: 'GBP' } }),
    );
    expect(twice.errors[0]!.code).toBe('order_change_already_confirmed');
    const changed = (await duffel.orders.get(order.id)).data;
    expect(changed.slices[0]!.segments[0]!.departing_at.slice(0, 10)).toBe(inDays(35));
    expect(changed.documents![0]!.unique_identifier).not.toBe(order.documents![0]!.unique_identifier);
  });

  it('answers the new routes with their armed faults: a lost answer, 429 and 500', async () => {
    const order = await instantOrder(2);
    standIn.control.failNext('POST /air/order_change_requests', { status: 429 });
    const limited = await duffelError(
      duffel.orderChangeRequests.create({ order_id: order.id, slices: { remove: [{ slice_id: order.slices[0]!.id }], add: [] } }),
    );
    expect(limited.meta?.status ?? limited.status).toBe(429);
    standIn.control.failNext('GET /air/seat_maps', { status: 500 });
    expect((await duffelError(duffel.seatMaps.get({ offer_id: (await offers())[1]!.id }))).errors[0]!.type).toBe('api_error');
    standIn.control.loseNextAnswer('POST /air/order_change_requests');
    await expect(
      duffel.orderChangeRequests.create({ order_id: order.id, slices: { remove: [{ slice_id: order.slices[0]!.id }], add: [] } }),
    ).rejects.not.toBeInstanceOf(DuffelError);
    expect(standIn.control.requests('POST /air/order_change_requests').at(-1)).toMatchObject({ status: 201, lostAnswer: true });
  });
});

describe('airline-initiated changes', () => {
  it('lists a planted change, accepts it once, and records an update', async () => {
    const order = await instantOrder(1);
    const { change } = await standIn.control.plantAirlineChange(order.id, { deliver: 'none' });
    const listed = (await duffel.airlineInitiatedChanges.list(order.id)).data!;
    expect(listed.map((c) => c.id)).toEqual([change.id]);
    expect((await duffel.orders.get(order.id)).data.airline_initiated_changes!.map((c) => c.id)).toEqual([change.id]);
    const accepted = (await duffel.airlineInitiatedChanges.accept(change.id)).data;
    expect(accepted).toMatchObject({ action_taken: 'accepted', available_actions: [] });
    expect((await duffelError(duffel.airlineInitiatedChanges.accept(change.id))).errors[0]!.code).toBe('already_actioned');
    expect((await duffel.orders.get(order.id)).data.slices[0]!.id).toBe(change.added[0]!.id);

    const other = await standIn.control.plantAirlineChange(order.id, { deliver: 'none' });
    expect((await duffel.airlineInitiatedChanges.update(other.change.id, 'cancelled')).data).toMatchObject({ action_taken: 'cancelled' });
  });

  it('keeps the event when no receiver is set, and signs as Duffel does', async () => {
    const order = await instantOrder(2);
    const { event } = await standIn.control.plantAirlineChange(order.id);
    expect(await standIn.control.deliverWebhook(event.id)).toBeNull();
    expect(standIn.control.webhookEvents().map((e) => e.id)).toContain(event.id);
    expect(signDuffelWebhook('{}', 'secret', 1700000000)).toBe(`t=1700000000,v1=${createHmac('sha256', 'secret').update('1700000000.{}').digest('hex')}`);
  });
});

describe('controls over HTTP', () => {
  it('plants an airline change, expires a change offer and arms a fault on a new route', async () => {
    const order = await instantOrder(2);
    const post = (path: string, body: unknown = {}) =>
      fetch(`${standIn.url}/_stand_in${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const planted = await post(`/orders/${order.id}/airline_initiated_changes`, { shift_minutes: -30, deliver: 'none' });
    expect(planted.status).toBe(200);
    const { data } = (await planted.json()) as { data: { change: { id: string }; event: { id: string } } };
    expect((await duffel.airlineInitiatedChanges.list(order.id)).data!.map((c) => c.id)).toEqual([data.change.id]);
    expect((await post(`/webhook_events/${data.event.id}/deliver`)).status).toBe(200);
    expect((await post('/webhook_events/wev_unknown/deliver')).status).toBe(404);

    const request = (await duffel.orderChangeRequests.create({ order_id: order.id, slices: { remove: [{ slice_id: order.slices[0]!.id }], add: [] } })).data;
    expect((await post(`/order_change_offers/${request.order_change_offers[0]!.id}/expire`)).status).toBe(200);
    const expired = await duffelError(duffel.orderChanges.create({ selected_order_change_offer: request.order_change_offers[0]!.id }));
    expect(expired.errors[0]!.code).toBe('offer_no_longer_available');

    expect((await post('/faults', { route: 'POST /air/airline_initiated_changes/:id/actions/accept', status: 503 })).status).toBe(200);
    expect((await duffelError(duffel.airlineInitiatedChanges.accept(data.change.id))).errors[0]!.code).toBe('service_unavailable');
  });
});

describe('seats and services', () => {
  it('sells a seat and a bag with an instant order, refuses them with a hold, and takes a seat once', async () => {
    const offer = (await offers())[1]!;
    const [map] = (await duffel.seatMaps.get({ offer_id: offer.id })).data;
    const seats = map!.cabins[0]!.rows.flatMap((r) => r.sections.flatMap((s) => s.elements)).filter(
      (e): e is SeatMapCabinRowSectionElementSeat => e.type === 'seat',
    );
    const [seat, taken] = seats.filter((s) => s.available_services.length > 0 && Number(s.available_services[0]!.total_amount) > 0);
    standIn.control.takeSeat(map!.segment_id, taken!.designator);
    const [mapNow] = (await duffel.seatMaps.get({ offer_id: offer.id })).data;
    const takenNow = mapNow!.cabins[0]!.rows.flatMap((r) => r.sections.flatMap((s) => s.elements)).find(
      (e) => 'designator' in e && e.designator === taken!.designator,
    );
    expect(takenNow).toMatchObject({ available_services: [] });
    const bag = (await duffel.offers.get(offer.id, { return_available_services: true })).data.available_services[0]!;
    expect((await duffel.offers.get(offer.id)).data.available_services).toEqual([]);

    const hold = await duffelError(
      createOrder({ type: 'hold', selected_offers: [offer.id], passengers: [passenger(offer.passengers[0]!.id)], services: [{ id: bag.id, quantity: 1 }] }),
    );
    expect(hold.errors[0]).toMatchObject({ type: 'validation_error', source: { field: 'services' } });

    const takenService = taken!.available_services[0]!;
    const refused = await duffelError(
      createOrder({
        type: 'instant',
        selected_offers: [offer.id],
        passengers: [passenger(offer.passengers[0]!.id)],
        payments: [{ type: 'balance', amount: (Number(offer.total_amount) + Number(takenService.total_amount)).toFixed(2), currency: 'GBP' }],
        services: [{ id: takenService.id, quantity: 1 }],
      }),
    );
    expect(refused.errors[0]).toMatchObject({ code: 'not_found', source: { pointer: '/services/0/id' } });
    const service = seat!.available_services[0]!;
    const total = (Number(offer.total_amount) + Number(bag.total_amount) + Number(service.total_amount)).toFixed(2);
    const order = (
      await createOrder({
        type: 'instant',
        selected_offers: [offer.id],
        passengers: [passenger(offer.passengers[0]!.id)],
        payments: [{ type: 'balance', amount: total, currency: 'GBP' }],
        services: [
          { id: bag.id, quantity: 1 },
          { id: service.id, quantity: 1 },
        ],
      })
    ).data;
    expect(order.total_amount).toBe(total);
    expect(order.services.map((s) => s.type)).toEqual(['baggage', 'seat']);
    expect(order.services[1]!.metadata).toMatchObject({ designator: seat!.designator });
  });

  it('adds bags to an issued order for a payment of their total', async () => {
    const order = await instantOrder(1);
    const [bag] = (await duffel.orders.getAvailableServices(order.id)).data;
    expect(bag).toMatchObject({ type: 'baggage', maximum_quantity: 2 });
    const short = await duffelError(
      duffel.orders.addServices(order.id, {
        add_services: [{ id: bag!.id, quantity: 2 }],
        payment: { type: 'balance', amount: bag!.total_amount, currency: 'GBP' },
      }),
    );
    expect(short.errors[0]!.code).toBe('price_changed');
    const added = (
      await duffel.orders.addServices(order.id, {
        add_services: [{ id: bag!.id, quantity: 2 }],
        payment: { type: 'balance', amount: (Number(bag!.total_amount) * 2).toFixed(2), currency: 'GBP' },
      })
    ).data;
    expect(added.services).toEqual([expect.objectContaining({ id: bag!.id, quantity: 2 })]);
    expect((await duffel.orders.getAvailableServices(order.id)).data).toEqual([]);
  });
});
