import { and, eq, inArray } from 'drizzle-orm';
import { accounts, flightBookings, ledgerEntries, orders, partners } from '../../src/db/schema';
import { toCommand } from '../../src/cli/admin';
import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { convert, setRate as setRateRow } from '../../src/domain/money/fx';
import { trialBalance } from '../../src/domain/reports/trial-balance';
import { priceStay } from '../../src/domain/residence/pricing';
import type { components } from '../../src/client/partner-api';
import { call, partnerClient, settled, typedAgency, typedPartner } from '../support/clients';
import { startDuffelStandIn, type DuffelStandIn } from '../support/duffel';
import { contact, day, traveller as iranianTraveller, visaApplication } from '../support/fixtures';
import { GBP_RATE, setRate as setIrtRate } from '../support/rates';
import { ADMIN_TOKEN, ledgerDiscrepancies, startStack, type TestStack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PDFParse } = require('pdf-parse') as { PDFParse: new (o: { data: Uint8Array }) => { getText(): Promise<{ text: string }> } };

/**
 * Wallets in a currency of their own: an agency with a EUR wallet, on an engine whose
 * CURRENCY stays IRT, buys a Duffel flight priced in GBP (the stand-in) and a simulator
 * hotel priced in IRT; each is priced, charged, stated and booked in EUR. A partner in the
 * engine's currency is served as before on the same engine.
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
  expect(await ledgerDiscrepancies(stack.db)).toEqual([]);
});
afterAll(async () => {
  await stack?.close();
  await standIn?.stop();
});

type Traveller = components['schemas']['FlightBookingRequest']['traveler_info']['air_travelers'][number];
type Guest = components['schemas']['HotelBookRequest']['guests'][number][number];

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
/** 1.17 EUR per GBP; 0.00002 EUR per IRT (50,000 IRT per EUR). */
const GBP_EUR = { amount: 117, scale: 2 };
const IRT_EUR = { amount: 2, scale: 5 };
const setRate = (from: string, to: string, rate: string) => call(stack.admin, 'POST', '/admin/fx', auth, { from, to, rate });

const createPartner = (body: Record<string, unknown>) => call(stack.admin, 'POST', '/admin/partners', auth, { name: 'Euro Travel', ...body });
async function partnerIn(currency: string | undefined, topup: string) {
  const res = await createPartner({ topup, ...(currency ? { currency } : {}) });
  expect(res.status).toBe(201);
  const creds = res.body;
  return { creds, api: partnerClient(stack, creds), client: typedPartner(stack, creds), agency: typedAgency(stack, creds) };
}

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
const iranian: Guest = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' };
const flightSearch = {
  origin: 'LHR',
  destination: 'IST',
  departure_date_time: `${day(40)}T00:00:00Z`,
  adult_count: 1,
  cabin_type: 'economy' as const,
  air_trip_type: 'one_way' as const,
};
const hotelSearch = { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 };

const ordersOf = (partnerId: number) => stack.db.select().from(orders).where(eq(orders.partnerId, partnerId));
const orderRow = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!;

