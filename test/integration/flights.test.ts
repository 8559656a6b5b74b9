import { and, eq } from 'drizzle-orm';
import { flightBookings, ledgerEntries, orders } from '../../src/db/schema';
import { toCommand } from '../../src/cli/admin';
import { adminClient, newPartner as partnerWithWallet, type partnerClient } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilOrderStatus } from '../support/order-status';
import { startStack, type TestStack, useStack } from '../support/stack';
import { contact, day } from '../support/fixtures';

/** Flights on Interface A (spec §4.4): search → revalidate → rules → baggage → book → pay (ticketing) → tickets → refunds. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type Api = ReturnType<typeof partnerClient>;
const TOPUP = 500_000_000;
const newPartner = () => partnerWithWallet(stack, '0', String(TOPUP));
/** Decimal strings to minor units, to compare money without floats. */
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);

const DEPARTURE = day(30);
const yearsBefore = (years: number, date = DEPARTURE) => `${Number(date.slice(0, 4)) - years}${date.slice(4)}`;

const adult = {
  first_name: 'Reza',
  last_name: 'Karimi',
  birth_date: '1985-04-12',
  gender: 'male',
  passenger_type: 'ADT',
  nationality: 'IR',
  national_id: '0012345679',
};
const child = {
  first_name: 'Mia',
  last_name: 'Weber',
  birth_date: yearsBefore(7),
  gender: 'female',
  passenger_type: 'CHD',
  nationality: 'DE',
  passport_number: 'C01X00T47',
  passport_expiry_date: day(1000),
};
const infant = { ...adult, first_name: 'Ali', birth_date: yearsBefore(1), passenger_type: 'INF', national_id: '0012345679' };

