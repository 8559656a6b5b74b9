import fs from 'node:fs';
import { Duffel } from '@duffel/api';
import { eq } from 'drizzle-orm';
import { flightBookings, hotelBookings } from '../../src/db/schema';
import { call, newPartner as partnerWithWallet, type Reply } from '../support/clients';
import { startDuffelStandIn, type DuffelRoute, type DuffelStandIn } from '../support/duffel';
import { contact, day } from '../support/fixtures';
import { GBP_RATE, setRate } from '../support/rates';
import { ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';
import { answerTo, endRunningWorkflows, outcomeTable, SUPPLIER_FAILURES, untriedRows, type SupplierFailure } from '../support/supplier-failures';

/**
 * Every Duffel call of every flow, failing every way the stand-in can fail it (a refusal, a
 * rate limit, a 5xx, no answer in time, an answer that is not JSON, an answer lost after the
 * call took effect), for as long as the test lasts: what the partner is answered is the
 * status docs/suppliers.md's outcome table gives, in Interface A's shape, never a 500; no
 * payment is taken twice or lost, and no refund is credited twice.
 */

let standIn: DuffelStandIn;
let stack: TestStack;
/** RECORD_OUTCOMES=<file>: write what each case answered there instead of checking it (to write the table). */
const record = process.env.RECORD_OUTCOMES;
const table = record ? new Map() : outcomeTable();
const observed: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  standIn = await startDuffelStandIn();
  stack = await startStack({
    payWaitMs: 5_000,
    finalizeAttempts: 2,
    env: {
      FLIGHT_SUPPLIER: 'duffel',
      HOTEL_SUPPLIER: 'duffel',
      DUFFEL_ACCESS_TOKEN: 'duffel_test_failures',
      DUFFEL_API_URL: standIn.url,
      SUPPLIER_CALL_TIMEOUT_MS: '500',
      // Each case stands alone: no breaker opens on the failures of the cases before it.
      SUPPLIER_BREAKER_FAILURES: '1000',
      // Every search goes to the stand-in: none is answered from the cache or held back by a budget.
      SEARCH_TTLS: 'duffel.flights=0,duffel.hotels=0',
      SEARCH_BUDGETS: 'duffel=0',
    },
  });
  expect((await setRate(stack, 'GBP', GBP_RATE)).status).toBe(201);
});
afterEach(() => standIn.control.clearFaults());
afterAll(async () => {
  if (record) fs.writeFileSync(record, JSON.stringify(observed, null, 1));
  if (stack) await endRunningWorkflows(stack.client);
  await stack?.close();
  await standIn?.stop();
});

/** The failure, on every call of the route until the case ends. */
function arm(route: DuffelRoute, failure: SupplierFailure): void {
  const times = 1_000_000;
  if (failure === 'timeout') standIn.control.hangNext(route, { times });
  else if (failure === 'malformed') standIn.control.garbleNextAnswer(route, { times });
  else if (failure === 'lost') standIn.control.loseNextAnswer(route, { times });
  else standIn.control.failNext(route, { status: Number(failure) as 400, times, resetSeconds: 1 });
}

type Api = Awaited<ReturnType<typeof partnerWithWallet>>['api'] & {
  /** Interface B, with the partner's agency key. */
  agency(path: string): Promise<Reply>;
};
const agencySearch = `/v1/hotels/search?city=London&check_in=${day(40)}&check_out=${day(42)}&guests=1`;
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const balance = async (api: Api) => minor((await api.wallet()).balance);

