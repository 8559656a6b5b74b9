import { eq } from 'drizzle-orm';
import { hotelBookings, orders, supplierPlaces } from '../../src/db/schema';
import { loadConfig } from '../../src/config';
import { setRate as setStoredRate } from '../../src/domain/money/fx';
import { placeIds } from '../../src/db/place-ids';
import type { PartnerClient } from '../../src/client';
import type { components } from '../../src/client/partner-api';
import { call, newPartner as partnerWithWallet, settled } from '../support/clients';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { contact, day } from '../support/fixtures';
import { GBP_RATE, setRate as setRateOf } from '../support/rates';
import { ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';

/**
 * Hotels sold through Duffel Stays (HOTEL_SUPPLIER=duffel) against the Duffel stand-in, on
 * Interface A: London's hotels price in GBP and sell in the wallet's IRT at the operators' rate.
 */

let standIn: DuffelStandIn;
let stack: TestStack;
/** How far the stand-in's clock runs ahead of ours. */
let aheadMs = 0;

beforeAll(async () => {
  standIn = await startDuffelStandIn({ now: () => new Date(Date.now() + aheadMs) });
  stack = await startStack({
    payWaitMs: 15_000,
    finalizeAttempts: 3,
    env: { HOTEL_SUPPLIER: 'duffel', DUFFEL_ACCESS_TOKEN: 'duffel_test_engine', DUFFEL_API_URL: standIn.url, AGENCY_CONTACT_PHONE: '+442071234567' },
  });
});
afterEach(async () => {
  aheadMs = 0;
  standIn.control.clearFaults();
  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
});
afterAll(async () => {
  await stack?.close();
  await standIn?.stop();
});

type SearchRequest = components['schemas']['HotelSearchRequest'];
type Guest = components['schemas']['HotelBookRequest']['guests'][number][number];

const TOPUP = 900_000_000;
const newPartner = () => partnerWithWallet(stack, '0', String(TOPUP));
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const setRate = (from: string, rate: string | number) => setRateOf(stack, from, rate);

const guest: Guest = { first_name: 'Anna', last_name: 'Schmidt', nationality: 'DE', passport_number: 'C01X00T47' };
const stay = { check_in: day(40), check_out: day(42) };

async function cityId(client: PartnerClient, search: string): Promise<number> {
  const res = await client.GET('/hotel/cities/', { params: { query: { search } } });
  expect(res.response.status).toBe(200);
  return res.data!.data[0]!.id;
}

async function search(client: PartnerClient, body: Partial<SearchRequest>) {
  return client.POST('/hotel/search_hotels/', { body: { ...stay, nationality_id: 'DE', rooms: [{ adult_count: 1 }], ...body } as SearchRequest });
}

/** The first refundable rate in London. */
async function londonRate(client: PartnerClient) {
  const res = await search(client, { city_id: await cityId(client, 'london') });
  expect(res.response.status).toBe(200);
  for (const hotel of res.data!.data.results) {
    const rate = hotel.rates.find((r) => r.refundable);
    if (rate) return { hotel, rate };
  }
  throw new Error(`no refundable rate in ${JSON.stringify(res.data)}`);
}

const bookingOf = async (bookingId: number) => (await stack.db.select().from(hotelBookings).where(eq(hotelBookings.id, bookingId)))[0]!;
/** Stays bookings the stand-in made from a quote (answered or not). */
const bookingsMadeFrom = (quoteId: string) =>
  standIn.control.requests('POST /stays/bookings').filter((r) => r.status === 201 && (r.body as { quote_id?: string } | undefined)?.quote_id === quoteId);

describe('hotels through Duffel Stays', () => {
  it('lists Duffel’s airport cities under integer ids, Tehran domestic', async () => {
    const { client } = await newPartner();
    const all = (await client.GET('/hotel/cities/')).data!.data;
    const london = all.find((c) => c.iata_code === 'LON');
    const tehran = all.find((c) => c.iata_code === 'THR');
    expect(london).toMatchObject({ id: expect.any(Number), name: 'London', country: 'GB', domestic: false });
    expect(tehran).toMatchObject({ name: 'Tehran', country: 'IR', domestic: true });
    // London's two airports are one city; its id stays the same.
    expect(all.filter((c) => c.iata_code === 'LON')).toHaveLength(1);
    expect((await client.GET('/hotel/cities/')).data!.data.find((c) => c.iata_code === 'LON')?.id).toBe(london!.id);
  });

  it('searches a city and a hotel, pricing Duffel’s GBP at the rate', async () => {
    const { client } = await newPartner();
    const london = await cityId(client, 'london');
    expect((await setRate('GBP', GBP_RATE)).status).toBe(201);
    const res = await search(client, { city_id: london, rooms: [{ adult_count: 2, child_count: 1, child_ages: [7] }] });
    expect(res.response.status).toBe(200);
    const hotels = res.data!.data.results;
    expect(hotels.length).toBeGreaterThan(0);
    for (const h of hotels) {
      expect(h).toMatchObject({ hotel_id: expect.any(Number), city_id: london });
      for (const r of h.rates) {
        expect(['RO', 'BB']).toContain(r.board);
        expect(minor(r.total_price) % GBP_RATE).toBe(0);
      }
    }
    const sent = standIn.control.requests('POST /stays/search').at(-1)?.body;
    expect(sent).toMatchObject({
      rooms: 1,
      guests: [{ type: 'adult' }, { type: 'adult' }, { type: 'child', age: 7 }],
      location: { radius: expect.any(Number) },
    });

    const one = await search(client, { hotel_id: hotels[0]!.hotel_id });
    expect(one.response.status).toBe(200);
    expect(one.data!.data.results.map((h) => h.hotel_id)).toEqual([hotels[0]!.hotel_id]);
    expect(standIn.control.requests('POST /stays/search').at(-1)?.body).toMatchObject({ accommodation: { ids: [expect.stringMatching(/^acc_/)] } });

    const unknown = await search(client, { hotel_id: 999_999 });
    expect(unknown.response.status).toBe(400);
  });

  it('checks, books, orders, pays, reads, quotes and cancels a stay with a full refund', async () => {
    await setRate('GBP', GBP_RATE);
    const { client, api } = await newPartner();
    const { rate } = await londonRate(client);

    const checked = await client.POST('/hotel/check_rate/', { body: { rate_key: rate.rate_key } });
    expect(checked.response.status).toBe(200);
    expect(checked.data?.data).toMatchObject({ total_price: rate.total_price, price_changed: false, refundable: true, expires_at: expect.any(String) });
    expect(checked.data?.data.cancellation_policy.length).toBeGreaterThan(0);
    // The rate_key names Duffel's rate: the check is a quote of it.
    expect(standIn.control.requests('POST /stays/quotes').at(-1)?.body).toEqual({ rate_id: expect.stringMatching(/^rat_/) });

    const booked = await client.POST('/hotel/book/', { body: { rate_key: rate.rate_key, guests: [[guest]], contact } });
    expect(booked.response.status).toBe(200);
    expect(booked.data?.data).toMatchObject({ status: 'held', total_price: rate.total_price });
    const ordered = await client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
    expect(ordered.response.status).toBe(201);
    const order = ordered.data!.data;

    const row = await bookingOf(booked.data!.data.booking_id);
    expect(row.supplier).toBe('duffel');
    expect(row.supplierHoldId).toMatch(/^quo_/);
    const [orderRow] = await stack.db.select().from(orders).where(eq(orders.id, order.id));
    expect(orderRow).toMatchObject({ supplierCurrency: 'GBP', fxRateAmount: GBP_RATE, fxRateScale: 0 });
    expect(orderRow!.supplierAmount! * GBP_RATE).toBe(orderRow!.totalPrice);

    const paid = await client.POST('/partners/pay/', { body: { order_id: order.id, idempotency_key: `stay-${order.id}` } });
    expect(paid.response.status).toBe(200);
    expect(paid.data?.data).toMatchObject({ order_status: 'completed' });
    expect(minor(settled(paid)!.new_balance)).toBe(TOPUP * 100 - orderRow!.totalPrice);
    const made = bookingsMadeFrom(row.supplierHoldId!);
    expect(made).toHaveLength(1);
    expect(made[0]!.body).toMatchObject({
      guests: [{ given_name: 'Anna', family_name: 'Schmidt' }],
      email: contact.email,
      phone_number: contact.phone_number,
      metadata: { client_reference: expect.any(String), quote_id: row.supplierHoldId },
    });

    const data = await client.POST('/hotel/booking_data/', { body: { order_id: order.id } });
    expect(data.data?.data.order).toMatchObject({ id: order.id, status: 'completed' });
    expect(data.data?.data.booking).toMatchObject({ status: 'confirmed', confirmation_number: expect.stringMatching(/^bok_/) });
    expect(data.data?.data.order.supplier_ref).toBe(data.data?.data.booking.confirmation_number);

    const quote = await client.POST('/hotel/cancel_display/', { body: { order_id: order.id } });
    expect(quote.data?.data).toMatchObject({ penalty: '0.00', refund_amount: rate.total_price, currency: 'IRT' });
    const cancelled = await client.POST('/hotel/cancel/', { body: { order_id: order.id, quote_id: quote.data!.data.quote_id } });
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data?.data).toMatchObject({ status: 'cancelled', refund_amount: rate.total_price });
    expect(standIn.control.requests('POST /stays/bookings/:id/actions/cancel').filter((r) => r.status === 200)).toHaveLength(1);
    expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100);
  });

  it('books a prebooked quote once when the answer to its booking is lost', async () => {
    await setRate('GBP', GBP_RATE);
    const { client } = await newPartner();
    const { rate } = await londonRate(client);
    const pre = await client.POST('/hotel/prebook/', { body: { rate_key: rate.rate_key } });
    expect(pre.response.status).toBe(200);
    const id = pre.data!.data.booking_id;
    expect((await client.POST('/hotel/book/', { body: { booking_id: id, guests: [[guest]], contact } })).response.status).toBe(200);
    const ordered = await client.POST('/hotel/order/', { body: { booking_id: id } });
    expect(ordered.response.status).toBe(201);

    standIn.control.loseNextAnswer('POST /stays/bookings');
    const paid = await client.POST('/partners/pay/', { body: { order_id: ordered.data!.data.id, idempotency_key: `lost-${id}` } });
    expect(paid.response.status).toBe(200);
    expect(paid.data?.data).toMatchObject({ order_status: 'completed' });
    const row = await bookingOf(id);
    const made = bookingsMadeFrom(row.supplierHoldId!);
    expect(made).toHaveLength(1);
    expect(made[0]!.lostAnswer).toBe(true);
    const data = await client.POST('/hotel/booking_data/', { body: { booking_id: id } });
    expect(data.data?.data.booking?.confirmation_number).toMatch(/^bok_/);
  });

  it('answers a rate Duffel no longer sells as no longer available, and refuses to pay a lapsed quote', async () => {
    await setRate('GBP', GBP_RATE);
    const { client, api } = await newPartner();
    const { rate } = await londonRate(client);

    aheadMs = 31 * 60_000; // past the search's rates
    const gone = await client.POST('/hotel/check_rate/', { body: { rate_key: rate.rate_key } });
    expect(gone.response.status).toBe(400);
    expect(JSON.stringify(gone.error)).toMatch(/no longer available/);
    expect(JSON.stringify(gone.error)).not.toMatch(/Duffel/i);
    aheadMs = 0;

    const { rate: fresh } = await londonRate(client);
    const booked = await client.POST('/hotel/book/', { body: { rate_key: fresh.rate_key, guests: [[guest]], contact } });
    expect(booked.response.status).toBe(200);
    const ordered = await client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
    const row = await bookingOf(booked.data!.data.booking_id);
    standIn.control.expireStaysQuote(row.supplierHoldId!);
    const before = minor((await api.wallet()).balance);
    const paid = await client.POST('/partners/pay/', { body: { order_id: ordered.data!.data.id, idempotency_key: `lapsed-${row.id}` } });
    expect(paid.response.status).toBe(502);
    expect(JSON.stringify(paid.error)).toMatch(/no longer available/);
    expect(JSON.stringify(paid.error)).not.toMatch(/Duffel/i);
    expect(minor((await api.wallet()).balance)).toBe(before);
    expect(bookingsMadeFrom(row.supplierHoldId!)).toHaveLength(0);
  });

  it('cancels a booking once when the answer to its cancellation is lost', async () => {
    await setRate('GBP', GBP_RATE);
    const { client, api } = await newPartner();
    const { rate } = await londonRate(client);
    const booked = await client.POST('/hotel/book/', { body: { rate_key: rate.rate_key, guests: [[guest]], contact } });
    const ordered = await client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
    const orderId = ordered.data!.data.id;
    expect((await client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `c-${orderId}` } })).response.status).toBe(200);
    const ref = (await bookingOf(booked.data!.data.booking_id)).confirmationNumber!;
    const duffelBefore = standIn.control.balance();

    standIn.control.loseNextAnswer('POST /stays/bookings/:id/actions/cancel');
    const cancelled = await client.POST('/hotel/cancel/', { body: { order_id: orderId } });
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data?.data).toMatchObject({ status: 'cancelled', refund_amount: rate.total_price });
    expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100);
    const refunds = standIn.control.balanceMovements().filter((m) => m.reference === ref && Number(m.amount) > 0);
    expect(refunds).toHaveLength(1);
    expect(standIn.control.balance()).not.toEqual(duffelBefore);
  });

  it('refuses a contact the hotel cannot book with when the rate is held, not when it is paid', async () => {
    await setRate('GBP', GBP_RATE);
    const { client } = await newPartner();
    const { rate } = await londonRate(client);
    const booked = await client.POST('/hotel/book/', {
      body: { rate_key: rate.rate_key, guests: [[guest]], contact: { ...contact, phone_number: '0912 123 4567' } },
    });
    expect(booked.response.status).toBeGreaterThanOrEqual(400);
    expect(booked.response.status).toBeLessThan(500);
    expect(JSON.stringify(booked.error)).toMatch(/international/);
  });

  it('waits out a rate limit on search and tries rates again after a 5xx', async () => {
    await setRate('GBP', GBP_RATE);
    const { client } = await newPartner();
    const london = await cityId(client, 'london');
    standIn.control.failNext('POST /stays/search', { status: 429, resetSeconds: 1 });
    standIn.control.failNext('POST /stays/search_results/:id/actions/fetch_all_rates', { status: 503 });
    const res = await search(client, { city_id: london });
    expect(res.response.status).toBe(200);
    expect(res.data!.data.results.length).toBeGreaterThan(0);
    expect(standIn.control.requests('POST /stays/search').filter((r) => r.status === 429)).toHaveLength(1);
  });
});

