import { and, eq } from 'drizzle-orm';
import { flightBookings, ledgerEntries, orders } from '../../src/db/schema';
import { toCommand } from '../../src/cli/admin';
import type { PartnerClient } from '../../src/client';
import type { components } from '../../src/client/partner-api';
import { adminClient, newPartner as partnerWithWallet, settled, type partnerClient } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilOrderStatus } from '../support/order-status';
import { startStack, type TestStack, useStack } from '../support/stack';
import { contact, day } from '../support/fixtures';

/** Flights on Interface A (spec §4.4): search → revalidate → rules → baggage → book → pay (ticketing) → tickets → refunds. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type RawApi = ReturnType<typeof partnerClient>;
type SearchRequest = components['schemas']['FlightSearchRequest'];
type Traveller = components['schemas']['FlightBookingRequest']['traveler_info']['air_travelers'][number];
const TOPUP = 500_000_000;
const newPartner = () => partnerWithWallet(stack, '0', String(TOPUP));
/** Decimal strings to minor units, to compare money without floats. */
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);

const DEPARTURE = day(30);
const yearsBefore = (years: number, date = DEPARTURE) => `${Number(date.slice(0, 4)) - years}${date.slice(4)}`;

const adult: Traveller = {
  first_name: 'Reza',
  last_name: 'Karimi',
  birth_date: '1985-04-12',
  gender: 'male',
  passenger_type: 'ADT',
  nationality: 'IR',
  national_id: '0012345679',
};
const child: Traveller = {
  first_name: 'Mia',
  last_name: 'Weber',
  birth_date: yearsBefore(7),
  gender: 'female',
  passenger_type: 'CHD',
  nationality: 'DE',
  passport_number: 'C01X00T47',
  passport_expiry_date: day(1000),
};
const infant: Traveller = { ...adult, first_name: 'Ali', birth_date: yearsBefore(1), passenger_type: 'INF', national_id: '0012345679' };