describe('a wallet in the agency’s own currency', () => {
  it('refuses a currency the engine does not know or whose minor units are not two, and writes nothing', async () => {
    const before = (await stack.db.select({ id: partners.id }).from(partners)).length;
    for (const [currency, why] of [
      ['XYZ', /currency.*XYZ is not an ISO 4217 currency/],
      ['JPY', /currency.*JPY has 0 minor digits; a wallet keeps 2/],
      ['KWD', /currency.*KWD has 3 minor digits; a wallet keeps 2/],
      ['eur', /currency.*three-letter currency code in capitals/],
      ['', /currency.*three-letter currency code/],
    ] as const) {
      const res = await createPartner({ currency, topup: '100' });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(why);
    }
    expect((await stack.db.select({ id: partners.id }).from(partners)).length).toBe(before);
    // A rate into a currency no wallet can be in is refused the same way.
    const fx = await setRate('GBP', 'JPY', '180');
    expect(fx.status).toBe(400);
    expect(JSON.stringify(fx.body)).toMatch(/to.*JPY has 0 minor digits/);
    // The CLI sends what the operator typed.
    expect(toCommand(['partner', 'create', '--name', 'Euro Travel', '--currency', 'EUR']).command.body).toMatchObject({ currency: 'EUR' });
    expect(toCommand(['fx', 'set', '--from', 'GBP', '--to', 'EUR', '--rate', '1.17']).command.body).toEqual({ from: 'GBP', to: 'EUR', rate: '1.17' });
  });

  it('sells a Duffel flight in GBP and a simulator hotel to a EUR wallet in EUR; a partner in IRT is served as before', async () => {
    expect((await setIrtRate(stack, 'GBP', GBP_RATE)).status).toBe(201);
    const euro = await partnerIn('EUR', '10000');
    const rial = await partnerIn(undefined, '900000000');
    expect(await euro.api.wallet()).toMatchObject({ balance: '10000.00', currency: 'EUR' });
    expect(await rial.api.wallet()).toMatchObject({ currency: 'IRT' });

    // No GBP→EUR rate yet: the EUR wallet is refused, naming the pair; the IRT one is priced as before.
    const refused = await euro.client.POST('/flights/search_flights/', { body: flightSearch });
    expect(refused.response.status).toBe(409);
    expect(JSON.stringify(refused.error)).toMatch(/no exchange rate for GBP to EUR/);
    const inRial = await rial.client.POST('/flights/search_flights/', { body: flightSearch });
    expect(inRial.response.status).toBe(200);
    for (const r of inRial.data!.data.results) {
      expect(r.currency).toBe('IRT');
      expect(minor(r.total_price) % GBP_RATE).toBe(0);
    }

    expect((await setRate('GBP', 'EUR', '1.17')).status).toBe(201);
    const listed = await call(stack.admin, 'GET', '/admin/fx', auth);
    expect(listed.body.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ currency: 'GBP', wallet_currency: 'IRT' }),
        expect.objectContaining({ currency: 'GBP', wallet_currency: 'EUR', rate: '1.17' }),
      ]),
    );

    // The flight: searched, revalidated, booked and paid in EUR; the airline is paid in GBP.
    const offers = await euro.client.POST('/flights/search_flights/', { body: flightSearch });
    expect(offers.response.status).toBe(200);
    const fare = offers.data!.data.results[0]!;
    expect(fare.currency).toBe('EUR');
    // A code sealed for the EUR wallet fixes nothing for the IRT one: it prices it in IRT.
    const elsewhere = await rial.client.POST('/flights/revalidate_flight/', { body: { fare_source_code: fare.fare_source_code } });
    expect(elsewhere.data?.data).toMatchObject({ currency: 'IRT' });
    expect(minor(elsewhere.data!.data.total_price) % GBP_RATE).toBe(0);
    const fixed = await euro.client.POST('/flights/revalidate_flight/', { body: { fare_source_code: fare.fare_source_code } });
    expect(fixed.data?.data).toMatchObject({ currency: 'EUR', total_price: fare.total_price, price_changed: false });
    const booked = await euro.client.POST('/flights/air_booking/', {
      body: { fare_source_code: fixed.data!.data.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
    });
    expect(booked.response.status).toBe(201);
    expect(booked.data?.data).toMatchObject({ currency: 'EUR', total_price: fare.total_price });
    const flight = await orderRow(booked.data!.data.id);
    expect(flight).toMatchObject({ currency: 'EUR', supplierCurrency: 'GBP', fxRateAmount: 117, fxRateScale: 2 });
    expect(flight.totalPrice).toBe(convert({ amountMinor: flight.supplierAmount!, from: 'GBP', to: 'EUR', rate: GBP_EUR }));
    const paidFlight = await euro.client.POST('/partners/pay/', { body: { order_id: flight.id, idempotency_key: `eur-flight-${flight.id}` } });
    expect(paidFlight.data?.data).toMatchObject({ order_status: 'completed' });
    expect(minor(settled(paidFlight)!.new_balance)).toBe(1_000_000 - flight.totalPrice);
    const [airBooking] = await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, flight.id));
    expect(standIn.control.payments(airBooking!.supplierBookingRef!)).toEqual([expect.objectContaining({ type: 'balance', currency: 'GBP' })]);

    // The hotel: the simulator prices in IRT; without an IRT→EUR rate the EUR wallet is refused.
    const noRate = await euro.client.POST('/hotel/search_hotels/', { body: hotelSearch });
    expect(noRate.response.status).toBe(409);
    expect(JSON.stringify(noRate.error)).toMatch(/IRT.*EUR/);
    expect((await setRate('IRT', 'EUR', '0.00002')).status).toBe(201);
    const hotels = await euro.client.POST('/hotel/search_hotels/', { body: hotelSearch });
    expect(hotels.response.status).toBe(200);
    const rate = hotels.data!.data.results[0]!.rates[0]!;
    expect(rate.currency).toBe('EUR');
    const rialHotels = await rial.client.POST('/hotel/search_hotels/', { body: hotelSearch });
    const rialRate = rialHotels.data!.data.results[0]!.rates.find((r) => r.room_name === rate.room_name && r.board === rate.board)!;
    expect(rialRate.currency).toBe('IRT');
    expect(minor(rate.total_price)).toBe(convert({ amountMinor: minor(rialRate.total_price), from: 'IRT', to: 'EUR', rate: IRT_EUR }));
    const held = await euro.client.POST('/hotel/book/', { body: { rate_key: rate.rate_key, guests: [[iranian]], contact } });
    expect(held.response.status).toBe(200);
    const ordered = await euro.client.POST('/hotel/order/', { body: { booking_id: held.data!.data.booking_id } });
    expect(ordered.data?.data).toMatchObject({ currency: 'EUR', total_price: rate.total_price });
    const hotel = await orderRow(ordered.data!.data.id);
    expect(hotel).toMatchObject({ currency: 'EUR', supplierCurrency: 'IRT' });
    const paidHotel = await euro.client.POST('/partners/pay/', { body: { order_id: hotel.id, idempotency_key: `eur-hotel-${hotel.id}` } });
    expect(paidHotel.data?.data).toMatchObject({ order_status: 'completed' });
    expect(await euro.api.wallet()).toMatchObject({ balance: ((1_000_000 - flight.totalPrice - hotel.totalPrice) / 100).toFixed(2), currency: 'EUR' });
    const cancelQuote = await euro.client.POST('/hotel/cancel_display/', { body: { order_id: hotel.id } });
    expect(cancelQuote.data?.data).toMatchObject({ currency: 'EUR' });

    // Interface B: searched and booked (held, charged, confirmed by its workflow) in EUR too.
    const bAuth = { authorization: `Bearer ${euro.creds.agency_key}` };
    const found = await call(stack.app, 'GET', `/v1/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}`, bAuth);
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.body)).toMatch(/"currency":"EUR"/);
    expect(JSON.stringify(found.body)).not.toMatch(/IRT/);
    const bHotel = found.body.results[0];
    const bBooked = await call(stack.app, 'POST', '/v1/hotels/bookings', bAuth, {
      hotel_id: bHotel.hotel_id,
      room_id: bHotel.rooms[0].room_id,
      guest_name: 'Sara Ahmadi',
      guest_email: 'sara@example.com',
      check_in: day(45),
      check_out: day(47),
    });
    expect(bBooked.status).toBe(201);
    expect(bBooked.body).toMatchObject({ status: 'active', currency: 'EUR', total_price: bHotel.rooms[0].total_price });
    const bOrder = (await ordersOf(euro.creds.partner_id)).find((o) => o.id !== flight.id && o.id !== hotel.id)!;
    expect(bOrder).toMatchObject({ currency: 'EUR', supplierCurrency: 'IRT', status: 'completed' });
    const spent = flight.totalPrice + hotel.totalPrice + bOrder.totalPrice;

    // The statement: every movement in EUR.
    const statement = await euro.api.get(`/api/partners/statements/?from=${day(0)}&to=${day(0)}`);
    expect(statement.status).toBe(200);
    expect(statement.body.data).toMatchObject({ currency: 'EUR', closing_balance: ((1_000_000 - spent) / 100).toFixed(2) });
    const payments = statement.body.data.movements.filter((m: { type: string }) => m.type === 'payment');
    const byAmount = (a: number, b: number) => a - b;
    expect(payments.map((m: { amount: string }) => minor(m.amount)).sort(byAmount)).toEqual(
      [flight.totalPrice, hotel.totalPrice, bOrder.totalPrice].sort(byAmount),
    );

    // The invoices: the flight's and the hotel's, in EUR, for what the wallet paid.
    for (const order of [flight, hotel]) {
      const listed = await euro.api.get(`/api/partners/orders/${order.id}/documents/`);
      expect(listed.status).toBe(200);
      const invoice = listed.body.data.documents.find((d: { kind: string; available: boolean }) => d.kind === 'invoice' && d.available);
      expect(invoice).toBeDefined();
      const pdf = await stack.app.request(`http://engine.test/api/partners/orders/${order.id}/documents/invoice.pdf`, {
        headers: { 'x-api-key': euro.creds.api_key, 'x-api-secret': euro.creds.api_secret },
      });
      expect(pdf.status).toBe(200);
      const { text } = await new PDFParse({ data: new Uint8Array(await pdf.arrayBuffer()) }).getText();
      const flat = text.replace(/\s+/g, ' ');
      expect(flat).toContain(`${(order.totalPrice / 100).toFixed(2)} EUR`);
      expect(flat).not.toMatch(/\bIRT\b|\bGBP\b/);
    }

    // The books: the wallet in EUR, each supplier owed in its own currency through the fx accounts, every currency balanced.
    const wallet = await stack.db
      .select()
      .from(accounts)
      .where(eq(accounts.code, `wallet:${euro.creds.partner_id}`));
    expect(wallet.map((a) => a.currency)).toEqual(['EUR']);
    const codes = (await stack.db.select({ code: accounts.code }).from(accounts)).map((a) => a.code);
    expect(codes).toEqual(expect.arrayContaining(['fx:EUR', 'fx:GBP', 'fx:IRT', 'supplier:duffel:GBP', 'supplier:simulator:IRT']));
    const { totals } = await trialBalance(stack.db, null);
    expect(totals.map((t) => t.currency)).toEqual(expect.arrayContaining(['EUR', 'GBP', 'IRT']));
    for (const t of totals) {
      expect(t.balanceMinor).toBe(0);
      expect(t.debitsMinor).toBe(t.creditsMinor);
    }
    const reconcile = await call(stack.admin, 'GET', '/admin/reconcile', auth);
    expect(reconcile.body.findings).toEqual([]);
  });

  it('refuses a EUR booking once the GBP→EUR rate is stale, with nothing charged', async () => {
    await setIrtRate(stack, 'GBP', GBP_RATE);
    expect((await setRate('GBP', 'EUR', '1.17')).status).toBe(201);
    const euro = await partnerIn('EUR', '10000');
    const offers = await euro.client.POST('/flights/search_flights/', { body: flightSearch });
    const fare = offers.data!.data.results[0]!;
    // The current GBP→EUR rate is now a day and a half old.
    await setRateRow(stack.db, { currency: 'GBP', walletCurrency: 'EUR', rate: '1.18', operator: 'test', now: new Date(Date.now() - 36 * 3_600_000) });
    const booked = await euro.client.POST('/flights/air_booking/', {
      body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [traveller] } },
    });
    expect(booked.response.status).toBe(409);
    expect(JSON.stringify(booked.error)).toMatch(/the GBP rate is 36 hours old.*cannot be given in EUR/);
    expect(await ordersOf(euro.creds.partner_id)).toEqual([]);
    const moved = await stack.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.partnerId, euro.creds.partner_id), inArray(ledgerEntries.type, ['payment', 'refund'])));
    expect(moved).toEqual([]);
    expect(await euro.api.wallet()).toMatchObject({ balance: '10000.00' });
    // The IRT partner is not touched by the EUR pair's staleness.
    const rial = await partnerIn(undefined, '900000000');
    expect((await rial.client.POST('/flights/search_flights/', { body: flightSearch })).response.status).toBe(200);
    expect((await setRate('GBP', 'EUR', '1.17')).status).toBe(201);
  });

  it('prices the engine’s own catalogue for a EUR wallet converted from IRT, and markups only in their own currency', async () => {
    expect((await setRate('IRT', 'EUR', '0.00002')).status).toBe(201);
    const euro = await partnerIn('EUR', '10000');
    const rial = await partnerIn(undefined, '900000000');
    const inRial = (await rial.api.get('/api/products/products/1/')).body.data;
    const inEuro = (await euro.api.get('/api/products/products/1/')).body.data;
    expect(inEuro.price).toBe((convert({ amountMinor: minor(inRial.price), from: 'IRT', to: 'EUR', rate: IRT_EUR }) / 100).toFixed(2));
    // A EUR rule of 2.50 fixed prices the EUR wallet alone.
    const rule = await call(stack.admin, 'POST', '/admin/markups', auth, { service: 'products', fixed: '2.50', currency: 'EUR' });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ currency: 'EUR', fixed: '2.50' });
    try {
      expect((await euro.api.get('/api/products/products/1/')).body.data.price).toBe(((minor(inEuro.price) + 250) / 100).toFixed(2));
      expect((await rial.api.get('/api/products/products/1/')).body.data.price).toBe(inRial.price);
      const order = await euro.api.productOrder({ product: 1 });
      expect(order).toMatchObject({ currency: 'EUR' });
      const row = await orderRow(order.id);
      expect(row).toMatchObject({ currency: 'EUR', margin: 250, pricingRuleId: rule.body.id });
      const paid = await euro.client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: `eur-product-${order.id}` } });
      expect(paid.data?.data).toMatchObject({ order_status: 'completed' });
      const margin = await stack.db.select().from(accounts).where(eq(accounts.code, 'margin:EUR'));
      expect(margin).toHaveLength(1);
    } finally {
      await call(stack.admin, 'DELETE', `/admin/markups/${rule.body.id}`, auth);
    }
    // A tour seat and a visa: the departure's price and the fees, converted once each as shown.
    const irtTour = (await rial.api.get('/api/tours/1/')).body.data;
    const eurTour = (await euro.api.get('/api/tours/1/')).body.data;
    const departure = eurTour.departures[0];
    expect(departure).toMatchObject({ currency: 'EUR' });
    const toEur = (irt: string) => convert({ amountMinor: minor(irt), from: 'IRT', to: 'EUR', rate: IRT_EUR });
    expect(minor(departure.prices.ADT)).toBe(toEur(irtTour.departures[0].prices.ADT));
    const prebook = await euro.api.post('/api/tours/prebook/', { tour_id: 1, departure_id: departure.id, passengers: [iranianTraveller] });
    expect(prebook.status).toBe(200);
    expect(prebook.body.data).toMatchObject({ currency: 'EUR', total_price: departure.prices.ADT });
    const visaInRial = await rial.api.post('/api/visa/request/', visaApplication(1));
    const visaInEuro = await euro.api.post('/api/visa/request/', visaApplication(1));
    expect(visaInEuro.status).toBe(201);
    expect(visaInEuro.body.data).toMatchObject({ currency: 'EUR', total_price: (toEur(visaInRial.body.data.total_price) / 100).toFixed(2) });

    // Interface B's products: listed and sold in EUR.
    const bAuth = { authorization: `Bearer ${euro.creds.agency_key}` };
    const esim = await call(stack.app, 'GET', '/v1/products/ESIM-TR-10GB-15D', bAuth);
    const esimInRial = await call(stack.app, 'GET', '/v1/products/ESIM-TR-10GB-15D', { authorization: `Bearer ${rial.creds.agency_key}` });
    expect(esim.body).toMatchObject({ currency: 'EUR', price: toEur(esimInRial.body.price.toFixed(2)) / 100 });
    const bOrder = await call(stack.app, 'POST', '/v1/products/orders', bAuth, {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 2,
      delivery_address: { street: 'Rue 1', city: 'Paris', country: 'FR', postal_code: '75001' },
    });
    expect(bOrder.status).toBe(201);
    expect(bOrder.body).toMatchObject({ currency: 'EUR', total_price: (2 * toEur(esimInRial.body.price.toFixed(2))) / 100 });

    // A stale IRT→EUR rate refuses the catalogue to the EUR wallet, 409, and not to the IRT one.
    await setRateRow(stack.db, { currency: 'IRT', walletCurrency: 'EUR', rate: '0.00002', operator: 'test', now: new Date(Date.now() - 36 * 3_600_000) });
    const stale = await euro.api.get('/api/products/products/1/');
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ ok: false });
    const noSeat = await euro.api.post('/api/tours/prebook/', { tour_id: 1, departure_id: departure.id, passengers: [iranianTraveller] });
    expect(noSeat.status).toBe(409);
    const onB = await call(stack.app, 'GET', '/v1/products', bAuth);
    expect(onB.status).toBe(409);
    expect(onB.body).toEqual({ detail: expect.stringMatching(/IRT rate is 36 hours old.*cannot be given in EUR/) });
    expect((await rial.api.get('/api/products/products/1/')).status).toBe(200);
    expect((await setRate('IRT', 'EUR', '0.00002')).status).toBe(201);
  });

  it('holds, sells and changes a villa stay for a EUR wallet in EUR, its nights converted one by one', async () => {
    expect((await setRate('IRT', 'EUR', '0.00002')).status).toBe(201);
    const euro = await partnerIn('EUR', '100000');
    const property = SEED_PROPERTIES.findIndex((p) => p.code === 'RS-RMSR-02') + 1;
    const detail = (await euro.api.get(`/api/residence/properties/detail/?property_id=${property}`)).body.data;
    expect(detail).toMatchObject({ currency: 'EUR' });
    const source = SEED_PROPERTIES[property - 1]!;
    const toEur = (irtMinor: number) => convert({ amountMinor: irtMinor, from: 'IRT', to: 'EUR', rate: IRT_EUR });
    const inEur = {
      nightlyPrice: toEur(source.nightly_price_minor),
      weekendPrice: toEur(source.weekend_price_minor),
      cleaningFee: toEur(source.cleaning_fee_minor),
    };
    expect(minor(detail.nightly_price)).toBe(inEur.nightlyPrice);
    const leadGuest = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' };
    const held = await euro.api.post('/api/residence/reserve/', {
      property_id: property,
      check_in: day(120),
      check_out: day(122),
      guests: 2,
      lead_guest: leadGuest,
    });
    expect(held.status).toBe(200);
    expect(held.body.data).toMatchObject({ currency: 'EUR' });
    expect(minor(held.body.data.total_price)).toBe(priceStay(inEur, day(120), day(122)).totalMinor);
    const order = await euro.api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
    expect(order.body.data).toMatchObject({ currency: 'EUR', total_price: held.body.data.total_price });
    const paid = await euro.api.post('/api/partners/pay/', { order_id: order.body.data.id, idempotency_key: `eur-stay-${order.body.data.id}` });
    expect(paid.body.data).toMatchObject({ order_status: 'completed' });
    const longer = await euro.api.post('/api/residence/bookings/modify/', {
      reservation_id: held.body.data.reservation_id,
      check_in: day(120),
      check_out: day(124),
      guests: 2,
    });
    expect(longer.status).toBe(200);
    expect(longer.body.data).toMatchObject({ currency: 'EUR' });
    expect(minor(longer.body.data.new_total)).toBe(priceStay(inEur, day(120), day(124)).totalMinor);
    expect(await euro.api.wallet()).toMatchObject({ balance: ((10_000_000 - minor(longer.body.data.new_total)) / 100).toFixed(2), currency: 'EUR' });
    const row = await orderRow(order.body.data.id);
    expect(row).toMatchObject({ currency: 'EUR', totalPrice: minor(longer.body.data.new_total), netPrice: minor(longer.body.data.new_total), margin: 0 });
  });
});
