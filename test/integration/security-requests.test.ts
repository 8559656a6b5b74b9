import { call, newPartner, type PartnerCredentials } from '../support/clients';
import { day, visaApplication } from '../support/fixtures';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/**
 * Requests that cannot mean what they say are refused before anything happens: an
 * Idempotency-Key of Interface B sent again with a different request (422, as a payment API
 * refuses a key reused for another charge), and every range whose end comes before its start.
 */
let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

function agency(creds: Pick<PartnerCredentials, 'agency_key'>) {
  const auth = { authorization: `Bearer ${creds.agency_key}` };
  return {
    get: (path: string) => call(stack.app, 'GET', `/v1${path}`, auth),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) => call(stack.app, 'POST', `/v1${path}`, { ...auth, ...headers }, body),
  };
}

const productOrder = {
  product_id: 'ESIM-TR-10GB-15D',
  quantity: 1,
  delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
};
const differentRequest = expect.stringMatching(/^idempotency-key: "[^"]+" was used with a different request/);
const detailOf = (body: any): string => (typeof body.detail === 'string' ? body.detail : body.detail?.[0]?.msg);

describe('Interface B: an Idempotency-Key names one request', () => {
  it('a product order: the same request again is the same order; another request with the key is refused, and nothing is charged twice', async () => {
    const { creds, api } = await newPartner(stack, '0', '100000000');
    const b = agency(creds);
    const placed = await b.post('/products/orders', productOrder, { 'Idempotency-Key': 'key-1' });
    expect(placed.status).toBe(201);
    const paid = await api.wallet();

    const reordered = { delivery_address: productOrder.delivery_address, quantity: 1, product_id: productOrder.product_id };
    expect((await b.post('/products/orders', reordered, { 'Idempotency-Key': 'key-1' })).body.order_id).toBe(placed.body.order_id);
    const other = await b.post('/products/orders', { ...productOrder, quantity: 3 }, { 'Idempotency-Key': 'key-1' });
    expect(other.status).toBe(422);
    expect(detailOf(other.body)).toEqual(differentRequest);
    expect(await api.wallet()).toEqual(paid);
  });

  it('a hotel booking: another guest under the same key is refused, the first booking stands', async () => {
    const { creds, api } = await newPartner(stack, '0', '100000000');
    const b = agency(creds);
    const found = await b.get(`/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}`);
    const hotel = found.body.results[0];
    const body = {
      hotel_id: hotel.hotel_id,
      room_id: hotel.rooms[0].room_id,
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: day(45),
      check_out: day(47),
    };
    const booked = await b.post('/hotels/bookings', body, { 'Idempotency-Key': 'stay-1' });
    expect(booked.status).toBe(201);
    const paid = await api.wallet();

    const other = await b.post('/hotels/bookings', { ...body, guest_name: 'Someone Else' }, { 'Idempotency-Key': 'stay-1' });
    expect(other.status).toBe(422);
    expect(detailOf(other.body)).toEqual(differentRequest);
    const again = await b.post('/hotels/bookings', body, { 'Idempotency-Key': 'stay-1' });
    expect(again.body.booking_id).toBe(booked.body.booking_id);
    expect(await api.wallet()).toEqual(paid);
  });
});

describe('a range whose end comes before its start is refused everywhere', () => {
  const admin = (method: string, path: string, body?: unknown) => call(stack.admin, method, path, { authorization: `Bearer ${ADMIN_TOKEN}` }, body);
  const backwards = { check_in: day(40), check_out: day(38) };

  it.each<[string, (p: { creds: PartnerCredentials }) => Promise<{ status: number; body: any }>, number, RegExp]>([
    [
      'A: hotel search',
      ({ creds }) => a(creds).post('/api/hotel/search_hotels/', { ...backwards, nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 }),
      400,
      /^check_out: must be after check_in/,
    ],
    [
      'A: flight search',
      ({ creds }) =>
        a(creds).post('/api/flights/search_flights/', {
          origin: 'THR',
          destination: 'MHD',
          departure_date_time: `${day(40)}T00:00:00Z`,
          return_date_time: `${day(38)}T00:00:00Z`,
          adult_count: 1,
          cabin_type: 'economy',
          air_trip_type: 'round_trip',
        }),
      400,
      /^return_date_time: must be after departure_date_time/,
    ],
    [
      'A: residence list',
      ({ creds }) => a(creds).get(`/api/residence/properties/list/?check_in=${day(40)}&check_out=${day(38)}`),
      400,
      /^check_out: must be after check_in/,
    ],
    [
      'A: residence hold',
      ({ creds }) =>
        a(creds).post('/api/residence/reserve/', {
          property_id: 1,
          ...backwards,
          guests: 2,
          lead_guest: { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' },
        }),
      400,
      /^check_out: must be after check_in/,
    ],
    [
      'A: visa request',
      ({ creds }) => a(creds).post('/api/visa/request/', { ...visaApplication(1), travel: { from: day(40), to: day(38) } }),
      400,
      /^travel\.to: must be after travel\.from/,
    ],
    ['A: statement', ({ creds }) => a(creds).get(`/api/partners/statements/?from=${day(-1)}&to=${day(-5)}`), 400, /^to: must not be before from/],
    ['B: hotel search', ({ creds }) => agency(creds).get(`/hotels/search?city=shiraz&check_in=${day(40)}&check_out=${day(38)}`), 422, /check_out/],
    [
      'B: hotel booking',
      ({ creds }) =>
        agency(creds).post('/hotels/bookings', { hotel_id: 'H1', room_id: 'R1', guest_name: 'Sara Ahmadi', guest_email: 'sara@example.com', ...backwards }),
      422,
      /check_out/,
    ],
    [
      'admin: markup dates',
      () => admin('POST', '/admin/markups', { service: 'hotels', percent: '5', from: day(10), to: day(5) }),
      400,
      /to: must not be before from/,
    ],
    ['admin: report period', () => admin('GET', `/admin/reports/margins?from=${day(-1)}&to=${day(-5)}`), 400, /to: must not be before from/],
  ])('%s', async (_, send, status, message) => {
    const { creds } = await newPartner(stack);
    const res = await send({ creds });
    expect(res.status).toBe(status);
    expect(JSON.stringify(res.body)).toMatch(new RegExp(message.source.replace(/^\^/, '')));
  });
});

function a(creds: Pick<PartnerCredentials, 'api_key' | 'api_secret'>) {
  const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
  return {
    get: (path: string) => call(stack.app, 'GET', path, auth),
    post: (path: string, body: unknown) => call(stack.app, 'POST', path, auth, body),
  };
}
