import { Duffel, DuffelError } from '@duffel/api';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';

/**
 * The Duffel stand-in driven through the real `@duffel/api` SDK, as the engine's Duffel
 * adapters drive it: each answer and each refusal in the shape the SDK reads.
 */

const TOKEN = 'duffel_test_stand_in';
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The SDK exports DuffelError as a value typed `typeof` its class. */
type DuffelApiError = InstanceType<typeof DuffelError>;

/** The DuffelError a call fails with (fails the test when it does not). */
async function duffelError(call: Promise<unknown>): Promise<DuffelApiError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof DuffelError) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}

let standIn: DuffelStandIn;
let duffel: Duffel;
let clockOffsetMs = 0;

beforeAll(async () => {
  standIn = await startDuffelStandIn({ now: () => new Date(Date.now() + clockOffsetMs) });
  duffel = new Duffel({ token: TOKEN, basePath: standIn.url });
});
afterAll(() => standIn.stop());
afterEach(() => {
  standIn.control.clearFaults();
  standIn.control.setRateLimit(null);
  clockOffsetMs = 0;
});

async function search(origin: string, destination: string, passengers: ({ type: 'adult' } | { age: number })[] = [{ type: 'adult' }]) {
  const res = await duffel.offerRequests.create({
    slices: [{ origin, destination, departure_date: inDays(30), departure_time: null, arrival_time: null }],
    passengers,
    cabin_class: 'economy',
    return_offers: true,
  });
  return res.data;
}

type SearchedOffer = Awaited<ReturnType<typeof search>>['offers'][number];

const travellers = (offer: SearchedOffer, withDocuments = offer.passenger_identity_documents_required) =>
  offer.passengers.map((p, i) => ({
    id: p.id,
    given_name: `Traveller${i}`,
    family_name: 'Rahimi',
    born_on: p.type === 'adult' ? '1985-04-12' : '2019-06-01',
    gender: 'f' as const,
    title: 'ms' as const,
    email: 'traveller@example.com',
    phone_number: '+989121234567',
    ...(withDocuments && {
      identity_documents: [{ type: 'passport' as const, unique_identifier: `P${i}2345678`, issuing_country_code: 'IR', expires_on: '2031-01-01' }],
    }),
  }));

/** A hold order of the offer (the reference's `type: 'hold'`; the SDK's own type says `pay_later`). */
async function hold(offer: SearchedOffer, metadata?: Record<string, string>) {
  const res = await duffel.orders.create({
    type: 'hold',
    selected_offers: [offer.id],
    passengers: travellers(offer),
    ...(metadata && { metadata }),
  } as unknown as Parameters<Duffel['orders']['create']>[0]);
  return res.data;
}

const pay = (order: { id: string; total_amount: string; total_currency: string }) =>
  duffel.payments.create({ order_id: order.id, payment: { type: 'balance', amount: order.total_amount, currency: order.total_currency } });

describe('requests Duffel refuses before anything else', () => {
  it('answers 401 without a bearer token and 400 without Duffel-Version: v2', async () => {
    const noToken = await fetch(`${standIn.url}/air/airports`, { headers: { 'Duffel-Version': 'v2' } });
    expect(noToken.status).toBe(401);
    const body: any = await noToken.json();
    expect(body.errors[0]).toMatchObject({ type: 'authentication_error', code: 'missing_authorization_header' });
    expect(body.meta).toEqual({ status: 401, request_id: noToken.headers.get('x-request-id') });

    const liveToken = await duffelError(new Duffel({ token: 'duffel_live_abc', basePath: standIn.url }).airports.list());
    expect(liveToken.meta.status).toBe(401);

    const noVersion = await fetch(`${standIn.url}/air/airports`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as any).errors[0].code).toBe('unsupported_version');
  });

  it('names the field of an invalid body in a 422 validation error', async () => {
    const err = await duffelError(duffel.offerRequests.create({ passengers: [{ type: 'adult' }] } as never));
    expect(err.meta.status).toBe(422);
    expect(err.errors[0]).toMatchObject({ type: 'validation_error', code: 'validation_required', source: { field: 'slices', pointer: '/slices' } });
  });
});

