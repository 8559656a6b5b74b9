import { eq } from 'drizzle-orm';
import { flightBookings, flightChanges, hotelBookings, ledgerEntries, orders, reservations, tourPrebooks, visaApplications } from '../../src/db/schema';
import { addDays, todayUtc } from '../../src/platform/calendar';
import { call, newPartner } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

/**
 * Issue 12's adversarial table, row by row, on both interfaces: every request here is
 * refused with a 4xx in the interface's own error shape (A: {ok:false,error}; B: FastAPI's
 * {detail:[{loc,msg,type}]} or the documented string form for 404), and nothing is written.
 * NUL characters, lone surrogates, 405, 413 and malformed JSON have their own tests in
 * request-limits.test.ts and agency.test.ts.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const soon = addDays(todayUtc(), 40);
const later = addDays(todayUtc(), 43);
const far = '9999-03-10';
const farOut = '9999-03-12';

interface Case {
  row: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  /** For A: a fragment of `error`; for B: the loc of the first detail, or the string detail. */
  says: string | Array<string | number>;
}

const visaBody = (over: { birth_date?: string; passport_expiry_date?: string; from?: string; to?: string }) => ({
  visa_id: 1,
  applicant: {
    first_name: 'Sara',
    last_name: 'Ahmadi',
    birth_date: over.birth_date ?? '1990-02-28',
    gender: 'female',
    nationality: 'IR',
    passport_number: 'P1234567',
    passport_expiry_date: over.passport_expiry_date ?? addDays(todayUtc(), 3000),
  },
  travel: { from: over.from ?? soon, to: over.to ?? later },
  documents: [
    { type: 'passport', reference: 'scan-1' },
    { type: 'photo', reference: 'scan-2' },
  ],
});
const leadGuest = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', phone_number: '+98 912 000 0000' };
const traveler = { first_name: 'Ali', last_name: 'Rezaei', gender: 'male', passenger_type: 'ADT', nationality: 'IR', national_id: '0012345679' };
const agencyBooking = (checkIn: string, checkOut: string) => ({
  hotel_id: '410',
  room_id: 'STD-RO-FLEX',
  guest_name: 'Sara Ahmadi',
  guest_email: 'sara@example.com',
  check_in: checkIn,
  check_out: checkOut,
});

