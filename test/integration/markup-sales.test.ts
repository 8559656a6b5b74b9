import { and, eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { SEED_TOURS } from '../../src/db/seed/tours-data';
import { SEED_VISAS } from '../../src/db/seed/visa-data';
import { SEED_PROPERTIES } from '../../src/db/seed/residence-data';
import { call, newPartner } from '../support/clients';
import { contact, day, traveller, visaApplication } from '../support/fixtures';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/**
 * Sell prices: with a rule for a partner, every price it is shown carries the markup, its
 * paid order records net, margin and rule, and its wallet is debited the sell price; another
 * partner, under no rule, is shown the net (the same search, side by side).
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
/** 10% of net (half away from zero) + 5.00. */
const RULE = { percent: '10', fixed: '5' };
const sell = (netMinor: number) => netMinor + Math.round(netMinor / 10) + 500;

async function twoPartners(service: string) {
  const plain = await newPartner(stack, '0', '1000000000');
  const marked = await newPartner(stack, '0', '1000000000');
  const rule = await call(
    stack.admin,
    'POST',
    '/admin/markups',
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    { service, partner: marked.creds.partner_id, ...RULE },
  );
  expect(rule.status).toBe(201);
  return { plain, marked, ruleId: rule.body.id as number };
}

const orderRow = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!;
const debitOf = async (orderId: number) =>
  (
    await stack.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.direction, 'debit')))
  )[0]!.amount;

async function payAndCheck(api: Awaited<ReturnType<typeof newPartner>>['api'], orderId: number, netMinor: number, ruleId: number) {
  const paid = await api.post('/api/partners/pay/', { order_id: orderId, idempotency_key: `markup-${orderId}` });
  expect(paid.status).toBe(200);
  const row = await orderRow(orderId);
  expect(row).toMatchObject({ netPrice: netMinor, margin: sell(netMinor) - netMinor, totalPrice: sell(netMinor), pricingRuleId: ruleId });
  expect(await debitOf(orderId)).toBe(sell(netMinor));
  // Operators see the parts; the partner's order answer has none of them.
  const inspected = await call(stack.admin, 'GET', `/admin/orders/${orderId}`, { authorization: `Bearer ${ADMIN_TOKEN}` });
  expect(inspected.body.order.price_parts).toMatchObject({ pricing_rule_id: ruleId, margin: ((sell(netMinor) - netMinor) / 100).toFixed(2) });
  const partnerView = JSON.stringify((await api.get(`/api/partners/orders/${orderId}/`)).body);
  expect(partnerView).not.toMatch(/net|margin|pricing_rule/);
}

describe('hotels', () => {
  it('search, rate check and booking on Interface A carry the markup; the order records it', async () => {
    const { plain, marked, ruleId } = await twoPartners('hotels');
    const body = { check_in: day(45), check_out: day(47), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 };
    const [a, b] = [await plain.api.post('/api/hotel/search_hotels/', body), await marked.api.post('/api/hotel/search_hotels/', body)];
    const rateA = a.body.data.results[0].rates[0];
    const rateB = b.body.data.results[0].rates[0];
    expect(rateB.room_name).toBe(rateA.room_name);
    const net = minor(rateA.total_price);
    expect(minor(rateB.total_price)).toBe(sell(net));

    const checked = await marked.api.post('/api/hotel/check_rate/', { rate_key: rateB.rate_key });
    expect(minor(checked.body.data.total_price)).toBe(sell(net));
    const guests = [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' }]];
    const booked = await marked.api.post('/api/hotel/book/', { rate_key: checked.body.data.rate_key, guests, contact });
    expect(booked.status).toBe(200);
    expect(booked.body.data).toMatchObject({ price_changed: false });
    expect(minor(booked.body.data.total_price)).toBe(sell(net));
    const ordered = await marked.api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id });
    expect(ordered.status).toBe(201);
    await payAndCheck(marked.api, ordered.body.data.id, net, ruleId);
  });

  it("Interface B's search carries the markup", async () => {
    const { plain, marked } = await twoPartners('hotels');
    const q = `/v1/hotels/search?city=THR&check_in=${day(50)}&check_out=${day(52)}&guests=2`;
    const [a, b] = [
      await call(stack.app, 'GET', q, { authorization: `Bearer ${plain.creds.agency_key}` }),
      await call(stack.app, 'GET', q, { authorization: `Bearer ${marked.creds.agency_key}` }),
    ];
    expect(a.status).toBe(200);
    const roomA = a.body.results[0].rooms[0];
    const roomB = b.body.results[0].rooms[0];
    expect(roomB.room_id).toBe(roomA.room_id);
    expect(minor(roomB.total_price)).toBe(sell(minor(roomA.total_price)));
  });
});

