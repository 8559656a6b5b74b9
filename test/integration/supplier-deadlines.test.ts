import { call, newPartner, type Reply } from '../support/clients';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { day } from '../support/fixtures';
import { GBP_RATE, setRate } from '../support/rates';
import { ADMIN_TOKEN, startStack, type TestStack } from '../support/stack';

/**
 * A supplier that does not answer holds a search no longer than its deadline: the search
 * answers 503 with Retry-After within SEARCH_DEADLINE_MS, and nothing is asked of the
 * supplier after it. After SUPPLIER_BREAKER_FAILURES such searches the operation's breaker
 * opens and searches answer 503 at once; after the cool-down one probe goes through and,
 * answered, closes it. Operators see each state in /admin/healthz and /metrics.
 */

const DEADLINE_MS = 1_500;
const CALL_TIMEOUT_MS = 1_000;
const FAILURES = 3;
const COOL_DOWN_MS = 2_000;
/** What a search past its deadline may take beyond it: the answer's own way back. */
const SLACK_MS = 700;

let standIn: DuffelStandIn;
let stack: TestStack;

beforeAll(async () => {
  standIn = await startDuffelStandIn();
  stack = await startStack({
    env: {
      FLIGHT_SUPPLIER: 'duffel',
      HOTEL_SUPPLIER: 'duffel',
      DUFFEL_ACCESS_TOKEN: 'duffel_test_deadlines',
      DUFFEL_API_URL: standIn.url,
      SEARCH_DEADLINE_MS: String(DEADLINE_MS),
      SUPPLIER_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
      SUPPLIER_BREAKER_FAILURES: String(FAILURES),
      SUPPLIER_BREAKER_COOL_DOWN_MS: String(COOL_DOWN_MS),
      SEARCH_TTLS: 'duffel.flights=0,duffel.hotels=0',
      SEARCH_BUDGETS: 'duffel=0',
    },
  });
  expect((await setRate(stack, 'GBP', GBP_RATE)).status).toBe(201);
});
afterEach(() => standIn.control.clearFaults());
afterAll(async () => {
  await stack?.close();
  await standIn?.stop();
});

const flightSearch = {
  origin: 'LHR',
  destination: 'IST',
  departure_date_time: `${day(40)}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy',
  air_trip_type: 'one_way',
};
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed(request: Promise<Reply>): Promise<Reply & { ms: number }> {
  const started = Date.now();
  const reply = await request;
  return { ...reply, ms: Date.now() - started };
}

const offerRequests = () => standIn.control.requests('POST /air/offer_requests').length;
const breakerOf = async (operation: string) =>
  ((await call(stack.admin, 'GET', '/admin/healthz', operator)).body.supplier_breakers as Array<{ supplier: string; operation: string; state: string }>).find(
    (b) => b.supplier === 'duffel' && b.operation === operation,
  );
async function gauge(operation: string): Promise<number | undefined> {
  const text = (await call(stack.admin, 'GET', '/metrics', operator)).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`supplier_breaker_state{supplier="duffel",operation="${operation}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

function expectUnavailable(reply: Reply) {
  expect(reply.status).toBe(503);
  expect(reply.body).toEqual({ ok: false, error: expect.any(String) });
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('a search whose supplier does not answer', () => {
  it('answers 503 with Retry-After within its deadline, and asks nothing more after it', async () => {
    const { api } = await newPartner(stack);
    // The airports are known (kept by the adapter): what hangs is the search itself.
    expect((await api.post('/api/flights/search_flights/', flightSearch)).status).toBe(200);
    standIn.control.hangNext('POST /air/offer_requests', { times: 1_000 });
    const before = offerRequests();

    const reply = await timed(api.post('/api/flights/search_flights/', flightSearch));
    expectUnavailable(reply);
    expect(reply.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(reply.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    // No try past the deadline: the first timed out, the second was cut short by the deadline.
    const asked = offerRequests() - before;
    expect(asked).toBeLessThanOrEqual(2);
    await sleep(CALL_TIMEOUT_MS + 500);
    expect(offerRequests() - before).toBe(asked);
  });

  it('bounds a hotel search the same way', async () => {
    const { api } = await newPartner(stack);
    const london = (await api.get('/api/hotel/cities/?search=london')).body.data[0].id as number;
    standIn.control.hangNext('POST /stays/search', { times: 1_000 });
    const reply = await timed(
      api.post('/api/hotel/search_hotels/', { check_in: day(40), check_out: day(42), nationality_id: 'DE', rooms: [{ adult_count: 1 }], city_id: london }),
    );
    expectUnavailable(reply);
    expect(reply.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });
});

describe('the breaker of a supplier operation', () => {
  it('opens after repeated timeouts, answers at once while open, and closes when its probe is answered', async () => {
    const { api } = await newPartner(stack);
    expect((await api.post('/api/flights/search_flights/', flightSearch)).status).toBe(200);
    expect(await breakerOf('flights.search')).toMatchObject({ state: 'closed' });
    expect(await gauge('flights.search')).toBe(0);

    standIn.control.hangNext('POST /air/offer_requests', { times: 1_000 });
    for (let i = 0; i < FAILURES; i++) expectUnavailable(await api.post('/api/flights/search_flights/', flightSearch));
    expect(await breakerOf('flights.search')).toMatchObject({ state: 'open', retry_after_s: expect.any(Number) });
    expect(await gauge('flights.search')).toBe(1);

    // Open: answered at once, the supplier not asked.
    const before = offerRequests();
    const shed = await timed(api.post('/api/flights/search_flights/', flightSearch));
    expectUnavailable(shed);
    expect(shed.ms).toBeLessThan(300);
    expect(Number(shed.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil(COOL_DOWN_MS / 1000));
    expect(offerRequests()).toBe(before);

    // The supplier is back; after the cool-down one probe goes through, and closes the breaker.
    standIn.control.clearFaults();
    await sleep(COOL_DOWN_MS + 100);
    const probe = await api.post('/api/flights/search_flights/', flightSearch);
    expect(probe.status).toBe(200);
    expect(offerRequests()).toBe(before + 1);
    expect(await breakerOf('flights.search')).toMatchObject({ state: 'closed' });
    expect(await gauge('flights.search')).toBe(0);
  });

  it('opens again when its probe is not answered', async () => {
    const { api } = await newPartner(stack);
    standIn.control.failNext('POST /air/offer_requests', { status: 503, times: 1_000 });
    for (let i = 0; i < FAILURES; i++) expectUnavailable(await api.post('/api/flights/search_flights/', flightSearch));
    expect(await breakerOf('flights.search')).toMatchObject({ state: 'open' });
    await sleep(COOL_DOWN_MS + 100);
    const before = offerRequests();
    expectUnavailable(await api.post('/api/flights/search_flights/', flightSearch));
    expect(offerRequests()).toBeGreaterThan(before);
    expect(await breakerOf('flights.search')).toMatchObject({ state: 'open' });
    const shed = await timed(api.post('/api/flights/search_flights/', flightSearch));
    expectUnavailable(shed);
    expect(shed.ms).toBeLessThan(300);
    standIn.control.clearFaults();
    await sleep(COOL_DOWN_MS + 100);
    expect((await api.post('/api/flights/search_flights/', flightSearch)).status).toBe(200);
  });
});