describe('flights', () => {
  it('pages the airports with limit and after, the simulator cities and international hubs among them', async () => {
    const codes: string[] = [];
    let after: string | undefined;
    do {
      const page = await duffel.airports.list({ limit: 7, ...(after && { after }) });
      expect(page.data.length).toBeLessThanOrEqual(7);
      codes.push(...page.data.map((a) => a.iata_code!));
      after = page.meta?.after ?? undefined;
    } while (after);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual(expect.arrayContaining(['THR', 'IKA', 'MHD', 'SYZ', 'IFN', 'TBZ', 'KIH', 'LHR', 'DXB', 'IST', 'JFK', 'CDG', 'NRT']));
    const heathrow = (await duffel.airports.get('arp_lhr_gb')).data;
    expect(heathrow).toMatchObject({ iata_city_code: 'LON', city_name: 'London', time_zone: 'Europe/London', city: { iata_code: 'LON' } });
  });

  it('answers the same search with the same flights and prices, in each route currency as Duffel writes amounts', async () => {
    const first = await search('LHR', 'JFK', [{ type: 'adult' }, { age: 7 }]);
    const again = await search('LHR', 'JFK', [{ type: 'adult' }, { age: 7 }]);
    const shape = (offers: SearchedOffer[]) => offers.map((o) => [o.total_amount, o.slices[0]!.segments[0]!.departing_at]);
    expect(shape(again.offers)).toEqual(shape(first.offers));
    expect(again.offers[0]!.id).not.toBe(first.offers[0]!.id);

    const offer = first.offers[0]!;
    expect(offer.id).toMatch(/^off_/);
    expect(offer.owner).toMatchObject({ iata_code: 'ZZ', name: 'Duffel Airways' });
    expect(offer.total_currency).toBe('USD');
    expect(offer.total_amount).toMatch(/^\d+\.\d{2}$/);
    expect(Number(offer.base_amount) + Number(offer.tax_amount)).toBeCloseTo(Number(offer.total_amount), 2);
    expect(offer.passengers.map((p) => [p.id.slice(0, 4), p.type])).toEqual([
      ['pas_', 'adult'],
      ['pas_', 'child'],
    ]);
    expect(offer.payment_requirements).toMatchObject({ requires_instant_payment: false });
    expect(Date.parse(offer.payment_requirements.payment_required_by!)).toBeGreaterThan(Date.now());
    expect(offer.passenger_identity_documents_required).toBe(true);
    const segment = offer.slices[0]!.segments[0]!;
    expect(segment).toMatchObject({ marketing_carrier: { iata_code: 'ZZ' }, origin: { iata_code: 'LHR' }, destination: { iata_code: 'JFK' } });
    expect(segment.departing_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00$/);
    expect(segment.passengers[0]!.baggages).toEqual(expect.arrayContaining([{ type: 'carry_on', quantity: 1 }]));
    expect(first.offers.map((o) => o.conditions.refund_before_departure?.allowed)).toEqual([false, true, true]);
    expect(first.offers[1]!.conditions.refund_before_departure).toMatchObject({
      penalty_currency: 'USD',
      penalty_amount: expect.stringMatching(/^\d+\.\d{2}$/),
    });

    const tokyo = await search('THR', 'NRT');
    expect(tokyo.offers[0]!.total_currency).toBe('JPY');
    expect(tokyo.offers[0]!.total_amount).toMatch(/^\d+$/);
    const domestic = await search('THR', 'MHD');
    expect(domestic.offers[0]).toMatchObject({ total_currency: 'GBP', passenger_identity_documents_required: false });
  });

  it('answers a return search with both slices in each offer', async () => {
    const res = await duffel.offerRequests.create({
      slices: [
        { origin: 'THR', destination: 'IST', departure_date: inDays(30), departure_time: null, arrival_time: null },
        { origin: 'IST', destination: 'THR', departure_date: inDays(37), departure_time: null, arrival_time: null },
      ],
      passengers: [{ type: 'adult' }, { age: 1 }],
      return_offers: true,
    });
    const offer = res.data.offers[0]!;
    expect(offer.slices.map((s) => [s.origin.iata_code, s.destination.iata_code])).toEqual([
      ['THR', 'IST'],
      ['IST', 'THR'],
    ]);
    expect(offer.passengers.map((p) => p.type)).toEqual(['adult', 'infant_without_seat']);
    expect(res.data.slices).toHaveLength(2);
    const unsearched = await duffel.offerRequests.create({
      slices: [{ origin: 'THR', destination: 'IST', departure_date: inDays(30), departure_time: null, arrival_time: null }],
      passengers: [{ type: 'adult' }],
      return_offers: false,
    });
    expect(unsearched.data).not.toHaveProperty('offers');
    const listed = await duffel.offers.list({ offer_request_id: unsearched.data.id });
    expect(listed.data).toHaveLength(3);
  });

  it('holds an offer, takes its payment and issues a ticket per passenger', async () => {
    const offer = (await search('IKA', 'DXB', [{ type: 'adult' }, { type: 'adult' }])).offers[1]!;
    const before = standIn.control.balance().GBP!;
    const order = await hold(offer, { engine_order: '42' });
    expect(order.id).toMatch(/^ord_/);
    expect(order.booking_reference).toMatch(/^[A-Z0-9]{6}$/);
    expect(order).toMatchObject({ total_amount: offer.total_amount, total_currency: 'GBP', documents: [], metadata: { engine_order: '42' } });
    expect(order.payment_status).toMatchObject({
      awaiting_payment: true,
      paid_at: null,
      payment_required_by: offer.payment_requirements.payment_required_by,
      price_guarantee_expires_at: offer.payment_requirements.price_guarantee_expires_at,
    });

    const payment = (await pay(order)).data;
    expect(payment).toMatchObject({ id: expect.stringMatching(/^pay_/), amount: order.total_amount, currency: 'GBP', type: 'balance' });
    const paid = (await duffel.orders.get(order.id)).data;
    expect(paid.payment_status).toMatchObject({ awaiting_payment: false, paid_at: expect.any(String) });
    expect(paid.documents).toHaveLength(2);
    expect(paid.documents!.map((d) => d.type)).toEqual(['electronic_ticket', 'electronic_ticket']);
    expect(paid.documents!.flatMap((d) => d.passenger_ids).sort()).toEqual(order.passengers.map((p) => p.id).sort());
    expect(Number(standIn.control.balance().GBP)).toBeCloseTo(Number(before) - Number(order.total_amount), 2);

    const byReference = await duffel.orders.list({ booking_reference: order.booking_reference });
    expect(byReference.data.map((o) => o.id)).toEqual([order.id]);
  });

  it('refuses an order without the identity documents an international offer needs', async () => {
    const offer = (await search('IKA', 'IST')).offers[0]!;
    const err = await duffelError(duffel.orders.create({ type: 'hold', selected_offers: [offer.id], passengers: travellers(offer, false) } as never));
    expect(err.errors[0]).toMatchObject({ type: 'validation_error', code: 'validation_required', source: { pointer: '/passengers/0/identity_documents' } });
    const sdkType = await duffelError(duffel.orders.create({ type: 'pay_later', selected_offers: [offer.id], passengers: travellers(offer) } as never));
    expect(sdkType.errors[0]).toMatchObject({ code: 'validation_format', source: { field: 'type' } });
  });

  it('refuses a payment twice, of another amount or currency, and when the balance is short', async () => {
    const order = await hold((await search('THR', 'SYZ')).offers[0]!);
    const wrongAmount = await duffelError(
      duffel.payments.create({ order_id: order.id, payment: { type: 'balance', amount: '1.00', currency: order.total_currency } }),
    );
    expect(wrongAmount.meta.status).toBe(422);
    expect(wrongAmount.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'price_changed' });
    const wrongCurrency = await duffelError(
      duffel.payments.create({ order_id: order.id, payment: { type: 'balance', amount: order.total_amount, currency: 'EUR' } }),
    );
    expect(wrongCurrency.errors[0]).toMatchObject({ type: 'validation_error', source: { field: 'currency' } });

    standIn.control.setBalance('GBP', '1.00');
    const short = await duffelError(pay(order));
    expect(short.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'insufficient_balance' });
    standIn.control.setBalance('GBP', '1000000.00');

    await pay(order);
    const twice = await duffelError(pay(order));
    expect(twice.meta.status).toBe(422);
    expect(twice.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'already_paid' });
    expect(standIn.control.payments(order.id)).toHaveLength(1);
  });

  it('passes on an airline refusal of a payment, and the hold can still be paid', async () => {
    const order = await hold((await search('THR', 'IFN')).offers[0]!);
    standIn.control.refuseNextPayment({ orderId: order.id });
    const refused = await duffelError(pay(order));
    expect(refused.errors[0]).toMatchObject({ type: 'airline_error' });
    expect((await duffel.orders.get(order.id)).data.payment_status.awaiting_payment).toBe(true);
    await pay(order);
    expect(standIn.control.payments(order.id)).toHaveLength(1);
  });

  it('quotes a cancellation of a paid order, refunds it to the balance on confirmation, and once only', async () => {
    const offer = (await search('THR', 'KIH')).offers[2]!; // Flex: refundable without penalty
    const order = await hold(offer);
    await pay(order);
    const afterPayment = Number(standIn.control.balance().GBP);

    const quote = (await duffel.orderCancellations.create({ order_id: order.id })).data;
    expect(quote).toMatchObject({
      id: expect.stringMatching(/^ore_/),
      order_id: order.id,
      refund_amount: order.total_amount,
      refund_currency: 'GBP',
      refund_to: 'balance',
      confirmed_at: null,
    });
    expect(Date.parse(quote.expires_at)).toBeGreaterThan(Date.now());

    const confirmed = (await duffel.orderCancellations.confirm(quote.id)).data;
    expect(confirmed.confirmed_at).toEqual(expect.any(String));
    expect((await duffel.orders.get(order.id)).data.cancelled_at).toEqual(confirmed.confirmed_at);
    expect(Number(standIn.control.balance().GBP)).toBeCloseTo(afterPayment + Number(order.total_amount), 2);

    const again = await duffelError(duffel.orderCancellations.confirm(quote.id));
    expect(again.errors[0]!.code).toBe('already_cancelled');
    const listed = await duffel.orderCancellations.list({ order_id: order.id });
    expect(listed.data.map((c) => c.id)).toEqual([quote.id]);
    expect(standIn.control.balanceMovements().filter((m) => m.reference === quote.id)).toHaveLength(1);
  });

  it('cancels an unpaid hold with no refund, after which it cannot be paid', async () => {
    const order = await hold((await search('THR', 'TBZ')).offers[0]!);
    const quote = (await duffel.orderCancellations.create({ order_id: order.id })).data;
    expect(quote).toMatchObject({ refund_amount: '0.00', refund_to: 'awaiting_payment' });
    await duffel.orderCancellations.confirm(quote.id);
    const err = await duffelError(pay(order));
    expect(err.errors[0]!.code).toBe('already_cancelled');
  });

  it('refuses to confirm an expired cancellation quote', async () => {
    const order = await hold((await search('THR', 'TBZ')).offers[0]!);
    const quote = (await duffel.orderCancellations.create({ order_id: order.id })).data;
    standIn.control.expireOrderCancellation(quote.id);
    const err = await duffelError(duffel.orderCancellations.confirm(quote.id));
    expect(err.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'order_cancellation_expired' });
    expect((await duffel.orders.get(order.id)).data.cancelled_at).toBeNull();
  });

  it('answers offer_no_longer_available for an offer gone or expired, on a fetch and on an order', async () => {
    const [gone, expiring, kept] = (await search('LHR', 'CDG')).offers;
    standIn.control.makeOfferGone(gone!.id);
    const fetched = await duffelError(duffel.offers.get(gone!.id));
    expect(fetched.meta.status).toBe(422);
    expect(fetched.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'offer_no_longer_available' });
    const ordered = await duffelError(hold(gone!));
    expect(ordered.errors[0]!.code).toBe('offer_no_longer_available');

    standIn.control.expireOffer(expiring!.id);
    expect((await duffelError(duffel.offers.get(expiring!.id))).errors[0]!.code).toBe('offer_no_longer_available');

    clockOffsetMs = 31 * 60_000; // Duffel's offers live about 30 minutes
    expect((await duffelError(duffel.offers.get(kept!.id))).errors[0]!.code).toBe('offer_no_longer_available');

    const unknown = await duffelError(duffel.offers.get('off_0000NoSuchOfferAtAll00'));
    expect(unknown.meta.status).toBe(404);
    expect(unknown.errors[0]!.code).toBe('not_found');
  });

  it('raises an offer price at its next fetch, and an order at the old price is refused', async () => {
    const offer = (await search('IKA', 'DXB')).offers[0]!;
    standIn.control.raiseOfferPrice(offer.id, '25.00');
    const fresh = (await duffel.offers.get(offer.id)).data;
    expect(Number(fresh.total_amount)).toBeCloseTo(Number(offer.total_amount) + 25, 2);
    const instant = await duffelError(
      duffel.orders.create({
        type: 'instant',
        selected_offers: [offer.id],
        passengers: travellers(offer),
        payments: [{ type: 'balance', amount: offer.total_amount, currency: offer.total_currency }],
      }),
    );
    expect(instant.errors[0]!.code).toBe('price_changed');
    const order = await hold(offer);
    expect(order.total_amount).toBe(fresh.total_amount);
  });

  it('cancels an unpaid hold whose payment deadline passed', async () => {
    const order = await hold((await search('THR', 'MHD')).offers[0]!);
    standIn.control.expireHold(order.id);
    const read = (await duffel.orders.get(order.id)).data;
    expect(read.cancelled_at).toEqual(read.payment_status.payment_required_by);
    expect(read.payment_status.awaiting_payment).toBe(false);
    expect((await duffelError(pay(order))).errors[0]!.code).toBe('already_cancelled');
    expect(standIn.control.payments(order.id)).toHaveLength(0);
  });
});