const traveller = {
  first_name: 'Amelia',
  last_name: 'Hart',
  birth_date: '1984-02-03',
  gender: 'female',
  passenger_type: 'ADT',
  nationality: 'GB',
  passport_number: '533112298',
  passport_expiry_date: day(2000),
};
const flightSearch = {
  origin: 'LHR',
  destination: 'IST',
  departure_date_time: `${day(40)}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy',
  air_trip_type: 'one_way',
};
const guest = { first_name: 'Anna', last_name: 'Schmidt', nationality: 'DE', passport_number: 'C01X00T47' };

function ok(reply: Reply, what: string) {
  if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

const fareOf = async (api: Api): Promise<string> => ok(await api.post('/api/flights/search_flights/', flightSearch), 'search').results[0].fare_source_code;
const heldFlight = async (api: Api): Promise<number> =>
  ok(
    await api.post('/api/flights/air_booking/', { fare_source_code: await fareOf(api), traveler_info: { contact, air_travelers: [traveller] } }),
    'air_booking',
  ).id;
async function paidFlight(api: Api): Promise<number> {
  const id = await heldFlight(api);
  ok(await api.post('/api/partners/pay/', { order_id: id }), 'pay');
  return id;
}
/** A ticketed Flex flight: the fare Duffel's airline lets be changed. */
async function changeableFlight(api: Api): Promise<number> {
  const fare = (
    ok(await api.post('/api/flights/search_flights/', flightSearch), 'search').results as Array<{ fare_family: string; fare_source_code: string }>
  ).find((f) => f.fare_family === 'Flex')!.fare_source_code;
  const id = ok(
    await api.post('/api/flights/air_booking/', { fare_source_code: fare, traveler_info: { contact, air_travelers: [traveller] } }),
    'air_booking',
  ).id;
  ok(await api.post('/api/partners/pay/', { order_id: id }), 'pay');
  return id;
}
const flightRef = async (orderId: number) => (await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!.supplierBookingRef!;

let london: number | undefined;
async function londonId(api: Api): Promise<number> {
  london ??= (ok(await api.get('/api/hotel/cities/?search=london'), 'cities') as Array<{ id: number }>)[0]!.id;
  return london;
}
const hotelSearch = async (api: Api) => ({
  check_in: day(40),
  check_out: day(42),
  nationality_id: 'DE',
  rooms: [{ adult_count: 1 }],
  city_id: await londonId(api),
});
async function rateKey(api: Api): Promise<string> {
  const hotels = ok(await api.post('/api/hotel/search_hotels/', await hotelSearch(api)), 'search_hotels').results as Array<{
    rates: Array<{ rate_key: string; refundable: boolean }>;
  }>;
  return hotels.flatMap((h) => h.rates).find((r) => r.refundable)!.rate_key;
}
const bookBody = async (api: Api) => ({ rate_key: await rateKey(api), guests: [[guest]], contact });
async function orderedStay(api: Api): Promise<{ orderId: number; quoteId: string }> {
  const bookingId = ok(await api.post('/api/hotel/book/', await bookBody(api)), 'book').booking_id;
  const orderId = ok(await api.post('/api/hotel/order/', { booking_id: bookingId }), 'order').id;
  const quoteId = (await stack.db.select().from(hotelBookings).where(eq(hotelBookings.id, bookingId)))[0]!.supplierHoldId!;
  return { orderId, quoteId };
}
async function paidStay(api: Api): Promise<number> {
  const { orderId } = await orderedStay(api);
  ok(await api.post('/api/partners/pay/', { order_id: orderId }), 'pay');
  return orderId;
}
const stayBookingsFrom = (quoteId: string) =>
  standIn.control.requests('POST /stays/bookings').filter((r) => r.status === 201 && (r.body as { quote_id?: string } | undefined)?.quote_id === quoteId);

/**
 * A flow's supplier call: what is made before the failure is armed (`prepare`), the partner's
 * request made while the call fails (`act`), and what must hold of the money after it.
 */
interface Case<C = unknown> {
  flow: string;
  call: DuffelRoute;
  prepare?(api: Api): Promise<C>;
  act(api: Api, made: C): Promise<Reply>;
  money?(api: Api, made: C, reply: Reply): Promise<void>;
}
const of = <C>(c: Case<C>) => c as Case;

/** A payment: taken once at the supplier and debited once when it completed; else neither, the wallet as it was. */
const paidOnce =
  (takenAt: (made: { orderId: number; before: number }) => Promise<number>) =>
  async (api: Api, made: { orderId: number; before: number }, { status }: Reply) => {
    const taken = await takenAt(made);
    const debited = made.before - (await balance(api));
    if (status === 200) {
      expect(taken).toBe(1);
      expect(debited).toBeGreaterThan(0);
    } else if (status === 202) {
      // Unknown, parked for an operator with the debit held: nothing was paid meanwhile.
      expect(taken).toBe(0);
    } else {
      expect(taken).toBe(0);
      expect(debited).toBe(0);
    }
  };

/** A refund: confirmed at the supplier at most once, credited once (the amount answered) when it completed, else not at all. */
const refundedOnce =
  (confirmedAt: (made: { orderId: number }) => Promise<number>) => async (api: Api, made: { orderId: number; before: number }, reply: Reply) => {
    expect(await confirmedAt(made)).toBeLessThanOrEqual(1);
    const credited = (await balance(api)) - made.before;
    // 202: the refund is under way (its outcome looked up, or parked for an operator): nothing credited yet.
    expect(credited).toBe(reply.status === 200 ? minor(reply.body.data.refund_amount) : 0);
  };

const withBalance = async (api: Api, orderId: number) => ({ orderId, before: await balance(api) });
const flightPayments = async (made: { orderId: number }) => standIn.control.payments(await flightRef(made.orderId)).length;
const flightCancellations = async (made: { orderId: number }) =>
  (await new Duffel({ token: 'duffel_test_failures', basePath: standIn.url }).orderCancellations.list({ order_id: await flightRef(made.orderId) })).data.filter(
    (x) => x.confirmed_at,
  ).length;
const stayCancellations = async (made: { orderId: number }) => {
  const ref = (await stack.db.select().from(hotelBookings).where(eq(hotelBookings.orderId, made.orderId)))[0]!.confirmationNumber;
  return standIn.control.requests('POST /stays/bookings/:id/actions/cancel').filter((r) => r.status === 200 && r.path.includes(String(ref))).length;
};

/** A flight changed, or bags added, after the sale: the order, the wallet before, and the payments Duffel took for it before. */
interface AfterSale {
  orderId: number;
  before: number;
  ref: string;
  paidBefore: number;
}
const afterSale = async (api: Api, orderId: number): Promise<AfterSale> => {
  const ref = await flightRef(orderId);
  return { ...(await withBalance(api, orderId)), ref, paidBefore: standIn.control.payments(ref).length };
};
const changeBody = (orderId: number, days: number, cabin_type = 'economy') => ({
  order_id: orderId,
  remove: [0],
  add: [{ origin: 'LHR', destination: 'IST', departure_date: day(days), cabin_type }],
});
/**
 * A change offer that costs something (so that Duffel is paid for it): to business class.
 * (An economy flight on another day may cost more or less than the one sold, by the stand-in's
 * draw for that day, so which one would cost something changes with the date the tests run on.)
 */
async function paidChangeOffer(api: Api, orderId: number): Promise<string> {
  const offer = (
    ok(await api.post('/api/flights/air_change_request/', changeBody(orderId, 45, 'business')), 'air_change_request').offers as Array<{
      change_offer_id: string;
      total: string;
    }>
  ).find((o) => Number(o.total) > 0);
  if (!offer) throw new Error(`no change offer of order ${orderId} costs anything`);
  return offer.change_offer_id;
}
const firstBag = async (api: Api, orderId: number): Promise<string> =>
  ok(await api.post('/api/flights/air_order_available_services/', { order_id: orderId }), 'air_order_available_services').services[0].service_id;

/**
 * A change (or bags) paid once: made, Duffel paid once and the wallet debited once by the
 * total answered; under way (202), the debit held and Duffel paid at most once; refused,
 * neither, the wallet as it was.
 */
const changedOnce = async (api: Api, made: AfterSale, reply: Reply) => {
  const paid = standIn.control.payments(made.ref).length - made.paidBefore;
  const debited = made.before - (await balance(api));
  if (reply.status === 200 || reply.status === 202) {
    expect(debited).toBe(minor(reply.body.data.total));
    expect(paid).toBeLessThanOrEqual(1);
    if (reply.status === 200) expect(paid).toBe(1);
  } else {
    expect(paid).toBe(0);
    expect(debited).toBe(0);
  }
};

const CHANGE_CALLS = [
  'GET /air/order_change_offers/:id',
  'POST /air/order_changes',
  'GET /air/order_changes/:id',
  'POST /air/order_changes/:id/actions/confirm',
  'GET /air/orders/:id',
] as const;
const SERVICES_CALLS = ['GET /air/orders/:id/available_services', 'GET /air/orders/:id', 'POST /air/orders/:id/services'] as const;

const CASES: Case[] = [
  // Reference lists first: each adapter keeps its list once it has it.
  of({ flow: 'search_flights', call: 'GET /air/airports', act: (api) => api.post('/api/flights/search_flights/', flightSearch) }),
  of({ flow: 'cities', call: 'GET /air/airports', act: (api) => api.get('/api/hotel/cities/') }),
  of({ flow: 'v1_hotels_search', call: 'GET /air/airports', act: (api) => api.agency(agencySearch) }),
  of({ flow: 'search_flights', call: 'POST /air/offer_requests', act: (api) => api.post('/api/flights/search_flights/', flightSearch) }),
  of({
    flow: 'revalidate_flight',
    call: 'GET /air/offers/:id',
    prepare: fareOf,
    act: (api, fare) => api.post('/api/flights/revalidate_flight/', { fare_source_code: fare }),
  }),
  of({
    flow: 'air_booking',
    call: 'POST /air/orders',
    prepare: fareOf,
    act: (api, fare) => api.post('/api/flights/air_booking/', { fare_source_code: fare, traveler_info: { contact, air_travelers: [traveller] } }),
  }),
  of({
    flow: 'pay',
    call: 'GET /air/orders/:id',
    prepare: async (api) => withBalance(api, await heldFlight(api)),
    act: (api, made) => api.post('/api/partners/pay/', { order_id: made.orderId }),
    money: paidOnce(flightPayments),
  }),
  of({
    flow: 'pay',
    call: 'POST /air/payments',
    prepare: async (api) => withBalance(api, await heldFlight(api)),
    act: (api, made) => api.post('/api/partners/pay/', { order_id: made.orderId }),
    money: paidOnce(flightPayments),
  }),
  of({
    flow: 'air_refund_display',
    call: 'POST /air/order_cancellations',
    prepare: paidFlight,
    act: (api, orderId) => api.post('/api/flights/air_refund_display/', { order_id: orderId }),
  }),
  of({
    flow: 'air_refund',
    call: 'POST /air/order_cancellations/:id/actions/confirm',
    prepare: async (api) => withBalance(api, await paidFlight(api)),
    act: (api, made) => api.post('/api/flights/air_refund/', { order_id: made.orderId }),
    money: refundedOnce(flightCancellations),
  }),
  of({
    flow: 'air_change_request',
    call: 'GET /air/orders/:id',
    prepare: changeableFlight,
    act: (api, orderId) => api.post('/api/flights/air_change_request/', changeBody(orderId, 45)),
  }),
  of({
    flow: 'air_change_request',
    call: 'POST /air/order_change_requests',
    prepare: changeableFlight,
    act: (api, orderId) => api.post('/api/flights/air_change_request/', changeBody(orderId, 45)),
  }),
  ...CHANGE_CALLS.map((call) =>
    of<AfterSale & { offerId: string }>({
      flow: 'air_change_confirm',
      call,
      prepare: async (api) => {
        const orderId = await changeableFlight(api);
        const offerId = await paidChangeOffer(api, orderId);
        return { ...(await afterSale(api, orderId)), offerId };
      },
      act: (api, made) =>
        api.post('/api/flights/air_change_confirm/', { order_id: made.orderId, change_offer_id: made.offerId, idempotency_key: `change-${made.orderId}` }),
      money: changedOnce,
    }),
  ),
  ...(['GET /air/seat_maps', 'GET /air/offers/:id'] as const).map((call) =>
    of({ flow: 'seat_map', call, prepare: fareOf, act: (api, fare) => api.get(`/api/flights/seat_map/?fare_source_code=${encodeURIComponent(fare)}`) }),
  ),
  of({
    flow: 'air_services',
    call: 'GET /air/offers/:id',
    prepare: fareOf,
    act: (api, fare) => api.get(`/api/flights/air_services/?fare_source_code=${encodeURIComponent(fare)}`),
  }),
  ...(['GET /air/orders/:id/available_services', 'GET /air/orders/:id'] as const).map((call) =>
    of({
      flow: 'air_order_available_services',
      call,
      prepare: paidFlight,
      act: (api, orderId) => api.post('/api/flights/air_order_available_services/', { order_id: orderId }),
    }),
  ),
  ...SERVICES_CALLS.map((call) =>
    of<AfterSale & { serviceId: string }>({
      flow: 'air_order_services',
      call,
      prepare: async (api) => {
        const orderId = await paidFlight(api);
        const serviceId = await firstBag(api, orderId);
        return { ...(await afterSale(api, orderId)), serviceId };
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
  of({ flow: 'search_hotels', call: 'POST /stays/search', prepare: hotelSearch, act: (api, body) => api.post('/api/hotel/search_hotels/', body) }),
  of({ flow: 'v1_hotels_search', call: 'POST /stays/search', act: (api) => api.agency(agencySearch) }),
  of({
    flow: 'search_hotels',
    call: 'POST /stays/search_results/:id/actions/fetch_all_rates',
    prepare: hotelSearch,
    act: (api, body) => api.post('/api/hotel/search_hotels/', body),
  }),
  of({ flow: 'check_rate', call: 'POST /stays/quotes', prepare: rateKey, act: (api, key) => api.post('/api/hotel/check_rate/', { rate_key: key }) }),
  of({ flow: 'book', call: 'POST /stays/quotes', prepare: bookBody, act: (api, body) => api.post('/api/hotel/book/', body) }),
  ...(['GET /stays/quotes/:id', 'POST /stays/bookings'] as const).map((call) =>
    of({
      flow: 'pay',
      call,
      prepare: async (api) => {
        const { orderId, quoteId } = await orderedStay(api);
        return { ...(await withBalance(api, orderId)), quoteId };
      },
      act: (api, made) => api.post('/api/partners/pay/', { order_id: made.orderId }),
      money: paidOnce(async (made) => stayBookingsFrom((made as { quoteId: string } & typeof made).quoteId).length),
    }),
  ),
  of({
    flow: 'cancel',
    call: 'POST /stays/bookings/:id/actions/cancel',
    prepare: async (api) => withBalance(api, await paidStay(api)),
    act: (api, made) => api.post('/api/hotel/cancel/', { order_id: made.orderId }),
    money: refundedOnce(stayCancellations),
  }),
];

describe.each(CASES.map((c) => [`${c.flow} ${c.call}`, c] as const))('duffel %s', (key, c) => {
  it.each(SUPPLIER_FAILURES.map((f) => [f]))('%s', async (failure) => {
    const partner = await partnerWithWallet(stack, '0', '900000000');
    const api: Api = Object.assign(partner.api, {
      agency: (path: string) => call(stack.app, 'GET', path, { authorization: `Bearer ${partner.creds.agency_key}` }),
    });
    const made = c.prepare ? await c.prepare(api) : undefined;
    arm(c.call, failure);
    const expected = table.get(`duffel ${key}`)?.[failure].status;
    const reply = await answerTo(c.flow, () => c.act(api, made), expected);
    standIn.control.clearFaults();
    (observed[key] ??= {})[failure] = reply.status;
    if (!record) expect({ failure, status: reply.status }).toEqual({ failure, status: expected });
    expect(reply.status).not.toBe(500);
    if (reply.status >= 400) {
      // Each interface's own shape: A's {ok: false, error}, B's FastAPI {detail}.
      expect(reply.body).toEqual(c.flow.startsWith('v1_') ? { detail: expect.anything() } : { ok: false, error: expect.any(String) });
      // The engine's words: none of Duffel's own texts.
      expect(JSON.stringify(reply.body)).not.toMatch(/went wrong|not understood|could not be processed|not in a state|exceeded the rate limit|does not exist/i);
    }
    if (reply.status === 503) expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
    await c.money?.(api, made, reply);
    expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
  });
});

it('the outcome table has no duffel row this test does not try', () => {
  expect(untriedRows(table, 'duffel', CASES)).toEqual([]);
});
