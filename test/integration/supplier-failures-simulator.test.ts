import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type Http2Bindings, type HttpBindings, type ServerType } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { flightBookings, flightChanges, hotelBookings } from '../../src/db/schema';
import { createSimulatorApp } from '../../src/suppliers/simulator/app';
import { newPartner as partnerWithWallet, type Reply } from '../support/clients';
import { contact, day, roomGuests } from '../support/fixtures';
import { ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';
import { answerTo, endRunningWorkflows, outcomeTable, SUPPLIER_FAILURES, untriedRows, type SupplierFailure } from '../support/supplier-failures';

/**
 * Every call the engine makes to the simulator, in every flow, spoilt every way (a refusal, a
 * rate limit, a 5xx, no answer in time, an answer that is not JSON, an answer lost after the
 * call took effect) for as long as the test lasts: what the partner is answered is the status
 * docs/suppliers.md's outcome table gives, in Interface A's shape, never a 500; a booking is
 * paid for only when it was made, and a refund credited only when it was given, once.
 */

/** RECORD_OUTCOMES=<file>: write what each case answered there instead of checking it (to write the table). */
const record = process.env.RECORD_OUTCOMES;
const table = record ? new Map() : outcomeTable();
const observed: Record<string, Record<string, number>> = {};

const simulator = createSimulatorApp({ slowMs: 3000 });
/** The spoilt call (`METHOD /path/:param`) and how it fails. */
let spoilt: { route: string; failure: SupplierFailure } | null = null;

const matches = (route: string, method: string, path: string) => {
  const [m, pattern] = route.split(' ') as [string, string];
  return m === method && new RegExp(`^${pattern.replace(/:[a-z_]+/g, '[^/]+')}$`).test(path);
};

/** The simulator behind a server that spoils the armed call: before it takes effect (a status, no answer) or after (malformed, lost). */
async function spoiling(req: Request, env: HttpBindings | Http2Bindings): Promise<Response> {
  const socket = env.incoming.socket;
  const path = new URL(req.url).pathname;
  const failure = spoilt && matches(spoilt.route, req.method, path) ? spoilt.failure : null;
  if (failure === 'timeout') {
    await new Promise<void>((closed) => (socket.destroyed ? closed() : socket.once('close', () => closed())));
    return new Response(null, { status: 504 });
  }
  if (failure && /^\d+$/.test(failure)) {
    const headers = failure === '429' ? { 'retry-after': '1' } : undefined;
    return Response.json({ error: `spoilt with ${failure}` }, { status: Number(failure), headers });
  }
  const res = await simulator.fetch(req);
  if (failure === 'malformed') return new Response('{"pnr": "', { status: res.status, headers: { 'content-type': 'application/json' } });
  if (failure === 'lost') {
    await res.arrayBuffer();
    socket.destroy();
  }
  return res;
}

let server: ServerType;
let stack: TestStack;

beforeAll(async () => {
  const url = await new Promise<string>((resolve) => {
    server = serve({ fetch: spoiling, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(`http://127.0.0.1:${info.port}`));
  });
  stack = await startStack({
    payWaitMs: 5_000,
    finalizeAttempts: 2,
    env: {
      SUPPLIER_URL: url,
      SUPPLIER_CALL_TIMEOUT_MS: '500',
      // Each case stands alone: no breaker opens on the failures of the cases before it.
      SUPPLIER_BREAKER_FAILURES: '1000',
      SEARCH_TTLS: 'simulator.flights=0,simulator.hotels=0',
    },
  });
});
afterEach(() => (spoilt = null));
afterAll(async () => {
  if (record) fs.writeFileSync(record, JSON.stringify(observed, null, 1));
  if (stack) await endRunningWorkflows(stack.client);
  await stack?.close();
  await new Promise<void>((done) => {
    server.close(() => done());
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
});

type Api = Awaited<ReturnType<typeof partnerWithWallet>>['api'];
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const balance = async (api: Api) => minor((await api.wallet()).balance);
/** What the simulator itself holds (not through the spoiling server). */
const simulated = async (path: string) => (await (await simulator.fetch(new Request(`http://simulator.test${path}`))).json()) as { status: string };

function ok(reply: Reply, what: string) {
  if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

const traveller = {
  first_name: 'Sara',
  last_name: 'Ahmadi',
  birth_date: '1990-01-01',
  gender: 'female',
  passenger_type: 'ADT',
  nationality: 'IR',
  national_id: '0012345679',
};
/** Each flight search on a day of its own: the simulated airline sells a flight's seats once. */
let flightDay = 30;
const flightSearch = () => ({
  origin: 'THR',
  destination: 'MHD',
  departure_date_time: `${day(flightDay++)}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy',
  air_trip_type: 'one_way',
});
const hotelSearch = { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 };

const fareOf = async (api: Api): Promise<string> => ok(await api.post('/api/flights/search_flights/', flightSearch()), 'search').results[0].fare_source_code;
const bookFlightBody = async (api: Api) => ({ fare_source_code: await fareOf(api), traveler_info: { contact, air_travelers: [traveller] } });
const heldFlight = async (api: Api): Promise<number> => ok(await api.post('/api/flights/air_booking/', await bookFlightBody(api)), 'air_booking').id;
async function paidFlight(api: Api): Promise<number> {
  const id = await heldFlight(api);
  ok(await api.post('/api/partners/pay/', { order_id: id }), 'pay');
  return id;
}
const pnrOf = async (orderId: number) => (await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!.supplierBookingRef!;

const rateKey = async (api: Api): Promise<string> => ok(await api.post('/api/hotel/search_hotels/', hotelSearch), 'search_hotels').results[0].rates[0].rate_key;
const bookStayBody = async (api: Api) => ({ rate_key: await rateKey(api), guests: roomGuests, contact });
async function orderedStay(api: Api): Promise<number> {
  const bookingId = ok(await api.post('/api/hotel/book/', await bookStayBody(api)), 'book').booking_id;
  return ok(await api.post('/api/hotel/order/', { booking_id: bookingId }), 'order').id;
}
async function paidStay(api: Api): Promise<number> {
  const orderId = await orderedStay(api);
  ok(await api.post('/api/partners/pay/', { order_id: orderId }), 'pay');
  return orderId;
}
const holdOf = async (orderId: number) => (await stack.db.select().from(hotelBookings).where(eq(hotelBookings.orderId, orderId)))[0]!.supplierHoldId!;

interface Made {
  orderId: number;
  before: number;
}
const withBalance = async (api: Api, orderId: number): Promise<Made> => ({ orderId, before: await balance(api) });

/** A payment: debited when it completed, with the supplier's booking made; else the wallet as it was. */
const paidOnce =
  (bookedAt: (made: Made) => Promise<boolean>) =>
  async (api: Api, made: Made, { status }: Reply) => {
    const debited = made.before - (await balance(api));
    if (status === 200) {
      expect(await bookedAt(made)).toBe(true);
      expect(debited).toBeGreaterThan(0);
    } else if (status === 202) {
      // Unknown, parked for an operator with the debit held.
      expect(debited).toBeGreaterThanOrEqual(0);
    } else {
      expect(await bookedAt(made)).toBe(false);
      expect(debited).toBe(0);
    }
  };
/** A refund: credited once (the amount answered) when it completed, else not at all. */
const refundedOnce = async (api: Api, made: Made, reply: Reply) =>
  expect((await balance(api)) - made.before).toBe(reply.status === 200 ? minor(reply.body.data.refund_amount) : 0);

/** Each change to a day of its own, after every flight searched. */
let changeDay = 120;
const changeBody = (orderId: number) => ({
  order_id: orderId,
  remove: [0],
  add: [{ origin: 'THR', destination: 'MHD', departure_date: day(changeDay++), cabin_type: 'economy' }],
});
/** A change offer that costs something (so that the airline is paid for it), searched over the days to come. */
async function paidChangeOffer(api: Api, orderId: number): Promise<string> {
  for (let i = 0; i < 15; i++) {
    const offers = ok(await api.post('/api/flights/air_change_request/', changeBody(orderId)), 'air_change_request').offers as Array<{
      change_offer_id: string;
      total: string;
    }>;
    const offer = offers.find((o) => Number(o.total) > 0);
    if (offer) return offer.change_offer_id;
  }
  throw new Error(`no change offer of order ${orderId} costs anything`);
}
const firstBag = async (api: Api, orderId: number): Promise<string> =>
  ok(await api.post('/api/flights/air_order_available_services/', { order_id: orderId }), 'air_order_available_services').services[0].service_id;

/** What the airline made of the partner's change: confirmed (or, for bags, added), or not. */
async function madeAtAirline(orderId: number): Promise<boolean> {
  const [change] = await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId));
  if (!change) return false;
  if (change.kind === 'services') {
    const booking = (await simulated(`/air/bookings/${await pnrOf(orderId)}`)) as unknown as { services: Array<{ type: string }> };
    return booking.services.some((s) => s.type === 'baggage');
  }
  const res = await simulator.fetch(new Request(`http://simulator.test/air/order_changes?change_offer_id=${encodeURIComponent(change.changeOfferId!)}`));
  return res.status === 200 && ((await res.json()) as { confirmed_at: string | null }).confirmed_at !== null;
}

/**
 * A change (or bags) paid once: made at the airline and the wallet debited by the total
 * answered; under way (202), the debit held; refused, not made and the wallet as it was.
 */
const changedOnce = async (api: Api, made: Made, reply: Reply) => {
  const debited = made.before - (await balance(api));
  if (reply.status === 200) expect(await madeAtAirline(made.orderId)).toBe(true);
  if (reply.status === 200 || reply.status === 202) {
    expect(debited).toBe(minor(reply.body.data.total));
  } else {
    expect(await madeAtAirline(made.orderId)).toBe(false);
    expect(debited).toBe(0);
  }
};

interface Case<C = unknown> {
  flow: string;
  call: string;
  prepare?(api: Api): Promise<C>;
  act(api: Api, made: C): Promise<Reply>;
  money?(api: Api, made: C, reply: Reply): Promise<void>;
}
const of = <C>(c: Case<C>) => c as Case;

const CASES: Case[] = [
  of({ flow: 'search_flights', call: 'GET /air/airports', act: (api) => api.post('/api/flights/search_flights/', flightSearch()) }),
  of({ flow: 'search_flights', call: 'POST /air/search', act: (api) => api.post('/api/flights/search_flights/', flightSearch()) }),
  of({
    flow: 'revalidate_flight',
    call: 'POST /air/revalidate',
    prepare: fareOf,
    act: (api, fare) => api.post('/api/flights/revalidate_flight/', { fare_source_code: fare }),
  }),
  of({ flow: 'air_rules', call: 'POST /air/rules', prepare: fareOf, act: (api, fare) => api.post('/api/flights/air_rules/', { fare_source_code: fare }) }),
  of({
    flow: 'air_baggages',
    call: 'POST /air/baggage',
    prepare: fareOf,
    act: (api, fare) => api.post('/api/flights/air_baggages/', { fare_source_code: fare }),
  }),
  of({ flow: 'air_booking', call: 'POST /air/bookings', prepare: bookFlightBody, act: (api, body) => api.post('/api/flights/air_booking/', body) }),
  of({
    flow: 'pay',
    call: 'POST /air/bookings/:pnr/ticket',
    prepare: async (api) => withBalance(api, await heldFlight(api)),
    act: (api, made) => api.post('/api/partners/pay/', { order_id: made.orderId }),
    money: paidOnce(async (made) => (await simulated(`/air/bookings/${await pnrOf(made.orderId)}`)).status === 'ticketed'),
  }),
  of({
    flow: 'air_refund_display',
    call: 'GET /air/bookings/:pnr',
    prepare: paidFlight,
    act: (api, id) => api.post('/api/flights/air_refund_display/', { order_id: id }),
  }),
  of({
    flow: 'air_refund',
    call: 'POST /air/bookings/:pnr/refund',
    prepare: async (api) => withBalance(api, await paidFlight(api)),
    act: (api, made) => api.post('/api/flights/air_refund/', { order_id: made.orderId }),
    money: refundedOnce,
  }),
  of({
    flow: 'air_change_request',
    call: 'POST /air/bookings/:pnr/change_requests',
    prepare: paidFlight,
    act: (api, id) => api.post('/api/flights/air_change_request/', changeBody(id)),
  }),
  ...(
    [
      'GET /air/change_offers/:id',
      'GET /air/order_changes',
      'POST /air/order_changes',
      'POST /air/order_changes/:id/confirm',
      'GET /air/bookings/:pnr',
    ] as const
  ).map((call) =>
    of<Made & { offerId: string }>({
      flow: 'air_change_confirm',
      call,
      prepare: async (api) => {
        const orderId = await paidFlight(api);
        const offerId = await paidChangeOffer(api, orderId);
        return { ...(await withBalance(api, orderId)), offerId };
      },
      act: (api, made) =>
        api.post('/api/flights/air_change_confirm/', { order_id: made.orderId, change_offer_id: made.offerId, idempotency_key: `change-${made.orderId}` }),
      money: changedOnce,
    }),
  ),
  of({
    flow: 'seat_map',
    call: 'POST /air/seat_maps',
    prepare: fareOf,
    act: (api, fare) => api.get(`/api/flights/seat_map/?fare_source_code=${encodeURIComponent(fare)}`),
  }),
  of({
    flow: 'air_services',
    call: 'POST /air/services',
    prepare: fareOf,
    act: (api, fare) => api.get(`/api/flights/air_services/?fare_source_code=${encodeURIComponent(fare)}`),
  }),
  of({
    flow: 'air_order_available_services',
    call: 'GET /air/bookings/:pnr/services',
    prepare: paidFlight,
    act: (api, id) => api.post('/api/flights/air_order_available_services/', { order_id: id }),
  }),
  ...(['GET /air/bookings/:pnr/services', 'GET /air/bookings/:pnr', 'POST /air/bookings/:pnr/services'] as const).map((call) =>
    of<Made & { serviceId: string }>({
      flow: 'air_order_services',
      call,
      prepare: async (api) => {
        const orderId = await paidFlight(api);
        const serviceId = await firstBag(api, orderId);
        return { ...(await withBalance(api, orderId)), serviceId };
      },
      act: (api, made) =>
        api.post('/api/flights/air_order_services/', {
          order_id: made.orderId,
          services: [{ service_id: made.serviceId, quantity: 1 }],
          idempotency_key: `bags-${made.orderId}`,
        }),
      money: changedOnce,
    }),
  ),
  of({ flow: 'cities', call: 'GET /hotels/cities', act: (api) => api.get('/api/hotel/cities/') }),
  of({ flow: 'search_hotels', call: 'POST /hotels/availability', act: (api) => api.post('/api/hotel/search_hotels/', hotelSearch) }),
  of({ flow: 'check_rate', call: 'POST /hotels/rates/check', prepare: rateKey, act: (api, key) => api.post('/api/hotel/check_rate/', { rate_key: key }) }),
  of({ flow: 'book', call: 'POST /hotels/holds', prepare: bookStayBody, act: (api, body) => api.post('/api/hotel/book/', body) }),
  of({
    flow: 'pay',
    call: 'POST /hotels/holds/:id/confirm',
    prepare: async (api) => withBalance(api, await orderedStay(api)),
    act: (api, made) => api.post('/api/partners/pay/', { order_id: made.orderId }),
    money: paidOnce(async (made) => (await simulated(`/hotels/holds/${await holdOf(made.orderId)}`)).status === 'confirmed'),
  }),
  of({
    flow: 'cancel',
    call: 'POST /hotels/bookings/:ref/cancel',
    prepare: async (api) => withBalance(api, await paidStay(api)),
    act: (api, made) => api.post('/api/hotel/cancel/', { order_id: made.orderId }),
    money: refundedOnce,
  }),
];

describe.each(CASES.map((c) => [`${c.flow} ${c.call}`, c] as const))('simulator %s', (key, c) => {
  it.each(SUPPLIER_FAILURES.map((f) => [f]))('%s', async (failure) => {
    const { api } = await partnerWithWallet(stack, '0', '900000000');
    const made = c.prepare ? await c.prepare(api) : undefined;
    spoilt = { route: c.call, failure };
    const expected = table.get(`simulator ${key}`)?.[failure].status;
    const reply = await answerTo(c.flow, () => c.act(api, made), expected);
    spoilt = null;
    (observed[key] ??= {})[failure] = reply.status;
    if (!record) expect({ failure, status: reply.status }).toEqual({ failure, status: expected });
    expect(reply.status).not.toBe(500);
    if (reply.status >= 400) expect(reply.body).toEqual({ ok: false, error: expect.any(String) });
    if (reply.status === 503) expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
    await c.money?.(api, made, reply);
    expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
  });
});

it('the outcome table has no simulator row this test does not try', () => {
  expect(untriedRows(table, 'simulator', CASES)).toEqual([]);
});