const searchBody = (over: Partial<SearchRequest> = {}): SearchRequest => ({
  origin: 'THR',
  destination: 'MHD',
  departure_date_time: `${DEPARTURE}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy',
  air_trip_type: 'one_way',
  ...over,
});

async function offer(client: PartnerClient, family: string, over: Partial<SearchRequest> = {}) {
  const res = await client.POST('/flights/search_flights/', { body: searchBody(over) });
  expect(res.response.status).toBe(200);
  const found = res.data?.data.results.find((o) => o.fare_family === family);
  if (!found) throw new Error(`no ${family} offer in ${JSON.stringify(res.data ?? res.error).slice(0, 300)}`);
  return found;
}

async function book(client: PartnerClient, fare_source_code: string, travelers: Traveller[] = [adult]) {
  return client.POST('/flights/air_booking/', { body: { fare_source_code, traveler_info: { contact, air_travelers: travelers } } });
}

/** A booking with travellers the contract may refuse: sent raw. */
async function bookRaw(raw: RawApi, fare_source_code: string, travelers: unknown[]) {
  return raw.post('/api/flights/air_booking/', { fare_source_code, traveler_info: { contact, air_travelers: travelers } });
}

const refundsOf = (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'refund')));
const orderStatus = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!.status;

describe('search', () => {
  it('answers priced offers, cheapest first, with legs, segments and a breakdown per passenger type', async () => {
    const { client } = await newPartner();
    const res = await client.POST('/flights/search_flights/', { body: searchBody({ adult_count: 2, child_count: 1, infant_count: 1 }) });
    expect(res.response.status).toBe(200);
    const prices = res.data!.data.results.map((o) => Number(o.total_price));
    expect(prices.length).toBeGreaterThan(2);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    const first = res.data!.data.results[0]!;
    expect(first.legs[0]!.segments[0]).toMatchObject({
      flight_number: expect.any(String),
      airline: expect.any(String),
      origin: 'THR',
      destination: 'MHD',
      cabin: 'economy',
    });
    expect(first.price_breakdown.map((p) => [p.passenger_type, p.count])).toEqual([
      ['ADT', 2],
      ['CHD', 1],
      ['INF', 1],
    ]);
    const total = first.price_breakdown.reduce((sum, p) => sum + p.count * (Number(p.base) + Number(p.tax)), 0);
    expect(total).toBeCloseTo(Number(first.total_price), 2);
  });

  it('gives a round trip two legs and caps the list with limit', async () => {
    const { client } = await newPartner();
    const res = await client.POST('/flights/search_flights/', {
      body: searchBody({ air_trip_type: 'round_trip', return_date_time: `${day(35)}T00:00:00Z`, limit: 3 }),
    });
    expect(res.response.status).toBe(200);
    expect(res.data?.data.results).toHaveLength(3);
    expect(res.data?.data.count).toBeGreaterThanOrEqual(3);
    expect(res.data?.data.results[0]?.legs).toHaveLength(2);
    expect(res.data?.data.results[0]?.legs[1]?.segments[0]?.origin).toBe('MHD');
  });

  it.each([
    [{ origin: 'XXX' }, /^origin: unknown airport XXX/],
    [{ origin: 'thr' }, /^origin: /],
    [{ destination: 'IKA' }, /^destination: must be another city/],
    [{ departure_date_time: `${day(-2)}T10:00:00Z` }, /^departure_date_time: must be from today \(UTC\)/],
    [{ air_trip_type: 'round_trip' }, /^return_date_time: is required for a round_trip/],
    [{ air_trip_type: 'round_trip', return_date_time: `${day(20)}T00:00:00Z` }, /^return_date_time: must be after/],
    [{ return_date_time: `${day(35)}T00:00:00Z` }, /^return_date_time: is only for a round_trip/],
    [{ adult_count: 9, child_count: 1 }, /^adult_count: adults and children together take 1 to 9 seats/],
    [{ adult_count: 1, infant_count: 2 }, /^infant_count: at most one infant per adult/],
    [{ cabin_type: 'luxury' }, /^cabin_type: must be one of economy, premium_economy, business, first/],
    [{ air_trip_type: 'multi_city' }, /^air_trip_type: /],
  ])('refuses %j with 400 naming the field', async (over, message) => {
    // Raw: input the contract refuses, sent as is.
    const { api: raw } = await newPartner();
    const res = await raw.post('/api/flights/search_flights/', { ...searchBody(), ...over });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringMatching(message) });
  });
});

describe('the whole chain', () => {
  it('revalidates, reads rules and baggage, books, pays (tickets), reads tickets, quotes and refunds online', async () => {
    const { api, client } = await newPartner();
    const fare = await offer(client, 'Standard', { child_count: 1 });

    const revalidated = await client.POST('/flights/revalidate_flight/', { body: { fare_source_code: fare.fare_source_code } });
    expect(revalidated.data?.data).toMatchObject({ is_valid: true, price_changed: false, total_price: fare.total_price });
    const rules = await client.POST('/flights/air_rules/', { body: { fare_source_code: fare.fare_source_code } });
    expect(rules.data?.data).toMatchObject({ fare_family: 'Standard', refundable: true, refund_penalty: expect.any(String) });
    const bags = await client.POST('/flights/air_baggages/', { body: { fare_source_code: fare.fare_source_code } });
    expect(bags.data?.data.baggage.map((b) => b.passenger_type).sort()).toEqual(['ADT', 'CHD']);

    const booked = await book(client, fare.fare_source_code, [adult, child]);
    expect(booked.response.status).toBe(201);
    expect(booked.data?.data).toMatchObject({
      service: 'flight',
      status: 'pending',
      total_price: fare.total_price,
      pnr: expect.stringMatching(/^[A-Z0-9]{6}$/),
    });
    expect(Date.parse(booked.data!.data.ticket_time_limit)).toBeGreaterThan(Date.now());
    const orderId = booked.data!.data.id;

    const early = await client.POST('/flights/air_order_ticket/', { body: { order_id: orderId } });
    expect(early.response.status).toBe(400);
    expect(early.error?.error).toMatch(/not paid yet/);

    const paid = await client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `fly-${orderId}` } });
    expect(paid.response.status).toBe(200);
    const price = Number(fare.total_price);
    expect(paid.data?.data).toMatchObject({ order_status: 'completed', amount: price });
    expect(minor(settled(paid)!.new_balance)).toBe(TOPUP * 100 - minor(price));

    const tickets = await client.POST('/flights/air_order_ticket/', { body: { order_id: orderId } });
    expect(tickets.response.status).toBe(200);
    expect(tickets.data?.data).toMatchObject({ status: 'completed', ticketing: 'issued', pnr: booked.data?.data.pnr });
    expect(tickets.data?.data.tickets.map((t) => t.ticket_number)).toEqual([expect.stringMatching(/^\d{13}$/), expect.stringMatching(/^\d{13}$/)]);

    const data = await client.POST('/flights/air_booking_data/', { body: { order_id: orderId } });
    expect(data.data?.data.order).toMatchObject({ id: orderId, status: 'completed', supplier_ref: booked.data?.data.pnr });
    expect(data.data?.data.booking).toMatchObject({ pnr: booked.data?.data.pnr, status: 'ticketed', fare_family: 'Standard' });
    expect(data.data?.data.booking?.passengers.map((p) => [p.last_name, p.ticket_number])).toEqual(
      tickets.data!.data.tickets.map((t) => [t.last_name, t.ticket_number]),
    );

    const quote = await client.POST('/flights/air_refund_display/', { body: { order_id: orderId } });
    expect(quote.response.status).toBe(200);
    const penalty = Number(quote.data!.data.penalty);
    expect(penalty).toBeGreaterThan(0);
    expect(Number(quote.data?.data.refundable_amount)).toBeCloseTo(price - penalty, 2);
    expect(quote.data?.data.penalty).toBe(rules.data?.data.refund_penalty);

    const refunded = await client.POST('/flights/air_refund/', { body: { order_id: orderId, quote_id: quote.data!.data.quote_id } });
    expect(refunded.response.status).toBe(200);
    expect(refunded.data?.data).toMatchObject({ status: 'refunded', refund_amount: quote.data?.data.refundable_amount, ledger_id: expect.any(Number) });
    const wallet = await api.wallet();
    expect(minor(wallet.balance)).toBe(TOPUP * 100 - minor(penalty));
    expect((await client.GET('/partners/ledger/')).data?.data.results[0]).toMatchObject({
      type: 'refund',
      amount: quote.data!.data.refundable_amount,
      order: orderId,
    });
    expect(await orderStatus(orderId)).toBe('refunded');

    const again = await client.POST('/flights/air_refund/', { body: { order_id: orderId } });
    expect(again.response.status).toBe(400);
    expect(again.error?.error).toMatch(/already refunded/);
    expect(await refundsOf(orderId)).toHaveLength(1);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'refund.completed']);

    const partnerId = (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.partnerId;
    await recordHistory(stack, `pay:p${partnerId}:key:fly-${orderId}`, 'flight-pay-ticketing');
    await recordHistory(stack, `refund:p${partnerId}:order:${orderId}`, 'flight-refund');
    await recordHistory(stack, `flight-book:b${booked.data!.data.booking_id}`, 'flight-book');
  });

  it('gives back only the taxes of a Saver fare', async () => {
    const { client } = await newPartner();
    const fare = await offer(client, 'Saver');
    const booked = await book(client, fare.fare_source_code);
    expect((await client.POST('/partners/pay/', { body: { order_id: booked.data!.data.id } })).response.status).toBe(200);
    const quote = await client.POST('/flights/air_refund_display/', { body: { order_id: booked.data!.data.id } });
    const taxes = fare.price_breakdown.reduce((sum, p) => sum + p.count * Number(p.tax), 0);
    expect(Number(quote.data?.data.refundable_amount)).toBeCloseTo(taxes, 2);
  });

  it('moves the price on revalidate with price_changed and books at the new price', async () => {
    const { client } = await newPartner();
    const fare = await offer(client, 'Standard');
    const res = await client.POST('/flights/revalidate_flight/', {
      params: { header: { 'x-sandbox-scenario': 'price_changed' } },
      body: { fare_source_code: fare.fare_source_code },
    });
    expect(res.data?.data).toMatchObject({ is_valid: true, price_changed: true, previous_price: fare.total_price });
    expect(Number(res.data?.data.total_price)).toBeGreaterThan(Number(fare.total_price));
    const booked = await book(client, res.data!.data.fare_source_code);
    expect(booked.data?.data.total_price).toBe(res.data?.data.total_price);
  });
});

describe('travellers', () => {
  const past = (years: number) => yearsBefore(years);
  it.each([
    [[adult, adult], /^traveler_info\.air_travelers: the fare was priced for 1 ADT, 0 CHD, 0 INF; got 2 ADT/],
    [[{ ...adult, birth_date: past(10) }], /^traveler_info\.air_travelers\.0\.passenger_type: a traveller aged 10 .* travels as CHD, not ADT/],
    [[{ ...adult, national_id: undefined }], /^traveler_info\.air_travelers\.0\.national_id: is required/],
    [[{ ...adult, national_id: '0012345678' }], /^traveler_info\.air_travelers\.0\.national_id: is not a valid/],
    [
      [{ ...child, passenger_type: 'ADT', birth_date: '1990-01-01', passport_expiry_date: day(60) }],
      /^traveler_info\.air_travelers\.0\.passport_expiry_date: the passport must be valid at least 6 months/,
    ],
    [
      [{ ...child, passenger_type: 'ADT', birth_date: '1990-01-01', passport_number: undefined }],
      /^traveler_info\.air_travelers\.0\.passport_number: is required/,
    ],
    [[{ ...adult, gender: 'x' }], /^traveler_info\.air_travelers\.0\.gender: /],
    [[{ ...adult, birth_date: '1985-13-40' }], /^traveler_info\.air_travelers\.0\.birth_date: /],
  ])('refuses %j with 400 and books nothing', async (travelers, message) => {
    const { api: raw, client } = await newPartner();
    const fare = await offer(client, 'Standard');
    const res = await bookRaw(raw, fare.fare_source_code, travelers);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await stack.db.select().from(flightBookings).where(eq(flightBookings.fareSourceCode, fare.fare_source_code))).toHaveLength(0);
  });

  it('books an infant on an adult’s lap', async () => {
    const { client } = await newPartner();
    const fare = await offer(client, 'Standard', { infant_count: 1 });
    expect((await book(client, fare.fare_source_code, [adult, infant])).response.status).toBe(201);
  });
});

describe('failures and operators', () => {
  it('reverses the debit when the airline rejects ticketing; the order stays payable', async () => {
    const { api, client } = await newPartner();
    const booked = await book(client, (await offer(client, 'Standard')).fare_source_code);
    const res = await client.POST('/partners/pay/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_reject' } },
      body: { order_id: booked.data!.data.id },
    });
    expect(res.response.status).toBe(502);
    expect(res.error?.error).toMatch(/reversed/);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
    expect(await orderStatus(booked.data!.data.id)).toBe('pending');
    expect((await client.POST('/partners/pay/', { body: { order_id: booked.data!.data.id } })).response.status).toBe(200);
    expect(await eventTypesOf(api, booked.data!.data.id)).toEqual(['order.processing', 'order.payment_reversed', 'order.processing', 'order.completed']);
  });

  it('keeps ticket and money when the airline refuses the refund (502)', async () => {
    const { api, client } = await newPartner();
    const booked = await book(client, (await offer(client, 'Flex')).fare_source_code);
    await client.POST('/partners/pay/', { body: { order_id: booked.data!.data.id } });
    const before = await api.wallet();
    const res = await client.POST('/flights/air_refund/', {
      params: { header: { 'x-sandbox-scenario': 'refund_reject' } },
      body: { order_id: booked.data!.data.id },
    });
    expect(res.response.status).toBe(502);
    expect(res.error?.error).toMatch(/refused the refund/);
    expect(await api.wallet()).toEqual(before);
    expect(await orderStatus(booked.data!.data.id)).toBe('completed');
    expect(await refundsOf(booked.data!.data.id)).toHaveLength(0);
    expect(await eventTypesOf(api, booked.data!.data.id)).toEqual(['order.processing', 'order.completed']);
  });

  it('lets an operator settle an offline refund, or turn it down', async () => {
    const { api, client } = await newPartner();
    const admin = adminClient(stack);
    const first = await book(client, (await offer(client, 'Saver')).fare_source_code);
    const second = await book(client, (await offer(client, 'Saver', { destination: 'SYZ' })).fare_source_code);
    for (const b of [first, second]) expect((await client.POST('/partners/pay/', { body: { order_id: b.data!.data.id } })).response.status).toBe(200);
    const paid = await api.wallet();

    const asked = await client.POST('/flights/air_refund_offline/', { body: { order_id: first.data!.data.id, reason: 'flight cancelled by the airline' } });
    expect(asked.data?.data).toMatchObject({ order_id: first.data!.data.id, status: 'refund_requested' });
    expect(await orderStatus(first.data!.data.id)).toBe('refund_requested');
    expect((await admin.post(`/admin/orders/${first.data!.data.id}/refund`, { amount: '99999999999' })).status).toBe(400);
    const settled = await admin.post(`/admin/orders/${first.data!.data.id}/refund`, { amount: '1000000' });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: 'refunded', refund_amount: '1000000.00', ledger_id: expect.any(Number) });
    expect(minor((await api.wallet()).balance)).toBe(minor(paid.balance) + 100_000_000);
    expect(await orderStatus(first.data!.data.id)).toBe('refunded');
    await recordHistory(stack, `refund-offline:order:${first.data!.data.id}`, 'flight-refund-offline');
    expect((await admin.post(`/admin/orders/${first.data!.data.id}/refund`, { amount: '1' })).status).toBe(400);

    await client.POST('/flights/air_refund_offline/', { body: { order_id: second.data!.data.id, reason: 'changed plans' } });
    const rejected = await admin.post(`/admin/orders/${second.data!.data.id}/refund-reject`, { reason: 'no-show rules apply' });
    expect(rejected.body).toMatchObject({ status: 'completed', refund_amount: '0.00' });
    expect(await orderStatus(second.data!.data.id)).toBe('completed');
    expect(await refundsOf(second.data!.data.id)).toHaveLength(0);
    expect(await eventTypesOf(api, first.data!.data.id)).toEqual(['order.processing', 'order.completed', 'refund.requested', 'refund.completed']);
    expect(await eventTypesOf(api, second.data!.data.id)).toEqual(['order.processing', 'order.completed', 'refund.requested', 'refund.rejected']);
    expect(toCommand(['order', 'refund', '--order', '7', '--amount', '500000']).command).toEqual({
      method: 'POST',
      path: '/admin/orders/7/refund',
      body: { amount: '500000', reason: undefined },
    });
    expect(() => toCommand(['order', 'refund-reject'])).toThrow(/--order is required/);
  });

  it('hides another partner’s flight orders (404)', async () => {
    const { client: owner } = await newPartner();
    const { client: other } = await newPartner();
    const booked = await book(owner, (await offer(owner, 'Standard')).fare_source_code);
    for (const path of ['/flights/air_booking_data/', '/flights/air_order_ticket/', '/flights/air_refund_display/', '/flights/air_refund/'] as const) {
      const res = await other.POST(path, { body: { order_id: booked.data!.data.id } });
      expect({ path, status: res.response.status }).toEqual({ path, status: 404 });
    }
    expect((await other.POST('/flights/air_refund_offline/', { body: { order_id: booked.data!.data.id, reason: 'not mine' } })).response.status).toBe(404);
  });
});

describe('ticket time limit', () => {
  // A stack of its own, whose airline gives 2 s to ticket. Started in a hook: starting a stack
  // takes a large part of a test's timeout on a loaded machine, and the test's own deadline
  // is for the expiry it waits for.
  let short: TestStack;
  beforeAll(async () => {
    short = await startStack({ ticketTimeLimitMs: 2000 });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('expires an unpaid booking at its time limit: the order becomes expired, the PNR is cancelled, paying is 400', async () => {
    const { api, client } = await partnerWithWallet(short, '0', '500000000');
    const fare = await offer(client, 'Standard');
    const booked = await book(client, fare.fare_source_code);
    expect(booked.response.status).toBe(201);
    const orderId = booked.data!.data.id;
    await untilOrderStatus(short.db, orderId, 'expired');
    const pnr = booked.data!.data.pnr;
    const atAirline = (await (await fetch(`${short.simulatorUrl}/air/bookings/${pnr}`)).json()) as { status: string };
    expect(['cancelled', 'expired']).toContain(atAirline.status);
    expect((await client.POST('/flights/air_booking_data/', { body: { order_id: orderId } })).data?.data.booking?.status).toBe('expired');
    const pay = await client.POST('/partners/pay/', { body: { order_id: orderId } });
    expect(pay.response.status).toBe(400);
    expect(pay.error?.error).toMatch(/expired/);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.expired']);
    await recordHistory(short, `flight-time-limit:b${booked.data!.data.booking_id}`, 'flight-time-limit');
  });
});
