import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { RIGHT_NAMES } from '../../src/domain/rights';
import { call, newPartner, type PartnerCredentials, type Reply } from '../support/clients';
import { contact, day, visaApplication } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';

/**
 * What a parent agency reads of its sub-agencies, one thing at a time, on Interface A and B
 * (docs/decisions/sub-agencies.md): every read of a child's booking, order, reservation or
 * application by id, the lists and the events feeds, answer the parent as they answer the
 * child; acting on them stays the child's (not found to the parent). A child reads nothing of
 * its parent's or its sibling's: each is a not-found in the interface's shape. An agent of the
 * parent who sees only their own bookings sees none of the children's.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const aAuth = (k: Pick<PartnerCredentials, 'api_key' | 'api_secret'>) => ({ 'x-api-key': k.api_key, 'x-api-secret': k.api_secret });
const bAuth = (agencyKey: string) => ({ authorization: `Bearer ${agencyKey}` });

/** A villa that is never blocked and takes one night. */
const VILLA = SEED_PROPERTIES.findIndex((p) => p.code === 'RS-RMSR-02') + 1;

/** One agency's two doors: Interface A (its key and secret) and Interface B (its agency key). */
interface Agency {
  a: (method: string, path: string, body?: unknown) => Promise<Reply>;
  b: (method: string, path: string, body?: unknown) => Promise<Reply>;
}
const agencyOf = (a: Record<string, string>, b: Record<string, string>): Agency => ({
  a: (method, path, body) => call(stack.app, method, path, a, body ?? (method === 'POST' ? {} : undefined)),
  b: (method, path, body) => call(stack.app, method, `/v1${path}`, b, body),
});
const of = (creds: PartnerCredentials) => agencyOf(aAuth(creds), bAuth(creds.agency_key));

/** What one agency made: one of each thing a parent may read. */
interface Made {
  hotelOrder: number;
  hotelBooking: number;
  bBooking: string;
  bOrder: string;
  flightOrder: number;
  visaOrder: number;
  reservation: number;
}

function expectOk(res: Reply, what: string, status = 200) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
  return res.body;
}