describe('Interface B on Duffel Stays', () => {
  it('searches a city by name or code, with rooms in the partner’s board codes, at the rate', async () => {
    await setRate('GBP', GBP_RATE);
    const { creds } = await newPartner();
    const auth = { authorization: `Bearer ${creds.agency_key}` };
    const byName = await call(stack.app, 'GET', `/v1/hotels/search?city=London&check_in=${stay.check_in}&check_out=${stay.check_out}&guests=2`, auth);
    expect(byName.status).toBe(200);
    expect(byName.body.count).toBeGreaterThan(0);
    const hotel = byName.body.results[0];
    expect(hotel).toMatchObject({ hotel_id: expect.stringMatching(/^\d+$/), city: 'London' });
    for (const room of hotel.rooms) {
      expect(room.room_id).toMatch(/^R[0-9A-F]{8}-(RO|BB)-(FLEX|NRF)$/);
      expect(minor(room.total_price) % GBP_RATE).toBe(0);
    }
    const byCode = await call(stack.app, 'GET', `/v1/hotels/search?city=lon&check_in=${stay.check_in}&check_out=${stay.check_out}&guests=2`, auth);
    // The same hotels under the same ids, their rooms under the same codes.
    expect(byCode.body.results.map((h: { hotel_id: string }) => h.hotel_id)).toEqual(byName.body.results.map((h: { hotel_id: string }) => h.hotel_id));
    expect(byCode.body.results[0].rooms.map((r: { room_id: string }) => r.room_id)).toEqual(hotel.rooms.map((r: { room_id: string }) => r.room_id));

    // Booked and paid at creation: Duffel gets the guest's e-mail and the engine's contact phone (AGENCY_CONTACT_PHONE).
    const booking = await call(stack.app, 'POST', '/v1/hotels/bookings', auth, {
      hotel_id: hotel.hotel_id,
      room_id: hotel.rooms[0].room_id,
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: stay.check_in,
      check_out: stay.check_out,
    });
    expect(booking.status).toBe(201);
    expect(booking.body).toMatchObject({ status: 'active' });
    const made = standIn.control
      .requests('POST /stays/bookings')
      .filter((r) => r.status === 201)
      .at(-1);
    expect(made?.body).toMatchObject({ email: 'sara@example.com', phone_number: '+442071234567', guests: [{ given_name: 'Sara', family_name: 'Ahmadi' }] });
  });
});