const A_CASES: Case[] = [
  // An impossible calendar date that matches YYYY-MM-DD.
  {
    row: 'impossible date: hotel search',
    method: 'POST',
    path: '/api/hotel/search_hotels/',
    body: { city_id: 4, check_in: '2027-02-30', check_out: '2027-03-03', nationality_id: 'IR', rooms: [{ adult_count: 2 }] },
    status: 400,
    says: 'check_in: must be a real calendar date',
  },
  {
    row: 'impossible date: villa list',
    method: 'GET',
    path: '/api/residence/properties/list/?check_in=2027-02-30&check_out=2027-03-03',
    status: 400,
    says: 'check_in: must be a real calendar date',
  },
  {
    row: 'date 0000-00-00: villa list',
    method: 'GET',
    path: '/api/residence/properties/list/?check_in=0000-00-00&check_out=2027-03-03',
    status: 400,
    says: 'check_in: must be a real calendar date',
  },
  {
    row: 'impossible date: villa hold',
    method: 'POST',
    path: '/api/residence/reserve/',
    body: { property_id: 1, check_in: '2027-02-30', check_out: '2027-03-03', guests: 2, lead_guest: leadGuest },
    status: 400,
    says: 'check_in: must be a real calendar date',
  },
  {
    row: 'impossible date: visa request',
    method: 'POST',
    path: '/api/visa/request/',
    body: visaBody({ from: '2027-02-30' }),
    status: 400,
    says: 'travel.from: must be a real calendar date',
  },
  {
    row: 'impossible birth date: visa applicant',
    method: 'POST',
    path: '/api/visa/request/',
    body: visaBody({ birth_date: '1990-02-30' }),
    status: 400,
    says: 'applicant.birth_date: must be a real calendar date',
  },
  {
    row: 'birth date in the future: visa applicant',
    method: 'POST',
    path: '/api/visa/request/',
    body: visaBody({ birth_date: soon }),
    status: 400,
    says: 'applicant.birth_date: must be from 1900-01-01 to yesterday',
  },
  {
    row: 'impossible departure: flight search',
    method: 'POST',
    path: '/api/flights/search_flights/',
    body: { origin: 'IKA', destination: 'IST', departure_date_time: '2027-02-30T08:00', cabin_type: 'economy', air_trip_type: 'one_way' },
    status: 400,
    says: 'departure_date_time: must be an ISO 8601 date or date-time',
  },
  {
    row: 'impossible time: flight search',
    method: 'POST',
    path: '/api/flights/search_flights/',
    body: { origin: 'IKA', destination: 'IST', departure_date_time: `${soon}T25:00`, cabin_type: 'economy', air_trip_type: 'one_way' },
    status: 400,
    says: 'departure_date_time: must be an ISO 8601 date or date-time',
  },
  {
    row: 'impossible birth date: flight traveller',
    method: 'POST',
    path: '/api/flights/air_booking/',
    body: {
      fare_source_code: 'x',
      traveler_info: { contact: { phone_number: '+98 912 000 0000', email: 'a@b.co' }, air_travelers: [{ ...traveler, birth_date: '1990-02-30' }] },
    },
    status: 400,
    says: 'air_travelers.0.birth_date: must be a real calendar date',
  },
  {
    row: 'impossible birth date: tour passenger',
    method: 'POST',
    path: '/api/tours/prebook/',
    body: { tour_id: 1, departure_id: 1, passengers: [{ ...traveler, birth_date: '2001-02-29' }] },
    status: 400,
    says: 'passengers.0.birth_date: must be a real calendar date',
  },
  // No upper bound on dates: year 9999.
  {
    row: 'year 9999: hotel search',
    method: 'POST',
    path: '/api/hotel/search_hotels/',
    body: { city_id: 4, check_in: far, check_out: farOut, nationality_id: 'IR', rooms: [{ adult_count: 2 }] },
    status: 400,
    says: 'check_in: must be from today (UTC) to 548 days',
  },
  {
    row: 'year 9999: villa hold',
    method: 'POST',
    path: '/api/residence/reserve/',
    body: { property_id: 1, check_in: far, check_out: farOut, guests: 2, lead_guest: leadGuest },
    status: 400,
    says: 'check_in: must be from today (UTC) to 548 days',
  },
  {
    row: 'year 9999: visa trip',
    method: 'POST',
    path: '/api/visa/request/',
    body: visaBody({ from: far, to: farOut }),
    status: 400,
    says: 'travel.from: must be from today (UTC) to 548 days',
  },
  {
    row: 'year 9999: passport expiry',
    method: 'POST',
    path: '/api/visa/request/',
    body: visaBody({ passport_expiry_date: far }),
    status: 400,
    says: 'applicant.passport_expiry_date: must be from today (UTC) to 20 years ahead',
  },
  {
    row: 'year 9999: flight search',
    method: 'POST',
    path: '/api/flights/search_flights/',
    body: { origin: 'IKA', destination: 'IST', departure_date_time: far, cabin_type: 'economy', air_trip_type: 'one_way' },
    status: 400,
    says: 'departure_date_time: must be from today (UTC) to 548 days',
  },
  {
    row: 'stay in the past: hotel search',
    method: 'POST',
    path: '/api/hotel/search_hotels/',
    body: { city_id: 4, check_in: '2020-01-01', check_out: '2020-01-03', nationality_id: 'IR', rooms: [{ adult_count: 2 }] },
    status: 400,
    says: 'check_in: must be from today',
  },
  // Ids beyond the database's integer range: not found in a path, a validation error in a body.
  { row: 'id past int4: product', method: 'GET', path: '/api/products/products/2147483648/', status: 404, says: 'product 2147483648 not found' },
  { row: 'id of 19 digits: tour', method: 'GET', path: '/api/tours/9223372036854775807/', status: 404, says: 'not found' },
  { row: 'id past int4: visa status', method: 'GET', path: '/api/visa/requests/2147483648/', status: 404, says: 'not found' },
  { row: 'id past int4: reservation query', method: 'GET', path: '/api/residence/reserve/detail/?reservation_id=2147483648', status: 404, says: 'not found' },
  {
    row: 'id past int4: pay body',
    method: 'POST',
    path: '/api/partners/pay/',
    body: { order_id: 2147483648, idempotency_key: 'k' },
    status: 400,
    says: 'order_id: must be at most 2147483647',
  },
  {
    row: 'id past int4: basket item',
    method: 'POST',
    path: '/api/products/basket/items/',
    body: { product: 2147483648, quantity: 1 },
    status: 400,
    says: 'product: must be at most 2147483647',
  },
  // Text: blank, too long (counted in characters, as JSON Schema counts), an unknown sandbox scenario.
  {
    row: 'blank name',
    method: 'POST',
    path: '/api/residence/reserve/',
    body: { property_id: 1, check_in: soon, check_out: later, guests: 2, lead_guest: { ...leadGuest, first_name: '   ' } },
    status: 400,
    says: 'lead_guest.first_name: must not be blank',
  },
  {
    row: 'name over its limit',
    method: 'POST',
    path: '/api/residence/reserve/',
    body: { property_id: 1, check_in: soon, check_out: later, guests: 2, lead_guest: { ...leadGuest, last_name: 'x'.repeat(101) } },
    status: 400,
    says: 'lead_guest.last_name: must be at most 100 characters',
  },
  {
    row: 'unknown sandbox scenario',
    method: 'POST',
    path: '/api/partners/pay/',
    body: { order_id: 1, idempotency_key: 'k' },
    headers: { 'x-sandbox-scenario': 'make_it_free' },
    status: 400,
    says: 'x-sandbox-scenario: must be one of',
  },
  { row: 'query number out of range', method: 'GET', path: '/api/tours/?min_duration=99999999', status: 400, says: 'min_duration: must be at most 999' },
  { row: 'query number that is not digits', method: 'GET', path: '/api/tours/?min_duration=%20', status: 400, says: 'min_duration: must be a whole number' },
  { row: 'path id of 20 digits', method: 'DELETE', path: '/api/products/basket/items/99999999999999999999/', status: 404, says: 'not found' },
];

