import { Duffel } from '@duffel/api';
import { eq } from 'drizzle-orm';
import { flightBookings, orders } from '../../src/db/schema';
import { loadConfig } from '../../src/config';
import type { PartnerClient } from '../../src/client';
import type { components } from '../../src/client/partner-api';
import { call, newPartner as partnerWithWallet, settled } from '../support/clients';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { contact, day } from '../support/fixtures';
import { GBP_RATE, setRate as setRateOf } from '../support/rates';
import { ADMIN_TOKEN, ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';

/**
 * Flights sold through Duffel (FLIGHT_SUPPLIER=duffel) against the Duffel stand-in, priced
 * in GBP by the airline and sold in the wallet's IRT at the operators' rate.
 */

let standIn: DuffelStandIn;
let stack: TestStack;

beforeAll(async () => {
  standIn = await startDuffelStandIn();
  stack = await startStack({
    payWaitMs: 15_000,
    finalizeAttempts: 3,
    env: { FLIGHT_SUPPLIER: 'duffel', DUFFEL_ACCESS_TOKEN: 'duffel_test_engine', DUFFEL_API_URL: standIn.url },
  });
});
afterEach(async () => {
  standIn.control.clearFaults();
  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
});
afterAll(async () => {
  await stack?.close();
  await standIn?.stop();
});

type SearchRequest = components['schemas']['FlightSearchRequest'];
type Traveller = components['schemas']['FlightBookingRequest']['traveler_info']['air_travelers'][number];

const TOPUP = 900_000_000;
const newPartner = () => partnerWithWallet(stack, '0', String(TOPUP));
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const setRate = (from: string, rate: string | number) => setRateOf(stack, from, rate);

const DEPARTURE = day(40);
const traveller: Traveller = {
  first_name: 'Amelia',
  last_name: 'Hart',
  birth_date: '1984-02-03',
  gender: 'female',
  passenger_type: 'ADT',
  nationality: 'GB',
  passport_number: '533112298',
  passport_expiry_date: day(2000),
};

const searchBody = (over: Partial<SearchRequest> = {}): SearchRequest => ({
  origin: 'LHR',
  destination: 'IST',
  departure_date_time: `${DEPARTURE}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy',
  air_trip_type: 'one_way',
  ...over,
});

async function firstOffer(client: PartnerClient) {
  const res = await client.POST('/flights/search_flights/', { body: searchBody() });
  expect(res.response.status).toBe(200);
  const found = res.data!.data.results[0];
  if (!found) throw new Error(`no offer in ${JSON.stringify(res.data)}`);
  return found;
}

async function bookOffer(client: PartnerClient) {
  const fare = await firstOffer(client);
  const booked = await client.POST('/flights/air_booking/', {
    body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
  });
  expect(booked.response.status).toBe(201);
  return { fare, booked: booked.data!.data };
}

const bookingOf = async (orderId: number) => (await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!;

describe('flights through Duffel', () => {
  it('refuses to price a currency without a rate, naming it, and prices at the rate once set', async () => {
    const { client } = await newPartner();
    const refused = await client.POST('/flights/search_flights/', { body: searchBody() });
    expect(refused.response.status).toBe(409);
    expect(JSON.stringify(refused.error)).toMatch(/GBP/);

    expect((await setRate('GBP', GBP_RATE)).status).toBe(201);
    const offers = await client.POST('/flights/search_flights/', { body: searchBody() });
    expect(offers.response.status).toBe(200);
    const results = offers.data!.data.results;
    expect(results.length).toBeGreaterThan(0);
    // Every price is the airline's GBP (whole pence) at the rate: a penny is 52,000 minor units of IRT.
    for (const r of results) {
      expect(r.currency).toBe('IRT');
      expect(minor(r.total_price) % GBP_RATE).toBe(0);
      // Sealed: the partner reads neither Duffel's offer id nor its amount.
      expect(r.fare_source_code).toMatch(/^sealed:/);
      expect(r.fare_source_code).not.toMatch(/off_|GBP/);
    }
    // Cheapest first.
    expect(results.map((r) => minor(r.total_price))).toEqual([...results.map((r) => minor(r.total_price))].sort((a, b) => a - b));
  });

  it('walks an offer from search to a refund: revalidate, rules, baggage, hold, pay (tickets), refund', async () => {
    await setRate('GBP', GBP_RATE);
    const { client, api } = await newPartner();
    const fare = await firstOffer(client);

    const again = await client.POST('/flights/revalidate_flight/', { body: { fare_source_code: fare.fare_source_code } });
    expect(again.data?.data).toMatchObject({ is_valid: true, total_price: fare.total_price, price_changed: false, seats_left: null });
    const rules = await client.POST('/flights/air_rules/', { body: { fare_source_code: fare.fare_source_code } });
    expect(rules.response.status).toBe(200);
    expect(rules.data?.data.rules.map((r) => r.category)).toEqual(['refund', 'change']);
    const bags = await client.POST('/flights/air_baggages/', { body: { fare_source_code: fare.fare_source_code } });
    expect(bags.data?.data.baggage).toEqual([{ passenger_type: 'ADT', checked: expect.objectContaining({ weight_kg: null }), cabin: expect.any(Object) }]);

    // An international trip: the airline asks for a passport.
    const noPassport = await client.POST('/flights/air_booking/', {
      body: {
        fare_source_code: fare.fare_source_code,
        traveler_info: {
          contact,
          air_travelers: [{ ...traveller, nationality: 'IR', national_id: '0012345679', passport_number: undefined, passport_expiry_date: undefined }],
        },
      },
    });
    expect(noPassport.response.status).toBe(400);
    expect(JSON.stringify(noPassport.error)).toMatch(/passport_number/);

    const booked = await client.POST('/flights/air_booking/', {
      body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
    });
    expect(booked.response.status).toBe(201);
    const orderId = booked.data!.data.id;
    expect(booked.data?.data).toMatchObject({ status: 'pending', total_price: fare.total_price, pnr: expect.any(String) });

    // The hold at Duffel: an order of type hold, with our client reference, awaiting payment.
    const booking = await bookingOf(orderId);
    expect(booking.supplier).toBe('duffel');
    expect(booking.supplierBookingRef).toMatch(/^ord_/);
    const [order] = await stack.db.select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ supplierCurrency: 'GBP', fxRateAmount: GBP_RATE, fxRateScale: 0 });
    expect(order!.supplierAmount! * GBP_RATE).toBe(order!.totalPrice);
    const holds = standIn.control.requests('POST /air/orders');
    expect(holds.at(-1)?.body).toMatchObject({ type: 'hold', metadata: { client_reference: `flight-book:b${booking.id}` } });

    const paid = await client.POST('/partners/pay/', { body: { order_id: orderId, idempotency_key: `duffel-${orderId}` } });
    expect(paid.response.status).toBe(200);
    expect(paid.data?.data).toMatchObject({ order_status: 'completed' });
    expect(minor(settled(paid)!.new_balance)).toBe(TOPUP * 100 - order!.totalPrice);
    const payments = standIn.control.payments(booking.supplierBookingRef!);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ type: 'balance', currency: 'GBP' });
    expect(minor(payments[0]!.amount)).toBe(order!.supplierAmount);

    const tickets = await client.POST('/flights/air_order_ticket/', { body: { order_id: orderId } });
    expect(tickets.data?.data).toMatchObject({ status: 'completed', ticketing: 'issued' });
    expect(tickets.data?.data.tickets[0]?.ticket_number).toEqual(expect.any(String));

    const quote = await client.POST('/flights/air_refund_display/', { body: { order_id: orderId } });
    expect(quote.response.status).toBe(200);
    const refunded = await client.POST('/flights/air_refund/', { body: { order_id: orderId, quote_id: quote.data!.data.quote_id } });
    expect(refunded.response.status).toBe(200);
    expect(refunded.data?.data).toMatchObject({ status: 'refunded', refund_amount: quote.data?.data.refundable_amount });
    // The partner gets back what the airline refunds, at the rate: the cancellation quoted for the refund is the one confirmed.
    const duffel = new Duffel({ token: 'duffel_test_engine', basePath: standIn.url });
    const confirmed = (await duffel.orderCancellations.list({ order_id: booking.supplierBookingRef! })).data.filter((c) => c.confirmed_at);
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]!.refund_currency).toBe('GBP');
    expect(minor(quote.data!.data.refundable_amount)).toBe(minor(confirmed[0]!.refund_amount!) * GBP_RATE);
    expect(minor((await api.wallet()).balance)).toBe(TOPUP * 100 - order!.totalPrice + minor(quote.data!.data.refundable_amount));
  });

  it("sells at the airline's amount converted, with the markup of a rule naming Duffel; the order records both", async () => {
    await setRate('GBP', GBP_RATE);
    const { client, creds } = await newPartner();
    const rule = await call(
      stack.admin,
      'POST',
      '/admin/markups',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      { service: 'flights', partner: creds.partner_id, supplier: 'duffel', percent: '2.5', min_margin: '1000' },
    );
    expect(rule.status).toBe(201);
    const { fare, booked } = await bookOffer(client);
    const [order] = await stack.db.select().from(orders).where(eq(orders.id, booked.id));
    // Net: the GBP amount at the rate; margin: 2.5% of it, at least 1,000.00 IRT.
    const net = order!.supplierAmount! * GBP_RATE;
    const margin = Math.max(Math.round((net * 25) / 1000), 100_000);
    expect(order).toMatchObject({ supplier: 'duffel', supplierCurrency: 'GBP', netPrice: net, margin, totalPrice: net + margin, pricingRuleId: rule.body.id });
    expect(minor(fare.total_price)).toBe(net + margin);
    expect(minor(booked.total_price)).toBe(net + margin);
    const paid = await client.POST('/partners/pay/', { body: { order_id: booked.id, idempotency_key: `duffel-markup-${booked.id}` } });
    expect(minor(settled(paid)!.new_balance)).toBe(TOPUP * 100 - (net + margin));
  });

  it('keeps the price a revalidation fixed while the offer holds, whatever the rate does meanwhile', async () => {
    await setRate('GBP', GBP_RATE);
    const { client } = await newPartner();
    const found = await client.POST('/flights/search_flights/', { body: searchBody() });
    const [fare, other] = found.data!.data.results;
    const fixed = await client.POST('/flights/revalidate_flight/', { body: { fare_source_code: fare!.fare_source_code } });
    expect(fixed.data?.data.total_price).toBe(fare!.total_price);
    const NEW_RATE = GBP_RATE + 1000;
    await setRate('GBP', NEW_RATE);
    try {
      // The revalidated code books at the price it fixed, with the rate it was fixed with.
      const booked = await client.POST('/flights/air_booking/', {
        body: { fare_source_code: fixed.data!.data.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
      });
      expect(booked.response.status).toBe(201);
      expect(booked.data?.data.total_price).toBe(fare!.total_price);
      const [order] = await stack.db.select().from(orders).where(eq(orders.id, booked.data!.data.id));
      expect(order).toMatchObject({ fxRateAmount: GBP_RATE });
      // A code from the search fixed nothing: it books at today's rate.
      const later = await client.POST('/flights/air_booking/', {
        body: { fare_source_code: other!.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
      });
      expect(later.response.status).toBe(201);
      expect(minor(later.data!.data.total_price)).toBe((minor(other!.total_price) / GBP_RATE) * NEW_RATE);
    } finally {
      await setRate('GBP', GBP_RATE);
    }
  });

  it('pays a hold once when the answer to its payment is lost', async () => {
    await setRate('GBP', GBP_RATE);
    const { client } = await newPartner();
    const { booked } = await bookOffer(client);
    const booking = await bookingOf(booked.id);
    standIn.control.loseNextAnswer('POST /air/payments');
    const paid = await client.POST('/partners/pay/', { body: { order_id: booked.id, idempotency_key: `lost-${booked.id}` } });
    expect(paid.response.status).toBe(200);
    expect(paid.data?.data).toMatchObject({ order_status: 'completed' });
    expect(standIn.control.payments(booking.supplierBookingRef!)).toHaveLength(1);
  });

  it('cancels once and credits once when the answer to the cancellation is lost', async () => {
    await setRate('GBP', GBP_RATE);
    const { client, api } = await newPartner();
    const { booked } = await bookOffer(client);
    expect((await client.POST('/partners/pay/', { body: { order_id: booked.id } })).response.status).toBe(200);
    const booking = await bookingOf(booked.id);
    const before = minor((await api.wallet()).balance);
    standIn.control.loseNextAnswer('POST /air/order_cancellations/:id/actions/confirm');
    const refunded = await client.POST('/flights/air_refund/', { body: { order_id: booked.id } });
    expect(refunded.response.status).toBe(200);
    expect(refunded.data?.data).toMatchObject({ status: 'refunded' });
    const duffel = new Duffel({ token: 'duffel_test_engine', basePath: standIn.url });
    expect((await duffel.orderCancellations.list({ order_id: booking.supplierBookingRef! })).data.filter((c) => c.confirmed_at)).toHaveLength(1);
    expect(minor((await api.wallet()).balance)).toBe(before + minor((refunded.data!.data as { refund_amount: string }).refund_amount));
  });

  it('does not pay a hold the airline repriced: the payment is reversed and nothing is paid', async () => {
    await setRate('GBP', GBP_RATE);
    const { client, api } = await newPartner();
    const { booked } = await bookOffer(client);
    const booking = await bookingOf(booked.id);
    standIn.control.raiseOrderPrice(booking.supplierBookingRef!, '25.00');
    const before = minor((await api.wallet()).balance);
    const paid = await client.POST('/partners/pay/', { body: { order_id: booked.id, idempotency_key: `up-${booked.id}` } });
    expect(paid.response.status).toBe(502);
    expect(minor((await api.wallet()).balance)).toBe(before);
    expect(standIn.control.payments(booking.supplierBookingRef!)).toHaveLength(0);
  });

  it('answers an offer the airline no longer holds as no longer available, and waits out a rate limit', async () => {
    await setRate('GBP', GBP_RATE);
    const { client } = await newPartner();
    const fare = await firstOffer(client);
    standIn.control.makeOfferGone('*');
    const gone = await client.POST('/flights/revalidate_flight/', { body: { fare_source_code: fare.fare_source_code } });
    expect(gone.response.status).toBe(400);
    expect(JSON.stringify(gone.error)).toMatch(/no longer available/);
    expect(JSON.stringify(gone.error)).not.toMatch(/Duffel/i);

    standIn.control.failNext('POST /air/offer_requests', { status: 429, resetSeconds: 1 });
    const limited = await client.POST('/flights/search_flights/', { body: searchBody() });
    expect(limited.response.status).toBe(200);
  });
});

describe('a seat and a bag chosen at booking, on Duffel', () => {
  type Api = Awaited<ReturnType<typeof newPartner>>['api'];
  /** A refundable fare (Duffel sells seats with it), booked with its first seat for sale and its bag: nothing made at Duffel yet. */
  async function bookedWithSeatAndBag(api: Api) {
    const found = await api.post('/api/flights/search_flights/', searchBody());
    const fare = (found.body.data.results as Array<{ fare_source_code: string; refundable: boolean }>).find((r) => r.refundable)!.fare_source_code;
    const q = `?fare_source_code=${encodeURIComponent(fare)}`;
    const maps = (await api.get(`/api/flights/seat_map/${q}`)).body.data.seat_maps as Array<{
      cabins: Array<{ rows: Array<{ seats: Array<{ designator: string; prices: Array<{ service_id: string }> }> }> }>;
    }>;
    const seat = maps[0]!.cabins[0]!.rows.flatMap((r) => r.seats).find((st) => st.prices.length > 0)!;
    const [bag] = (await api.get(`/api/flights/air_services/${q}`)).body.data.services as Array<{ service_id: string }>;
    const ordersBefore = standIn.control.requests('POST /air/orders').length;
    const booked = await api.post('/api/flights/air_booking/', {
      fare_source_code: fare,
      traveler_info: { contact, air_travelers: [traveller] },
      services: [
        { service_id: seat.prices[0]!.service_id, quantity: 1 },
        { service_id: bag!.service_id, quantity: 1 },
      ],
    });
    expect(booked.status).toBe(201);
    expect(booked.body.data).toMatchObject({ pnr: null, status: 'pending' });
    expect(standIn.control.requests('POST /air/orders')).toHaveLength(ordersBefore);
    return { orderId: booked.body.data.id as number, seat, ordersBefore };
  }

  it('makes the order with both when it is paid, once though the answer is lost; the booking then has its PNR and tickets', async () => {
    await setRate('GBP', GBP_RATE);
    const { api } = await newPartner();
    const { orderId, seat, ordersBefore } = await bookedWithSeatAndBag(api);
    standIn.control.loseNextAnswer('POST /air/orders');
    const paid = await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: `seat-${orderId}` });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ order_status: 'completed' });
    const booking = await bookingOf(orderId);
    expect(booking).toMatchObject({ status: 'ticketed', supplierBookingRef: expect.stringMatching(/^ord_/), pnr: expect.stringMatching(/^[A-Z0-9]{6}$/) });
    const made = standIn.control.requests('POST /air/orders').slice(ordersBefore);
    expect(made.map((r) => (r.body as { type: string }).type)).toEqual(['instant']);
    expect(standIn.control.payments(booking.supplierBookingRef!)).toHaveLength(1);
    const data = (await api.post('/api/flights/air_booking_data/', { order_id: orderId })).body.data;
    expect(data.booking).toMatchObject({ pnr: booking.pnr });
    expect(JSON.stringify(data)).toContain(seat.designator);
  });

  it('refuses the payment when the seat was taken meanwhile: the wallet is credited back and nothing is made', async () => {
    await setRate('GBP', GBP_RATE);
    const { api } = await newPartner();
    const { orderId, seat, ordersBefore } = await bookedWithSeatAndBag(api);
    const booking = await bookingOf(orderId);
    const offerId = booking.supplierBookingRef!.split(':')[1]!;
    const duffel = new Duffel({ token: 'duffel_test_engine', basePath: standIn.url });
    const [map] = (await duffel.seatMaps.get({ offer_id: offerId })).data;
    standIn.control.takeSeat(map!.segment_id, seat.designator);
    const before = minor((await api.wallet()).balance);
    const paid = await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: `taken-${orderId}` });
    expect(paid.status).toBe(502);
    expect(minor((await api.wallet()).balance)).toBe(before);
    expect(standIn.control.requests('POST /air/orders').slice(ordersBefore)).toEqual([]);
  });
});

describe('configuration', () => {
  it('refuses FLIGHT_SUPPLIER=duffel without a token, naming the setting', () => {
    expect(() => loadConfig({ FLIGHT_SUPPLIER: 'duffel' })).toThrow(/DUFFEL_ACCESS_TOKEN/);
    expect(loadConfig({ FLIGHT_SUPPLIER: 'duffel', DUFFEL_ACCESS_TOKEN: 'duffel_test_x' }).FLIGHT_SUPPLIER).toBe('duffel');
  });
});