describe('flights', () => {
  it('search, revalidation and booking carry the markup; the order records it', async () => {
    const { plain, marked, ruleId } = await twoPartners('flights');
    const body = {
      origin: 'THR',
      destination: 'MHD',
      departure_date_time: `${day(30)}T00:00:00Z`,
      adult_count: 1,
      cabin_type: 'economy',
      air_trip_type: 'one_way',
    };
    const [a, b] = [await plain.api.post('/api/flights/search_flights/', body), await marked.api.post('/api/flights/search_flights/', body)];
    const offerA = a.body.data.results[0];
    expect(b.body.data.results.map((o: { fare_family: string }) => o.fare_family)).toEqual(
      a.body.data.results.map((o: { fare_family: string }) => o.fare_family),
    );
    const offerB = b.body.data.results[0];
    const net = minor(offerA.total_price);
    expect(minor(offerB.total_price)).toBe(sell(net));

    const checked = await marked.api.post('/api/flights/revalidate_flight/', { fare_source_code: offerB.fare_source_code });
    expect(minor(checked.body.data.total_price)).toBe(sell(net));
    const booked = await marked.api.post('/api/flights/air_booking/', {
      fare_source_code: checked.body.data.fare_source_code,
      traveler_info: { contact, air_travelers: [traveller] },
    });
    expect(booked.status).toBe(201);
    await payAndCheck(marked.api, booked.body.data.id, net, ruleId);
  });
});

describe('products', () => {
  it('catalogue, basket and checkout on Interface A carry the markup per unit; the order records it', async () => {
    const { plain, marked, ruleId } = await twoPartners('products');
    const [a, b] = [await plain.api.get('/api/products/products/1/'), await marked.api.get('/api/products/products/1/')];
    const unit = minor(a.body.data.variants[0].price);
    expect(minor(b.body.data.variants[0].price)).toBe(sell(unit));
    const added = await marked.api.post('/api/products/basket/items/', { product: 1, variant: a.body.data.variants[0].id, quantity: 2 });
    expect(minor(added.body.data.item.unit_price)).toBe(sell(unit));
    const order = await marked.api.post('/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' });
    expect(order.status).toBe(201);
    expect(minor(order.body.data.total_price_irt)).toBe(2 * sell(unit));
    const paid = await marked.api.post('/api/partners/pay/', { product_order_id: order.body.data.id, idempotency_key: `p-${order.body.data.id}` });
    expect(paid.status).toBe(200);
    expect(await orderRow(order.body.data.id)).toMatchObject({ netPrice: 2 * unit, margin: 2 * (sell(unit) - unit), pricingRuleId: ruleId });
    expect(await debitOf(order.body.data.id)).toBe(2 * sell(unit));
  });

  it('Interface B lists and orders at the marked-up price', async () => {
    const { plain, marked, ruleId } = await twoPartners('products');
    const auth = (k: string) => ({ authorization: `Bearer ${k}` });
    const [a, b] = [
      await call(stack.app, 'GET', '/v1/products', auth(plain.creds.agency_key)),
      await call(stack.app, 'GET', '/v1/products', auth(marked.creds.agency_key)),
    ];
    const item = a.body.results.find((p: { in_stock: boolean }) => p.in_stock);
    const unit = minor(item.price);
    expect(minor(b.body.results.find((p: { product_id: string }) => p.product_id === item.product_id).price)).toBe(sell(unit));
    const placed = await call(stack.app, 'POST', '/v1/products/orders', auth(marked.creds.agency_key), {
      product_id: item.product_id,
      quantity: 1,
      delivery_address: { street: '1 Valiasr', city: 'Tehran', country: 'IR', postal_code: '1234567890' },
    });
    expect(placed.status).toBe(201);
    expect(minor(placed.body.total_price)).toBe(sell(unit));
    const row = await orderRow(Number(placed.body.order_id));
    expect(row).toMatchObject({ netPrice: unit, margin: sell(unit) - unit, pricingRuleId: ruleId });
    expect(await debitOf(row.id)).toBe(sell(unit));
  });
});