describe('Interface B on Duffel Stays, the rate gone stale', () => {
  it('a booking whose hold is priced after the GBP rate went stale answers 409 naming it, and charges nothing', async () => {
    await setRate('GBP', GBP_RATE);
    const { creds, api } = await newPartner();
    const auth = { authorization: `Bearer ${creds.agency_key}` };
    const found = await call(stack.app, 'GET', `/v1/hotels/search?city=London&check_in=${stay.check_in}&check_out=${stay.check_out}`, auth);
    expect(found.status).toBe(200);
    const hotel = found.body.results[0];
    // Between the search and the booking, the latest GBP rate is one older than FX_RATE_MAX_AGE_HOURS (24).
    await setStoredRate(stack.db, {
      currency: 'GBP',
      walletCurrency: 'IRT',
      rate: String(GBP_RATE),
      operator: 'test',
      now: new Date(Date.now() - 48 * 3_600_000),
    });
    try {
      const booking = await call(stack.app, 'POST', '/v1/hotels/bookings', auth, {
        hotel_id: hotel.hotel_id,
        room_id: hotel.rooms[0].room_id,
        guest_name: 'Sara Ahmadi',
        guest_email: 'sara@example.com',
        check_in: stay.check_in,
        check_out: stay.check_out,
      });
      expect([booking.status, booking.body]).toEqual([409, { detail: expect.stringMatching(/^the GBP rate is 48 hours old/) }]);
      expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100);
      expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toEqual([]);
    } finally {
      await setRate('GBP', GBP_RATE);
    }
  });
});