const B_CASES: Case[] = [
  {
    row: 'impossible date: hotel search',
    method: 'GET',
    path: '/v1/hotels/search?city=shiraz&check_in=2027-02-30&check_out=2027-03-03',
    status: 422,
    says: ['query', 'check_in'],
  },
  {
    row: 'year 9999: hotel search',
    method: 'GET',
    path: `/v1/hotels/search?city=shiraz&check_in=${far}&check_out=${farOut}`,
    status: 422,
    says: ['query', 'check_in'],
  },
  {
    row: 'impossible date: booking',
    method: 'POST',
    path: '/v1/hotels/bookings',
    body: agencyBooking('2027-02-30', '2027-03-03'),
    status: 422,
    says: ['body', 'check_in'],
  },
  { row: 'year 9999: booking', method: 'POST', path: '/v1/hotels/bookings', body: agencyBooking(far, farOut), status: 422, says: ['body', 'check_in'] },
  { row: 'impossible date: bookings filter', method: 'GET', path: '/v1/hotels/bookings?from_date=2027-02-30', status: 422, says: ['query', 'from_date'] },
  { row: 'id past int4: cancel', method: 'DELETE', path: '/v1/hotels/bookings/2147483648', status: 404, says: 'booking 2147483648 not found' },
  { row: 'id past int4: product order', method: 'GET', path: '/v1/products/orders/99999999999', status: 404, says: 'order 99999999999 not found' },
  { row: 'id past int4: hotel', method: 'GET', path: '/v1/hotels/9999999999', status: 404, says: 'hotel 9999999999 not found' },
  {
    row: 'blank guest name',
    method: 'POST',
    path: '/v1/hotels/bookings',
    body: { ...agencyBooking(soon, later), guest_name: ' \t ' },
    status: 422,
    says: ['body', 'guest_name'],
  },
  {
    row: 'unknown sandbox scenario',
    method: 'POST',
    path: '/v1/hotels/bookings',
    body: agencyBooking(soon, later),
    headers: { 'x-sandbox-scenario': 'make_it_free' },
    status: 422,
    says: ['header', 'x-sandbox-scenario'],
  },
  { row: 'query number not a number', method: 'GET', path: '/v1/products?limit=abc', status: 422, says: ['query', 'limit'] },
  {
    row: 'query number in hex',
    method: 'GET',
    path: `/v1/hotels/search?city=shiraz&check_in=${soon}&check_out=${later}&guests=0x2`,
    status: 422,
    says: ['query', 'guests'],
  },
];