describe('tours, visas and villas', () => {
  it('tours: departures show each passenger at the marked-up price; the order records it', async () => {
    const { plain, marked, ruleId } = await twoPartners('tours');
    const id = SEED_TOURS.findIndex((t) => t.code === 'TR-IST-5D') + 1;
    const [a, b] = [await plain.api.get(`/api/tours/${id}/`), await marked.api.get(`/api/tours/${id}/`)];
    const dep = a.body.data.departures[0];
    const adultNet = minor(dep.prices.ADT);
    expect(minor(b.body.data.departures[0].prices.ADT)).toBe(sell(adultNet));
    const passenger = {
      first_name: 'Reza',
      last_name: 'Karimi',
      birth_date: '1985-04-12',
      gender: 'male',
      passenger_type: 'ADT',
      nationality: 'IR',
      national_id: '0012345679',
    };
    const pre = await marked.api.post('/api/tours/prebook/', { tour_id: id, departure_id: dep.id, passengers: [passenger] });
    expect(pre.status).toBe(200);
    expect(minor(pre.body.data.total_price)).toBe(sell(adultNet));
    const order = await marked.api.post('/api/tours/finalize/', { prebook_id: pre.body.data.prebook_id });
    expect(order.status).toBe(201);
    await payAndCheck(marked.api, order.body.data.id, adultNet, ruleId);
  });

  it('visas: the price and the service fee carry the markup; the order records it', async () => {
    const { plain, marked, ruleId } = await twoPartners('visa');
    const visa = SEED_VISAS.find((v) => v.max_stay_days >= 7)!;
    const id = SEED_VISAS.indexOf(visa) + 1;
    const [a, b] = [await plain.api.get(`/api/visa/${id}/`), await marked.api.get(`/api/visa/${id}/`)];
    const net = minor(a.body.data.price);
    expect(minor(b.body.data.price)).toBe(sell(net));
    expect(minor(b.body.data.service_fee) + minor(b.body.data.government_fee)).toBe(sell(net));
    expect(b.body.data.government_fee).toBe(a.body.data.government_fee);
    const req = await marked.api.post('/api/visa/request/', visaApplication(id));
    expect(req.status).toBe(201);
    expect(minor(req.body.data.total_price)).toBe(sell(net));
    await payAndCheck(marked.api, req.body.data.id, net, ruleId);
  });

  it('villas: nightly prices and cleaning fee carry the markup; the stay is priced with them and recorded', async () => {
    const { plain, marked, ruleId } = await twoPartners('residence');
    const property = SEED_PROPERTIES.findIndex((p) => p.code === 'RS-RMSR-02') + 1;
    const [a, b] = [
      await plain.api.get(`/api/residence/properties/detail/?property_id=${property}`),
      await marked.api.get(`/api/residence/properties/detail/?property_id=${property}`),
    ];
    for (const field of ['nightly_price', 'weekend_price', 'cleaning_fee']) expect(minor(b.body.data[field])).toBe(sell(minor(a.body.data[field])));
    const reserve = {
      property_id: property,
      check_in: day(70),
      check_out: day(71),
      guests: 2,
      lead_guest: { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679', phone_number: '+989121234567' },
    };
    const held = await marked.api.post('/api/residence/reserve/', reserve);
    expect(held.status).toBe(200);
    const night = new Date(`${day(70)}T00:00:00Z`).getUTCDay();
    const rate = [4, 5].includes(night) ? 'weekend_price' : 'nightly_price';
    const net = minor(a.body.data[rate]) + minor(a.body.data.cleaning_fee);
    const total = sell(minor(a.body.data[rate])) + sell(minor(a.body.data.cleaning_fee));
    expect(minor(held.body.data.total_price)).toBe(total);
    const order = await marked.api.post('/api/residence/reserve/book/', { reservation_id: held.body.data.reservation_id });
    expect(order.status).toBe(201);
    const paid = await marked.api.post('/api/partners/pay/', { order_id: order.body.data.id, idempotency_key: `v-${order.body.data.id}` });
    expect(paid.status).toBe(200);
    expect(await orderRow(order.body.data.id)).toMatchObject({ netPrice: net, margin: total - net, totalPrice: total, pricingRuleId: ruleId });
    expect(await debitOf(order.body.data.id)).toBe(total);

    // A stay change re-prices with the rule that priced the order, even once it is removed.
    expect((await call(stack.admin, 'DELETE', `/admin/markups/${ruleId}`, { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(200);
    const nights = [70, 71, 72].map((d) => ([4, 5].includes(new Date(`${day(d)}T00:00:00Z`).getUTCDay()) ? 'weekend_price' : 'nightly_price'));
    const longerNet = nights.reduce((n, r) => n + minor(a.body.data[r]), minor(a.body.data.cleaning_fee));
    const longerTotal = nights.reduce((n, r) => n + sell(minor(a.body.data[r])), sell(minor(a.body.data.cleaning_fee)));
    const changed = await marked.api.post('/api/residence/bookings/modify/', {
      reservation_id: held.body.data.reservation_id,
      check_in: day(70),
      check_out: day(73),
      guests: 2,
    });
    expect(changed.status).toBe(200);
    expect(minor(changed.body.data.new_total)).toBe(longerTotal);
    expect(await orderRow(order.body.data.id)).toMatchObject({
      netPrice: longerNet,
      margin: longerTotal - longerNet,
      totalPrice: longerTotal,
      pricingRuleId: ruleId,
    });
  });
});