describe('faults', () => {
  it('answers 429 with ratelimit-reset when armed, then serves the call', async () => {
    const offer = (await search('THR', 'MHD')).offers[0]!;
    standIn.control.failNext('GET /air/offers/:id', { status: 429, resetSeconds: 3 });
    const limited = await duffelError(duffel.offers.get(offer.id));
    expect(limited.meta.status).toBe(429);
    expect(limited.errors[0]).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    const reset = Date.parse(limited.headers.get('ratelimit-reset')!);
    expect(reset).toBeGreaterThan(Date.now());
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect((await duffel.offers.get(offer.id)).data.id).toBe(offer.id);
  });

  it('answers 5xx the armed number of times before anything happens', async () => {
    const order = await hold((await search('THR', 'MHD')).offers[0]!);
    standIn.control.failNext('POST /air/payments', { status: 503, times: 2 });
    for (let i = 0; i < 2; i++) {
      const err = await duffelError(pay(order));
      expect(err.meta.status).toBe(503);
      expect(err.errors[0]!.type).toBe('api_error');
    }
    expect(standIn.control.payments(order.id)).toHaveLength(0);
    await pay(order);
    expect(standIn.control.payments(order.id)).toHaveLength(1);
  });

  it('limits requests per token per second when the limiter is on, with the rate-limit headers', async () => {
    standIn.control.setRateLimit(2);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${standIn.url}/air/airports?limit=1`, { headers: { Authorization: `Bearer ${TOKEN}`, 'Duffel-Version': 'v2' } })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    for (const a of answers) {
      expect(a.headers.get('ratelimit-limit')).toBe('2');
      expect(Number.isNaN(Date.parse(a.headers.get('ratelimit-reset')!))).toBe(false);
    }
    const limited = answers.find((a) => a.status === 429)!;
    expect(((await limited.json()) as any).errors[0].code).toBe('rate_limit_exceeded');
    // Another token has its own window.
    standIn.control.setRateLimit(1);
    const other = await fetch(`${standIn.url}/air/airports?limit=1`, { headers: { Authorization: 'Bearer duffel_test_other', 'Duffel-Version': 'v2' } });
    expect(other.status).toBe(200);
  });

  it('takes a payment whose answer is lost: the SDK call fails, the order is paid, a retry is refused', async () => {
    const order = await hold((await search('THR', 'SYZ')).offers[0]!);
    standIn.control.loseNextAnswer('POST /air/payments');
    const lost = await pay(order).then(
      () => null,
      (err: unknown) => err,
    );
    expect(lost).toBeInstanceOf(Error);
    expect(lost).not.toBeInstanceOf(DuffelError);

    const read = (await duffel.orders.get(order.id)).data;
    expect(read.payment_status.awaiting_payment).toBe(false);
    expect(read.documents).toHaveLength(1);
    expect((await duffelError(pay(order))).errors[0]!.code).toBe('already_paid');
    expect(standIn.control.payments(order.id)).toHaveLength(1);
    const logged = standIn.control.requests('POST /air/payments').filter((r) => (r.body as { order_id?: string }).order_id === order.id);
    expect(logged.map((r) => r.lostAnswer)).toEqual([true, false]);
  });

  it('confirms a cancellation whose answer is lost: the order is cancelled and refunded once', async () => {
    const order = await hold((await search('THR', 'KIH')).offers[2]!);
    await pay(order);
    const quote = (await duffel.orderCancellations.create({ order_id: order.id })).data;
    standIn.control.loseNextAnswer('POST /air/order_cancellations/:id/actions/confirm');
    await expect(duffel.orderCancellations.confirm(quote.id)).rejects.not.toBeInstanceOf(DuffelError);
    expect((await duffel.orderCancellations.get(quote.id)).data.confirmed_at).toEqual(expect.any(String));
    expect((await duffel.orders.get(order.id)).data.cancelled_at).toEqual(expect.any(String));
    expect(standIn.control.balanceMovements().filter((m) => m.reference === quote.id)).toHaveLength(1);
  });

  it('is controlled over HTTP under /_stand_in as well', async () => {
    const armed = await fetch(`${standIn.url}/_stand_in/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route: 'GET /air/airports', status: 502 }),
    });
    expect(armed.status).toBe(200);
    expect((await duffelError(duffel.airports.list())).meta.status).toBe(502);
    const unknownRoute = await fetch(`${standIn.url}/_stand_in/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route: 'GET /nowhere', status: 502 }),
    });
    expect(unknownRoute.status).toBe(422);
    const balance: any = await (await fetch(`${standIn.url}/_stand_in/balance`)).json();
    expect(balance.data.balances).toHaveProperty('GBP');
  });
});

describe('stays', () => {
  const stayDates = { check_in_date: inDays(40), check_out_date: inDays(42) };

  async function firstRates(rooms = 1) {
    const found = await duffel.stays.search({
      location: { radius: 5, geographic_coordinates: { latitude: 51.5074, longitude: -0.1278 } },
      ...stayDates,
      rooms,
      guests: [{ type: 'adult' }, { type: 'adult' }],
    });
    const result = found.data.results[0]!;
    return (await duffel.stays.searchResults.fetchAllRates(result.id)).data;
  }

  it('finds hotels near a point or by id, with their cheapest rate', async () => {
    const near = await duffel.stays.search({
      location: { radius: 5, geographic_coordinates: { latitude: 51.5074, longitude: -0.1278 } },
      ...stayDates,
      rooms: 1,
      guests: [{ type: 'adult' }],
    });
    expect(near.data.results.length).toBeGreaterThan(0);
    for (const r of near.data.results) {
      expect(r.id).toMatch(/^srr_/);
      expect(r.accommodation.location.address.city_name).toBe('London');
      expect(r).toMatchObject({ cheapest_rate_currency: 'GBP', cheapest_rate_total_amount: expect.stringMatching(/^\d+\.\d{2}$/) });
    }
    const id = near.data.results[0]!.accommodation.id;
    const byId = await duffel.stays.search({ accommodation: { ids: [id] }, ...stayDates, rooms: 1, guests: [{ type: 'adult' }] });
    expect(byId.data.results.map((r) => r.accommodation.id)).toEqual([id]);
    const tehran = await duffel.stays.search({
      location: { radius: 10, geographic_coordinates: { latitude: 35.6892, longitude: 51.389 } },
      ...stayDates,
      rooms: 1,
      guests: [{ type: 'adult' }],
    });
    expect(tehran.data.results.map((r) => r.cheapest_rate_currency)).toContain('EUR');
  });

  it('quotes a rate, books the quote, and cancels with the refund its timeline gives', async () => {
    const result = await firstRates();
    const rates = result.accommodation.rooms.flatMap((room) => room.rates);
    expect(rates.length).toBeGreaterThan(1);
    const refundable = rates.find((r) => r.cancellation_timeline.length > 0)!;
    expect(refundable).toMatchObject({ id: expect.stringMatching(/^rat_/), payment_type: 'pay_now', total_currency: 'GBP' });
    expect(refundable.cancellation_timeline[0]).toMatchObject({ refund_amount: refundable.total_amount, currency: 'GBP' });

    const quote = (await duffel.stays.quotes.create(refundable.id)).data;
    expect(quote).toMatchObject({ id: expect.stringMatching(/^quo_/), total_amount: refundable.total_amount, total_currency: 'GBP' });
    const before = Number(standIn.control.balance().GBP);
    const booking = (
      await duffel.stays.bookings.create({
        quote_id: quote.id,
        guests: [{ given_name: 'Sara', family_name: 'Rahimi' }],
        email: 'sara@example.com',
        phone_number: '+989121234567',
        metadata: { engine_order: '7' },
      })
    ).data;
    expect(booking).toMatchObject({ id: expect.stringMatching(/^bok_/), status: 'confirmed', cancelled_at: null, metadata: { engine_order: '7' } });
    expect(booking.reference).toEqual(expect.any(String));
    expect(Number(standIn.control.balance().GBP)).toBeCloseTo(before - Number(quote.total_amount), 2);
    expect((await duffel.stays.bookings.get(booking.id)).data.id).toBe(booking.id);
    expect((await duffel.stays.bookings.list()).data.map((b) => b.id)).toContain(booking.id);

    const twice = await duffelError(
      duffel.stays.bookings.create({
        quote_id: quote.id,
        guests: [{ given_name: 'S', family_name: 'R' }],
        email: 'sara@example.com',
        phone_number: '+989121234567',
      }),
    );
    expect(twice.errors[0]!.type).toBe('invalid_state_error');

    const cancelled = (await duffel.stays.bookings.cancel(booking.id)).data;
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    expect(Number(standIn.control.balance().GBP)).toBeCloseTo(before, 2);
    expect((await duffelError(duffel.stays.bookings.cancel(booking.id))).errors[0]!.code).toBe('already_cancelled');
  });

  it('refunds nothing for a non-refundable rate', async () => {
    const result = await firstRates();
    const nonRefundable = result.accommodation.rooms.flatMap((room) => room.rates).find((r) => r.cancellation_timeline.length === 0)!;
    const quote = (await duffel.stays.quotes.create(nonRefundable.id)).data;
    const booking = (
      await duffel.stays.bookings.create({
        quote_id: quote.id,
        guests: [{ given_name: 'A', family_name: 'B' }],
        email: 'a@example.com',
        phone_number: '+989121234567',
      })
    ).data;
    const afterBooking = standIn.control.balance().GBP;
    await duffel.stays.bookings.cancel(booking.id);
    expect(standIn.control.balance().GBP).toBe(afterBooking);
  });

  it('refuses to book an expired quote and to quote an expired rate', async () => {
    const result = await firstRates();
    const rate = result.accommodation.rooms[0]!.rates[0]!;
    const quote = (await duffel.stays.quotes.create(rate.id)).data;
    standIn.control.expireStaysQuote(quote.id);
    const booked = await duffelError(
      duffel.stays.bookings.create({
        quote_id: quote.id,
        guests: [{ given_name: 'A', family_name: 'B' }],
        email: 'a@example.com',
        phone_number: '+989121234567',
      }),
    );
    expect(booked.errors[0]).toMatchObject({ type: 'invalid_state_error', code: 'quote_no_longer_available' });

    const search = standIn.control.requests('POST /stays/search_results/:id/actions/fetch_all_rates').at(-1)!.path.split('/')[3]!;
    standIn.control.expireStaysSearchResult(search);
    expect((await duffelError(duffel.stays.quotes.create(rate.id))).errors[0]!.code).toBe('rate_unavailable');
  });
});