const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('JSON nested deeper than any request, and a path that does not decode', () => {
  it('is refused with a 4xx in each interface’s shape (a 100 000-deep array overflowed the guard’s stack: 500)', async () => {
    const { creds } = await newPartner(stack, '0', '1000000');
    const a = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
    const b = { authorization: `Bearer ${creds.agency_key}` };
    const deepA = await call(stack.app, 'POST', '/api/partners/pay/', a, deepArray(100_000));
    expect([deepA.status, deepA.body]).toEqual([400, { ok: false, error: 'body: JSON must not be nested more than 32 levels deep' }]);
    const deepB = await call(stack.app, 'POST', '/v1/products/orders', b, deepObject(40));
    expect(deepB.status).toBe(422);
    expect(deepB.body).toEqual({ detail: [{ loc: ['body'], msg: expect.stringContaining('32 levels'), type: 'json_too_deep' }] });
    // Just inside the bound the body is judged by the route as usual.
    expect((await call(stack.app, 'POST', '/v1/products/orders', b, deepObject(31))).status).toBe(422);
    const badPath = await call(stack.app, 'GET', '/api/products/products/%E0%A4%A/', a);
    expect([badPath.status, badPath.body]).toEqual([400, { ok: false, error: 'path: the path has a malformed percent-encoding' }]);
    const badPathB = await call(stack.app, 'GET', '/v1/products/%ZZ', b);
    expect([badPathB.status, badPathB.body.detail[0].type]).toEqual([422, 'path_encoding']);
    expect(await footprint(creds.partner_id)).toEqual({
      orders: 0,
      ledger: 1,
      hotelBookings: 0,
      reservations: 0,
      visaApplications: 0,
      tourPrebooks: 0,
      flightBookings: 0,
    });
  });
});

/** Rows a partner owns anywhere: all must stay as they were (only the top-up in the ledger). */
async function footprint(partnerId: number) {
  const count = async (
    table:
      typeof orders | typeof ledgerEntries | typeof hotelBookings | typeof reservations | typeof visaApplications | typeof tourPrebooks | typeof flightBookings,
  ) => (await stack.db.select().from(table).where(eq(table.partnerId, partnerId))).length;
  return {
    orders: await count(orders),
    ledger: await count(ledgerEntries),
    hotelBookings: await count(hotelBookings),
    reservations: await count(reservations),
    visaApplications: await count(visaApplications),
    tourPrebooks: await count(tourPrebooks),
    flightBookings: await count(flightBookings),
  };
}

describe('adversarial requests (issue 12): a 4xx in the interface’s shape, nothing written', () => {
  it('Interface A', async () => {
    const { creds } = await newPartner(stack, '1000000', '50000000');
    const before = await footprint(creds.partner_id);
    const headers = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret };
    const answers = [];
    for (const c of A_CASES) {
      const res = await call(stack.app, c.method, c.path, { ...headers, ...c.headers }, c.body);
      answers.push({ row: c.row, status: res.status, body: res.body });
    }
    // One assertion over the whole table, so that a failure lists every row that went wrong.
    expect(answers).toEqual(A_CASES.map((c) => ({ row: c.row, status: c.status, body: { ok: false, error: expect.stringContaining(c.says as string) } })));
    expect(await footprint(creds.partner_id)).toEqual(before);
  });

  it('Interface B', async () => {
    const { creds } = await newPartner(stack, '1000000', '50000000');
    const before = await footprint(creds.partner_id);
    const headers = { authorization: `Bearer ${creds.agency_key}` };
    const answers = [];
    for (const c of B_CASES) {
      const res = await call(stack.app, c.method, c.path, { ...headers, ...c.headers }, c.body);
      answers.push({ row: c.row, status: res.status, body: res.body });
    }
    expect(answers).toEqual(
      B_CASES.map((c) => ({
        row: c.row,
        status: c.status,
        body:
          typeof c.says === 'string'
            ? { detail: c.says }
            : { detail: expect.arrayContaining([{ loc: c.says, msg: expect.any(String), type: expect.any(String) }]) },
      })),
    );
    expect(await footprint(creds.partner_id)).toEqual(before);
  });
});