/** `offset`: how far ahead its stays start, so that the agencies' holds never take each other's dates. */
async function makeAll(x: Agency, offset: number): Promise<Made> {
  // A hotel on Interface A, ordered and paid.
  const search = expectOk(
    await x.a('POST', '/api/hotel/search_hotels/', {
      check_in: day(offset),
      check_out: day(offset + 2),
      nationality_id: 'IR',
      rooms: [{ adult_count: 2 }],
      city_id: 1,
    }),
    'hotel search',
  );
  const rate = search.data.results.flatMap((h: { rates: Array<{ refundable: boolean }> }) => h.rates).find((r: { refundable: boolean }) => r.refundable);
  const checked = expectOk(await x.a('POST', '/api/hotel/check_rate/', { rate_key: rate.rate_key }), 'check rate');
  const guests = [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' }]];
  const booked = expectOk(await x.a('POST', '/api/hotel/book/', { rate_key: checked.data.rate_key, guests, contact }), 'hotel book');
  const ordered = expectOk(await x.a('POST', '/api/hotel/order/', { booking_id: booked.data.booking_id }), 'hotel order', 201);
  expectOk(await x.a('POST', '/api/partners/pay/', { order_id: ordered.data.id, idempotency_key: `hotel-${ordered.data.id}` }), 'hotel pay');

  // A hotel on Interface B: reserved, paid and confirmed in one call.
  const bSearch = expectOk(await x.b('GET', `/hotels/search?city=shiraz&check_in=${day(offset)}&check_out=${day(offset + 2)}`), 'B search');
  const hotel = bSearch.results.find((h: { rooms: Array<{ refundable: boolean }> }) => h.rooms.some((r) => r.refundable));
  const room = hotel.rooms.find((r: { refundable: boolean }) => r.refundable);
  const bBooked = expectOk(
    await x.b('POST', '/hotels/bookings', {
      hotel_id: hotel.hotel_id,
      room_id: room.room_id,
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: day(offset),
      check_out: day(offset + 2),
    }),
    'B booking',
    201,
  );

  // A product on Interface B.
  const bOrder = expectOk(
    await x.b('POST', '/products/orders', {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 1,
      delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
    }),
    'B product order',
    201,
  );

  // A flight, booked and paid: ticketed.
  const flights = expectOk(
    await x.a('POST', '/api/flights/search_flights/', {
      origin: 'THR',
      destination: 'MHD',
      departure_date_time: `${day(offset)}T00:00:00Z`,
      adult_count: 1,
      cabin_type: 'economy',
      air_trip_type: 'one_way',
    }),
    'flight search',
  );
  const fare = flights.data.results.find((o: { fare_family: string }) => o.fare_family === 'Standard');
  const traveller = {
    first_name: 'Reza',
    last_name: 'Karimi',
    birth_date: '1985-04-12',
    gender: 'male',
    passenger_type: 'ADT',
    nationality: 'IR',
    national_id: '0012345679',
  };
  const flight = expectOk(
    await x.a('POST', '/api/flights/air_booking/', { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } }),
    'flight booking',
    201,
  );
  expectOk(await x.a('POST', '/api/partners/pay/', { order_id: flight.data.id, idempotency_key: `flight-${flight.data.id}` }), 'flight pay');

  // A visa application, and villa dates held.
  const visa = expectOk(await x.a('POST', '/api/visa/request/', visaApplication(1)), 'visa request', 201);
  const held = expectOk(
    await x.a('POST', '/api/residence/reserve/', {
      property_id: VILLA,
      check_in: day(offset),
      check_out: day(offset + 1),
      guests: 2,
      lead_guest: { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' },
    }),
    'villa hold',
  );
  return {
    hotelOrder: ordered.data.id,
    hotelBooking: booked.data.booking_id,
    bBooking: bBooked.booking_id,
    bOrder: bOrder.order_id,
    flightOrder: flight.data.id,
    visaOrder: visa.data.id,
    reservation: held.data.reservation_id,
  };
}

/** Every read of one thing by id, on both interfaces: what a parent may read of its child's. */
const reads = (m: Made): Call[] => [
  ['a', 'POST', '/api/hotel/booking_data/', { order_id: m.hotelOrder }],
  ['a', 'POST', '/api/hotel/booking_data/', { booking_id: m.hotelBooking }],
  ['a', 'POST', '/api/flights/air_booking_data/', { order_id: m.flightOrder }],
  ['a', 'POST', '/api/flights/air_order_ticket/', { order_id: m.flightOrder }],
  ['a', 'GET', `/api/visa/requests/${m.visaOrder}/`],
  ['a', 'GET', `/api/residence/reserve/detail/?reservation_id=${m.reservation}`],
  ['a', 'GET', `/api/residence/reserve/time/?reservation_id=${m.reservation}`],
  ['a', 'GET', `/api/partners/orders/${m.hotelOrder}/documents/`],
  ['a', 'GET', `/api/partners/orders/${m.hotelOrder}/documents/voucher.pdf`],
  ['a', 'GET', `/api/partners/orders/${m.bOrder}/documents/`],
  ['b', 'GET', `/hotels/bookings/${m.bBooking}/documents`],
  ['b', 'GET', `/hotels/bookings/${m.bBooking}/documents/voucher.pdf`],
  ['b', 'GET', `/products/orders/${m.bOrder}`],
  ['b', 'GET', `/products/orders/${m.bOrder}/documents`],
];

/** Every event of a feed, page after page: A's (`/api/partners/events/`, by its `next`) or B's (`/v1/events`, by `after`). */
async function feed(x: Agency, door: keyof Agency): Promise<Array<{ order_id: string | number | null }>> {
  const all: Array<{ order_id: string | number | null }> = [];
  if (door === 'a') {
    for (let path: string | null = '/api/partners/events/'; path;) {
      const page: { results: typeof all; next: string | null } = (await x.a('GET', path)).body.data;
      all.push(...page.results);
      path = page.next && new URL(page.next).pathname + new URL(page.next).search;
    }
    return all;
  }
  for (let after = ''; ;) {
    const page = (await x.b('GET', `/events?limit=100${after}`)).body;
    all.push(...page.results);
    if (!page.has_more) return all;
    after = `&after=${page.results.at(-1).event_id}`;
  }
}
const orderIdsIn = async (x: Agency, door: keyof Agency) => new Set((await feed(x, door)).map((e) => String(e.order_id)));

interface World {
  parent: Agency;
  child: Agency;
  sibling: Agency;
  /** An agent of the parent who sees only the bookings they made. */
  ownOnly: Agency;
  made: { parent: Made; child: Made; sibling: Made };
}

let built: Promise<World> | undefined;
/** A parent with two children, each of the three having made one of everything. */
function world(): Promise<World> {
  built ??= (async () => {
    const parentCreds = (await newPartner(stack, '0', '1000000000')).creds;
    const parent = of(parentCreds);
    const children: PartnerCredentials[] = [];
    for (const name of ['Acme Shiraz', 'Acme Tabriz']) {
      const made = expectOk(await parent.a('POST', '/api/partners/agencies/', { name }), 'sub-agency', 201).data as PartnerCredentials;
      expectOk(
        await parent.a('POST', `/api/partners/agencies/${made.partner_id}/credit/`, { credit_limit: '300000000', idempotency_key: `grant-${name}` }),
        'grant',
      );
      children.push(made);
    }
    const [child, sibling] = children.map(of) as [Agency, Agency];
    const user = expectOk(
      await parent.a('POST', '/api/partners/users/', { name: 'Sara', email: 'sara@acme.example', role: 'agent', own_bookings_only: true }),
      'user',
      201,
    );
    const connection = (iface: 'a' | 'b') =>
      parent.a('POST', '/api/partners/connections/', { name: `Sara ${iface}`, interface: iface, rights: RIGHT_NAMES, user_id: user.data.id });
    const [ka, kb] = [expectOk(await connection('a'), 'A connection', 201).data, expectOk(await connection('b'), 'B connection', 201).data];
    const ownOnly = agencyOf(aAuth(ka), bAuth(kb.agency_key));
    const made = { parent: await makeAll(parent, 40), child: await makeAll(child, 50), sibling: await makeAll(sibling, 60) };
    return { parent, child, sibling, ownOnly, made };
  })();
  return built;
}

type Call = [keyof Agency, string, string, unknown?];
/** A call's status and the shape of its answer: A's `ok`, or whether B's carries a `detail`. */
const answer = async (x: Agency, [door, method, path, body]: Call) => {
  const res = await x[door](method, path, body);
  return { door, method, path, body, status: res.status, shape: door === 'a' ? res.body?.ok : typeof res.body?.detail };
};
type Answer = Awaited<ReturnType<typeof answer>>;
/** Each call is a not-found in its interface's shape: A's `{ok: false, error}`, B's `{detail}`. */
async function expectNotFound(x: Agency, calls: Call[]) {
  const got: Answer[] = [];
  for (const c of calls) got.push(await answer(x, c));
  expect(got).toEqual(got.map((g) => ({ ...g, status: 404, shape: g.door === 'a' ? false : 'string' })));
}

it("the parent reads each of its child's bookings, orders, reservations and applications by id, on A and on B, as the child does", async () => {
  const { parent, child, made } = await world();
  const [theirs, mine] = [[] as Answer[], [] as Answer[]];
  for (const read of reads(made.child)) {
    theirs.push(await answer(child, read));
    mine.push(await answer(parent, read));
  }
  expect(theirs.map((t) => t.status)).toEqual(theirs.map(() => 200));
  expect(mine).toEqual(theirs);
});

it("a child reads nothing of its parent's or its sibling's: each is a not-found in the interface's shape", async () => {
  const { child, sibling, made } = await world();
  for (const [reader, owner] of [
    [child, made.parent],
    [child, made.sibling],
    [sibling, made.child],
  ] as const) {
    await expectNotFound(reader, reads(owner));
  }
});

it("the parent's B bookings list and both events feeds carry its children's, a child's carry none of its parent's or sibling's", async () => {
  const { parent, child, sibling, made } = await world();
  const bookingsOf = async (x: Agency) => (await x.b('GET', '/hotels/bookings')).body.results.map((b: { booking_id: string }) => b.booking_id);
  expect(await bookingsOf(parent)).toEqual(expect.arrayContaining([made.parent.bBooking, made.child.bBooking, made.sibling.bBooking]));
  expect(await bookingsOf(child)).toEqual([made.child.bBooking]);
  for (const door of ['a', 'b'] as const) {
    const [parents, childs, siblings] = [await orderIdsIn(parent, door), await orderIdsIn(child, door), await orderIdsIn(sibling, door)];
    for (const id of [made.parent.bOrder, made.child.bOrder, made.child.hotelOrder, made.sibling.flightOrder])
      expect({ door, id, in: parents.has(String(id)) }).toEqual({ door, id, in: true });
    for (const id of [made.parent.bOrder, made.parent.hotelOrder, made.sibling.bOrder])
      expect({ door, id, in: childs.has(String(id)) }).toEqual({ door, id, in: false });
    expect(siblings.has(String(made.child.bOrder))).toBe(false);
  }
});

it("acting on a child's booking stays the child's: the parent gets not-found, and nothing changes", async () => {
  const { parent, child, made } = await world();
  const tries: Call[] = [
    ['b', 'DELETE', `/hotels/bookings/${made.child.bBooking}`],
    ['a', 'POST', '/api/hotel/cancel_display/', { order_id: made.child.hotelOrder }],
    ['a', 'POST', '/api/hotel/cancel/', { order_id: made.child.hotelOrder }],
    ['a', 'POST', '/api/flights/air_refund_display/', { order_id: made.child.flightOrder }],
    ['a', 'POST', '/api/residence/bookings/cancel/', { reservation_id: made.child.reservation }],
  ];
  await expectNotFound(parent, tries);
  // Paying is refused as paying another agency's order is: 400, not one of yours.
  const stranger = of((await newPartner(stack)).creds);
  const pay = (x: Agency) => x.a('POST', '/api/partners/pay/', { order_id: made.child.visaOrder, idempotency_key: 'pays-childs' });
  const [byParent, byStranger] = [await pay(parent), await pay(stranger)];
  expect({ status: byParent.status, body: byParent.body }).toEqual({ status: byStranger.status, body: byStranger.body });
  expect(byParent.body).toEqual({ ok: false, error: expect.stringContaining('not one of your orders') });
  expect((await child.b('GET', '/hotels/bookings?status=active')).body.results.map((b: { booking_id: string }) => b.booking_id)).toEqual([made.child.bBooking]);
  expect((await child.a('GET', `/api/residence/reserve/detail/?reservation_id=${made.child.reservation}`)).body.data).toMatchObject({ status: 'held' });
});

it("an agent of the parent who sees only their own bookings sees none of the children's, by id, in lists or in feeds", async () => {
  const { ownOnly, made } = await world();
  await expectNotFound(ownOnly, reads(made.child));
  expect((await ownOnly.b('GET', '/hotels/bookings')).body.results).toEqual([]);
  expect((await ownOnly.a('GET', '/api/partners/orders/')).body.data.results).toEqual([]);
  expect([...(await orderIdsIn(ownOnly, 'b'))]).toEqual([]);
});