const searchBody = (over: Record<string, unknown> = {}) => ({
  origin: 'THR',
  destination: 'MHD',
  departure_date_time: `${DEPARTURE}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy',
  air_trip_type: 'one_way',
  ...over,
});

async function offer(api: Api, family: string, over: Record<string, unknown> = {}) {
  const res = await api.post('/api/flights/search_flights/', searchBody(over));
  expect(res.status).toBe(200);
  const found = res.body.data.results.find((o: { fare_family: string }) => o.fare_family === family);
  if (!found) throw new Error(`no ${family} offer in ${JSON.stringify(res.body).slice(0, 300)}`);
  return found;
}

async function book(api: Api, fare_source_code: string, travelers: unknown[] = [adult]) {
  return api.post('/api/flights/air_booking/', { fare_source_code, traveler_info: { contact, air_travelers: travelers } });
}

const refundsOf = (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'refund')));
const orderStatus = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!.status;

describe('search', () => {
  it('answers priced offers, cheapest first, with legs, segments and a breakdown per passenger type', async () => {
    const { api } = await newPartner();
    const res = await api.post('/api/flights/search_flights/', searchBody({ adult_count: 2, child_count: 1, infant_count: 1 }));
    expect(res.status).toBe(200);
    const prices = res.body.data.results.map((o: { total_price: string }) => Number(o.total_price));
    expect(prices.length).toBeGreaterThan(2);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    const first = res.body.data.results[0];
    expect(first.legs[0].segments[0]).toMatchObject({
      flight_number: expect.any(String),
      airline: expect.any(String),
      origin: 'THR',
      destination: 'MHD',
      cabin: 'economy',
    });
    expect(first.price_breakdown.map((p: { passenger_type: string; count: number }) => [p.passenger_type, p.count])).toEqual([
      ['ADT', 2],
      ['CHD', 1],
      ['INF', 1],
    ]);
    const total = first.price_breakdown.reduce(
      (sum: number, p: { count: number; base: string; tax: string }) => sum + p.count * (Number(p.base) + Number(p.tax)),
      0,
    );
    expect(total).toBeCloseTo(Number(first.total_price), 2);
  });

  it('gives a round trip two legs and caps the list with limit', async () => {
    const { api } = await newPartner();
    const res = await api.post('/api/flights/search_flights/', searchBody({ air_trip_type: 'round_trip', return_date_time: `${day(35)}T00:00:00Z`, limit: 3 }));
    expect(res.status).toBe(200);
    expect(res.body.data.results).toHaveLength(3);
    expect(res.body.data.count).toBeGreaterThanOrEqual(3);
    expect(res.body.data.results[0].legs).toHaveLength(2);
    expect(res.body.data.results[0].legs[1].segments[0].origin).toBe('MHD');
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
    const { api } = await newPartner();
    const res = await api.post('/api/flights/search_flights/', searchBody(over));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringMatching(message) });
  });
});

describe('the whole chain', () => {
  it('revalidates, reads rules and baggage, books, pays (tickets), reads tickets, quotes and refunds online', async () => {
    const { api } = await newPartner();
    const fare = await offer(api, 'Standard', { child_count: 1 });

    const revalidated = await api.post('/api/flights/revalidate_flight/', { fare_source_code: fare.fare_source_code });
    expect(revalidated.body.data).toMatchObject({ is_valid: true, price_changed: false, total_price: fare.total_price });
    const rules = await api.post('/api/flights/air_rules/', { fare_source_code: fare.fare_source_code });
    expect(rules.body.data).toMatchObject({ fare_family: 'Standard', refundable: true, refund_penalty: expect.any(String) });
    const bags = await api.post('/api/flights/air_baggages/', { fare_source_code: fare.fare_source_code });
    expect(bags.body.data.baggage.map((b: { passenger_type: string }) => b.passenger_type).sort()).toEqual(['ADT', 'CHD']);

    const booked = await book(api, fare.fare_source_code, [adult, child]);
    expect(booked.status).toBe(201);
    expect(booked.body.data).toMatchObject({
      service: 'flight',
      status: 'pending',
      total_price: fare.total_price,
      pnr: expect.stringMatching(/^[A-Z0-9]{6}$/),
    });
    expect(Date.parse(booked.body.data.ticket_time_limit)).toBeGreaterThan(Date.now());
    const orderId = booked.body.data.id;

    const early = await api.post('/api/flights/air_order_ticket/', { order_id: orderId });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/not paid yet/);

    const paid = await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: `fly-${orderId}` });
    expect(paid.status).toBe(200);
    const price = Number(fare.total_price);
    expect(paid.body.data).toMatchObject({ order_status: 'completed', amount: price });
    expect(minor(paid.body.data.new_balance)).toBe(TOPUP * 100 - minor(price));

    const tickets = await api.post('/api/flights/air_order_ticket/', { order_id: orderId });
    expect(tickets.status).toBe(200);
    expect(tickets.body.data).toMatchObject({ status: 'completed', ticketing: 'issued', pnr: booked.body.data.pnr });
    expect(tickets.body.data.tickets.map((t: { ticket_number: string }) => t.ticket_number)).toEqual([
      expect.stringMatching(/^\d{13}$/),
      expect.stringMatching(/^\d{13}$/),
    ]);

    const data = await api.post('/api/flights/air_booking_data/', { order_id: orderId });
    expect(data.body.data.order).toMatchObject({ id: orderId, status: 'completed', supplier_ref: booked.body.data.pnr });
    expect(data.body.data.booking).toMatchObject({ pnr: booked.body.data.pnr, status: 'ticketed', fare_family: 'Standard' });
    expect(data.body.data.booking.passengers.map((p: { last_name: string; ticket_number: string }) => [p.last_name, p.ticket_number])).toEqual(
      tickets.body.data.tickets.map((t: { last_name: string; ticket_number: string }) => [t.last_name, t.ticket_number]),
    );

    const quote = await api.post('/api/flights/air_refund_display/', { order_id: orderId });
    expect(quote.status).toBe(200);
    const penalty = Number(quote.body.data.penalty);
    expect(penalty).toBeGreaterThan(0);
    expect(Number(quote.body.data.refundable_amount)).toBeCloseTo(price - penalty, 2);
    expect(quote.body.data.penalty).toBe(rules.body.data.refund_penalty);

    const refunded = await api.post('/api/flights/air_refund/', { order_id: orderId, quote_id: quote.body.data.quote_id });
    expect(refunded.status).toBe(200);
    expect(refunded.body.data).toMatchObject({ status: 'refunded', refund_amount: quote.body.data.refundable_amount, ledger_id: expect.any(Number) });
    const wallet = await api.wallet();
    expect(minor(wallet.balance)).toBe(TOPUP * 100 - minor(penalty));
    expect((await api.get('/api/partners/ledger/')).body.data.results[0]).toMatchObject({
      type: 'refund',
      amount: quote.body.data.refundable_amount,
      order: orderId,
    });
    expect(await orderStatus(orderId)).toBe('refunded');

    const again = await api.post('/api/flights/air_refund/', { order_id: orderId });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/already refunded/);
    expect(await refundsOf(orderId)).toHaveLength(1);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'refund.completed']);

    const partnerId = (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.partnerId;
    await recordHistory(stack, `pay:p${partnerId}:key:fly-${orderId}`, 'flight-pay-ticketing');
    await recordHistory(stack, `refund:p${partnerId}:order:${orderId}`, 'flight-refund');
    await recordHistory(stack, `flight-book:b${booked.body.data.booking_id}`, 'flight-book');
  });

  it('gives back only the taxes of a Saver fare', async () => {
    const { api } = await newPartner();
    const fare = await offer(api, 'Saver');
    const booked = await book(api, fare.fare_source_code);
    expect((await api.post('/api/partners/pay/', { order_id: booked.body.data.id })).status).toBe(200);
    const quote = await api.post('/api/flights/air_refund_display/', { order_id: booked.body.data.id });
    const taxes = fare.price_breakdown.reduce((sum: number, p: { count: number; tax: string }) => sum + p.count * Number(p.tax), 0);
    expect(Number(quote.body.data.refundable_amount)).toBeCloseTo(taxes, 2);
  });

  it('moves the price on revalidate with price_changed and books at the new price', async () => {
    const { api } = await newPartner();
    const fare = await offer(api, 'Standard');
    const res = await api.post('/api/flights/revalidate_flight/', { fare_source_code: fare.fare_source_code }, { 'X-Sandbox-Scenario': 'price_changed' });
    expect(res.body.data).toMatchObject({ is_valid: true, price_changed: true, previous_price: fare.total_price });
    expect(Number(res.body.data.total_price)).toBeGreaterThan(Number(fare.total_price));
    const booked = await book(api, res.body.data.fare_source_code);
    expect(booked.body.data.total_price).toBe(res.body.data.total_price);
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
    const { api } = await newPartner();
    const fare = await offer(api, 'Standard');
    const res = await book(api, fare.fare_source_code, travelers);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await stack.db.select().from(flightBookings).where(eq(flightBookings.fareSourceCode, fare.fare_source_code))).toHaveLength(0);
  });

  it('books an infant on an adult’s lap', async () => {
    const { api } = await newPartner();
    const fare = await offer(api, 'Standard', { infant_count: 1 });
    expect((await book(api, fare.fare_source_code, [adult, infant])).status).toBe(201);
  });
});

describe('failures and operators', () => {
  it('reverses the debit when the airline rejects ticketing; the order stays payable', async () => {
    const { api } = await newPartner();
    const booked = await book(api, (await offer(api, 'Standard')).fare_source_code);
    const res = await api.post('/api/partners/pay/', { order_id: booked.body.data.id }, { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/reversed/);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
    expect(await orderStatus(booked.body.data.id)).toBe('pending');
    expect((await api.post('/api/partners/pay/', { order_id: booked.body.data.id })).status).toBe(200);
    expect(await eventTypesOf(api, booked.body.data.id)).toEqual(['order.processing', 'order.payment_reversed', 'order.processing', 'order.completed']);
  });

  it('keeps ticket and money when the airline refuses the refund (502)', async () => {
    const { api } = await newPartner();
    const booked = await book(api, (await offer(api, 'Flex')).fare_source_code);
    await api.post('/api/partners/pay/', { order_id: booked.body.data.id });
    const before = await api.wallet();
    const res = await api.post('/api/flights/air_refund/', { order_id: booked.body.data.id }, { 'X-Sandbox-Scenario': 'refund_reject' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/refused the refund/);
    expect(await api.wallet()).toEqual(before);
    expect(await orderStatus(booked.body.data.id)).toBe('completed');
    expect(await refundsOf(booked.body.data.id)).toHaveLength(0);
    expect(await eventTypesOf(api, booked.body.data.id)).toEqual(['order.processing', 'order.completed']);
  });

  it('lets an operator settle an offline refund, or turn it down', async () => {
    const { api } = await newPartner();
    const admin = adminClient(stack);
    const first = await book(api, (await offer(api, 'Saver')).fare_source_code);
    const second = await book(api, (await offer(api, 'Saver', { destination: 'SYZ' })).fare_source_code);
    for (const b of [first, second]) expect((await api.post('/api/partners/pay/', { order_id: b.body.data.id })).status).toBe(200);
    const paid = await api.wallet();

    const asked = await api.post('/api/flights/air_refund_offline/', { order_id: first.body.data.id, reason: 'flight cancelled by the airline' });
    expect(asked.body.data).toMatchObject({ order_id: first.body.data.id, status: 'refund_requested' });
    expect(await orderStatus(first.body.data.id)).toBe('refund_requested');
    expect((await admin.post(`/admin/orders/${first.body.data.id}/refund`, { amount: '99999999999' })).status).toBe(400);
    const settled = await admin.post(`/admin/orders/${first.body.data.id}/refund`, { amount: '1000000' });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: 'refunded', refund_amount: '1000000.00', ledger_id: expect.any(Number) });
    expect(minor((await api.wallet()).balance)).toBe(minor(paid.balance) + 100_000_000);
    expect(await orderStatus(first.body.data.id)).toBe('refunded');
    await recordHistory(stack, `refund-offline:order:${first.body.data.id}`, 'flight-refund-offline');
    expect((await admin.post(`/admin/orders/${first.body.data.id}/refund`, { amount: '1' })).status).toBe(400);

    await api.post('/api/flights/air_refund_offline/', { order_id: second.body.data.id, reason: 'changed plans' });
    const rejected = await admin.post(`/admin/orders/${second.body.data.id}/refund-reject`, { reason: 'no-show rules apply' });
    expect(rejected.body).toMatchObject({ status: 'completed', refund_amount: '0.00' });
    expect(await orderStatus(second.body.data.id)).toBe('completed');
    expect(await refundsOf(second.body.data.id)).toHaveLength(0);
    expect(await eventTypesOf(api, first.body.data.id)).toEqual(['order.processing', 'order.completed', 'refund.requested', 'refund.completed']);
    expect(await eventTypesOf(api, second.body.data.id)).toEqual(['order.processing', 'order.completed', 'refund.requested', 'refund.rejected']);
    expect(toCommand(['order', 'refund', '--order', '7', '--amount', '500000']).command).toEqual({
      method: 'POST',
      path: '/admin/orders/7/refund',
      body: { amount: '500000', reason: undefined },
    });
    expect(() => toCommand(['order', 'refund-reject'])).toThrow(/--order is required/);
  });

  it('hides another partner’s flight orders (404)', async () => {
    const { api: owner } = await newPartner();
    const { api: other } = await newPartner();
    const booked = await book(owner, (await offer(owner, 'Standard')).fare_source_code);
    for (const path of ['/api/flights/air_booking_data/', '/api/flights/air_order_ticket/', '/api/flights/air_refund_display/', '/api/flights/air_refund/']) {
      const res = await other.post(path, { order_id: booked.body.data.id });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    expect((await other.post('/api/flights/air_refund_offline/', { order_id: booked.body.data.id, reason: 'not mine' })).status).toBe(404);
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
    const { api } = await partnerWithWallet(short, '0', '500000000');
    const fare = await offer(api, 'Standard');
    const booked = await book(api, fare.fare_source_code);
    expect(booked.status).toBe(201);
    const orderId = booked.body.data.id;
    await untilOrderStatus(short.db, orderId, 'expired');
    const pnr = booked.body.data.pnr;
    const atAirline = (await (await fetch(`${short.simulatorUrl}/air/bookings/${pnr}`)).json()) as { status: string };
    expect(['cancelled', 'expired']).toContain(atAirline.status);
    expect((await api.post('/api/flights/air_booking_data/', { order_id: orderId })).body.data.booking.status).toBe('expired');
    const pay = await api.post('/api/partners/pay/', { order_id: orderId });
    expect(pay.status).toBe(400);
    expect(pay.body.error).toMatch(/expired/);
    expect(await eventTypesOf(api, orderId)).toEqual(['order.expired']);
    await recordHistory(short, `flight-time-limit:b${booked.body.data.booking_id}`, 'flight-time-limit');
  });
});