describe('after the sale (flight changes, seats and bags): a 4xx in A’s shape for any malformed body, nothing written', () => {
  it('wrong types, huge arrays, unknown ids, another partner’s order, an order that is not a flight', async () => {
    const mine = await newPartner(stack, '0', '900000000');
    const theirs = await newPartner(stack, '0', '900000000');
    /** A ticketed simulator flight of this partner's: its order id. */
    const ticketed = async (api: typeof mine.api, days: number) => {
      const found = await api.post('/api/flights/search_flights/', {
        origin: 'THR',
        destination: 'MHD',
        departure_date_time: `${addDays(todayUtc(), days)}T00:00:00Z`,
        adult_count: 1,
        cabin_type: 'economy',
        air_trip_type: 'one_way',
      });
      const booked = await api.post('/api/flights/air_booking/', {
        fare_source_code: found.body.data.results[0].fare_source_code,
        traveler_info: { contact: { phone_number: '+989121234567', email: 'ops@acme.example' }, air_travelers: [{ ...traveler, birth_date: '1990-01-01' }] },
      });
      expect(booked.status).toBe(201);
      expect((await api.post('/api/partners/pay/', { order_id: booked.body.data.id })).status).toBe(200);
      return booked.body.data.id as number;
    };
    const myFlight = await ticketed(mine.api, 60);
    const theirFlight = await ticketed(theirs.api, 61);
    const theirOffer = (
      await theirs.api.post('/api/flights/air_change_request/', {
        order_id: theirFlight,
        remove: [0],
        add: [{ origin: 'THR', destination: 'MHD', departure_date: addDays(todayUtc(), 62), cabin_type: 'economy' }],
      })
    ).body.data.offers[0].change_offer_id as string;
    const stay = await mine.api.post('/api/hotel/search_hotels/', {
      check_in: soon,
      check_out: later,
      nationality_id: 'IR',
      rooms: [{ adult_count: 2 }],
      city_id: 1,
    });
    const held = await mine.api.post('/api/hotel/book/', {
      rate_key: stay.body.data.results[0].rates[0].rate_key,
      guests: [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' }]],
      contact: { phone_number: '+989121234567', email: 'ops@acme.example' },
    });
    const hotelOrder = (await mine.api.post('/api/hotel/order/', { booking_id: held.body.data.booking_id })).body.data.id as number;

    const leg = { origin: 'THR', destination: 'MHD', departure_date: addDays(todayUtc(), 63), cabin_type: 'economy' };
    const huge = Array.from({ length: 5000 }, (_, i) => i);
    const cases: Array<[string, string, string, unknown, number]> = [
      ['change: order_id a string', 'POST', '/api/flights/air_change_request/', { order_id: 'one', remove: [0], add: [leg] }, 400],
      ['change: remove not an array', 'POST', '/api/flights/air_change_request/', { order_id: myFlight, remove: '0', add: [leg] }, 400],
      ['change: remove huge', 'POST', '/api/flights/air_change_request/', { order_id: myFlight, remove: huge, add: [leg] }, 400],
      ['change: add huge', 'POST', '/api/flights/air_change_request/', { order_id: myFlight, remove: [0], add: huge.slice(0, 100).map(() => leg) }, 400],
      ['change: add of numbers', 'POST', '/api/flights/air_change_request/', { order_id: myFlight, remove: [0], add: [{ ...leg, origin: 7 }] }, 400],
      ['change: a leg index as a float', 'POST', '/api/flights/air_change_request/', { order_id: myFlight, remove: [0.5], add: [leg] }, 400],
      ['change: another partner’s order', 'POST', '/api/flights/air_change_request/', { order_id: theirFlight, remove: [0], add: [leg] }, 404],
      ['change: a hotel order', 'POST', '/api/flights/air_change_request/', { order_id: hotelOrder, remove: [0], add: [leg] }, 404],
      ['change: an order id past any integer', 'POST', '/api/flights/air_change_request/', { order_id: 2 ** 62, remove: [0], add: [leg] }, 400],
      [
        'confirm: an offer id this engine never gave',
        'POST',
        '/api/flights/air_change_confirm/',
        { order_id: myFlight, change_offer_id: 'oco_nope', idempotency_key: 'k1' },
        400,
      ],
      [
        'confirm: an offer id of 5000 characters',
        'POST',
        '/api/flights/air_change_confirm/',
        { order_id: myFlight, change_offer_id: 'x'.repeat(5000), idempotency_key: 'k2' },
        400,
      ],
      ['confirm: the key a number', 'POST', '/api/flights/air_change_confirm/', { order_id: myFlight, change_offer_id: theirOffer, idempotency_key: 7 }, 400],
      [
        'confirm: another partner’s offer, for my order',
        'POST',
        '/api/flights/air_change_confirm/',
        { order_id: myFlight, change_offer_id: theirOffer, idempotency_key: 'k3' },
        400,
      ],
      [
        'confirm: another partner’s offer and order',
        'POST',
        '/api/flights/air_change_confirm/',
        { order_id: theirFlight, change_offer_id: theirOffer, idempotency_key: 'k4' },
        404,
      ],
      ['confirm: a hotel order', 'POST', '/api/flights/air_change_confirm/', { order_id: hotelOrder, change_offer_id: theirOffer, idempotency_key: 'k5' }, 400],
      ['bags: services not an array', 'POST', '/api/flights/air_order_services/', { order_id: myFlight, services: 'bag', idempotency_key: 'b1' }, 400],
      ['bags: services empty', 'POST', '/api/flights/air_order_services/', { order_id: myFlight, services: [], idempotency_key: 'b2' }, 400],
      [
        'bags: services huge',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: myFlight, services: huge.map((i) => ({ service_id: `s${i}`, quantity: 1 })), idempotency_key: 'b3' },
        400,
      ],
      [
        'bags: a quantity as a string',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: myFlight, services: [{ service_id: 's', quantity: '1' }], idempotency_key: 'b4' },
        400,
      ],
      [
        'bags: a quantity of 0',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: myFlight, services: [{ service_id: 's', quantity: 0 }], idempotency_key: 'b5' },
        400,
      ],
      [
        'bags: an unknown service id',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: myFlight, services: [{ service_id: 'svc_nope', quantity: 1 }], idempotency_key: 'b6' },
        400,
      ],
      [
        'bags: a service id of 5000 characters',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: myFlight, services: [{ service_id: 'x'.repeat(5000), quantity: 1 }], idempotency_key: 'b7' },
        400,
      ],
      [
        'bags: another partner’s order',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: theirFlight, services: [{ service_id: 's', quantity: 1 }], idempotency_key: 'b8' },
        404,
      ],
      [
        'bags: a hotel order',
        'POST',
        '/api/flights/air_order_services/',
        { order_id: hotelOrder, services: [{ service_id: 's', quantity: 1 }], idempotency_key: 'b9' },
        404,
      ],
      ['bags on sale: another partner’s order', 'POST', '/api/flights/air_order_available_services/', { order_id: theirFlight }, 404],
      ['bags on sale: a hotel order', 'POST', '/api/flights/air_order_available_services/', { order_id: hotelOrder }, 404],
      ['bags on sale: order_id an array', 'POST', '/api/flights/air_order_available_services/', { order_id: [myFlight] }, 400],
      ['seat map: no fare', 'GET', '/api/flights/seat_map/', undefined, 400],
      ['seat map: a fare this engine never gave', 'GET', '/api/flights/seat_map/?fare_source_code=nope', undefined, 400],
      ['seat map: a fare of 5000 characters', 'GET', `/api/flights/seat_map/?fare_source_code=${'x'.repeat(5000)}`, undefined, 400],
      ['seat map: the fare twice', 'GET', '/api/flights/seat_map/?fare_source_code=a&fare_source_code=b', undefined, 400],
      ['bags of a fare: a fare this engine never gave', 'GET', '/api/flights/air_services/?fare_source_code=nope', undefined, 400],
    ];
    const before = await footprint(mine.creds.partner_id);
    const changesBefore = (await stack.db.select().from(flightChanges)).length;
    const headers = { 'x-api-key': mine.creds.api_key, 'x-api-secret': mine.creds.api_secret };
    const answers = [];
    for (const [row, method, path, body] of cases) {
      const res = await call(stack.app, method, path, headers, body);
      answers.push({ row, status: res.status, body: res.body });
    }
    expect(answers).toEqual(cases.map(([row, , , , status]) => ({ row, status, body: { ok: false, error: expect.any(String) } })));
    expect(await footprint(mine.creds.partner_id)).toEqual(before);
    expect((await stack.db.select().from(flightChanges)).length).toBe(changesBefore);
  }, 120_000);
});