describe('the registry of place ids', () => {
  it('gives a place one id for good, whichever process asks, and keeps its latest information', async () => {
    const one = placeIds(stack.db, 'registry-test');
    const other = placeIds(stack.db, 'registry-test');
    const id = await one.idOf('hotel', 'acc_1', { name: 'Old name', country: 'GB' });
    expect(await other.idOf('hotel', 'acc_1', { name: 'New name', country: 'GB' })).toBe(id);
    expect(await placeIds(stack.db, 'registry-test').lookup('hotel', id)).toMatchObject({ externalId: 'acc_1', info: { name: 'New name' } });
    // Kinds and suppliers are apart.
    expect(await other.lookup('city', id)).toBeNull();
    expect(await placeIds(stack.db, 'another').find('hotel', 'acc_1')).toBeNull();
    const [a, b] = await one.idsOf('city', [
      { externalId: 'LON', info: { name: 'London', country: 'GB' } },
      { externalId: 'PAR', info: { name: 'Paris', country: 'FR' } },
    ]);
    expect(a).not.toBe(b);
    expect(await other.idOf('city', 'PAR', { name: 'Paris', country: 'FR' })).toBe(b);

    // A place seen again as it is costs no write, whatever the order of its information.
    const seenAt = async () => (await stack.db.select().from(supplierPlaces).where(eq(supplierPlaces.id, b!)))[0]!.seenAt.getTime();
    const before = await seenAt();
    await new Promise((r) => setTimeout(r, 20));
    expect(await other.idOf('city', 'PAR', { country: 'FR', name: 'Paris' })).toBe(b);
    expect(await seenAt()).toBe(before);
    await other.idOf('city', 'PAR', { country: 'FR', name: 'Paris', code: 'PAR' });
    expect(await seenAt()).toBeGreaterThan(before);
  });
});

describe('configuration', () => {
  it('refuses HOTEL_SUPPLIER=duffel without a token, naming the setting', () => {
    expect(() => loadConfig({ HOTEL_SUPPLIER: 'duffel' })).toThrow(/DUFFEL_ACCESS_TOKEN/);
    expect(loadConfig({ HOTEL_SUPPLIER: 'duffel', DUFFEL_ACCESS_TOKEN: 'duffel_test_x' }).HOTEL_SUPPLIER).toBe('duffel');
  });
});
