import { eq } from 'drizzle-orm';
import { orders, tourDepartures, tourPrebooks } from '../../src/db/schema';
import { SEED_TOURS } from '../../src/db/seed/tours-data';
import { newPartner as partnerWithWallet, type partnerClient } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilOrderStatus } from '../support/order-status';
import { startStack, type TestStack, useStack } from '../support/stack';

/** Tours on Interface A (spec §4.5): browse, search options, prebook (seats held), finalize, pay. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type Api = ReturnType<typeof partnerClient>;
const newPartner = () => partnerWithWallet(stack, '0', '1000000000');
const tourId = (code: string) => SEED_TOURS.findIndex((t) => t.code === code) + 1;

const adult = {
  first_name: 'Reza',
  last_name: 'Karimi',
  birth_date: '1985-04-12',
  gender: 'male',
  passenger_type: 'ADT',
  nationality: 'IR',
  national_id: '0012345679',
};
const childOn = (start: string) => ({
  ...adult,
  first_name: 'Sara',
  birth_date: `${Number(start.slice(0, 4)) - 8}${start.slice(4)}`,
  passenger_type: 'CHD',
  gender: 'female',
});
const infantOn = (start: string) => ({ ...adult, first_name: 'Ali', birth_date: `${Number(start.slice(0, 4)) - 1}${start.slice(4)}`, passenger_type: 'INF' });

async function departureOf(api: Api, code: string, index = 0) {
  const res = await api.get(`/api/tours/${tourId(code)}/`);
  expect(res.status).toBe(200);
  return res.body.data.departures[index];
}
const seatsTaken = async (departureId: number) => (await stack.db.select().from(tourDepartures).where(eq(tourDepartures.id, departureId)))[0]!.seatsTaken;

describe('browse', () => {
  it('lists tours (15 a page) and filters them as search-options says', async () => {
    const { api } = await newPartner();
    const all = await api.get('/api/tours/');
    expect(all.status).toBe(200);
    expect(all.body.data.total_count).toBe(SEED_TOURS.length);
    expect(all.body.data.results[0]).toMatchObject({
      id: 1,
      code: SEED_TOURS[0]!.code,
      price_from: expect.stringMatching(/^\d+\.\d{2}$/),
      next_departure: expect.any(String),
    });

    const options = await api.get('/api/tours/search-options/');
    expect(options.body.data.categories).toEqual(expect.arrayContaining(['cultural', 'pilgrimage', 'beach']));
    expect(options.body.data.months.length).toBeGreaterThan(0);

    const pilgrimage = await api.get('/api/tours/?category=pilgrimage');
    expect(pilgrimage.body.data.results.map((t: { category: string }) => t.category)).toEqual(Array(pilgrimage.body.data.total_count).fill('pilgrimage'));
    const istanbul = await api.get('/api/tours/?destination=istanbul');
    expect(istanbul.body.data.results.every((t: { destination_city: string }) => t.destination_city === 'Istanbul')).toBe(true);
    const month = options.body.data.months[0];
    const inMonth = await api.get(`/api/tours/?month=${month}`);
    expect(inMonth.body.data.total_count).toBeGreaterThan(0);
    const short = await api.get('/api/tours/?max_duration=4');
    expect(short.body.data.results.every((t: { duration_days: number }) => t.duration_days <= 4)).toBe(true);
    const cheap = await api.get('/api/tours/?max_price=20000000');
    expect(cheap.body.data.results.every((t: { price_from: string }) => Number(t.price_from) <= 20_000_000)).toBe(true);
    expect((await api.get('/api/tours/?month=2027-13')).status).toBe(400);
    expect((await api.get('/api/tours/?min_price=abc')).status).toBe(400);
  });

  it('shows a tour with its itinerary and departures, and 404 for an unknown one', async () => {
    const { api } = await newPartner();
    const res = await api.get(`/api/tours/${tourId('TR-EVN-5D')}/`);
    expect(res.body.data).toMatchObject({ code: 'TR-EVN-5D', itinerary: expect.any(Array), includes: expect.any(Array) });
    expect(res.body.data.itinerary).toHaveLength(res.body.data.duration_days);
    expect(res.body.data.departures[0]).toMatchObject({
      seats_left: expect.any(Number),
      prices: { ADT: expect.any(String), CHD: expect.any(String), INF: expect.any(String) },
    });
    expect((await api.get('/api/tours/9999/')).status).toBe(404);
  });
});

describe('prebook, finalize, pay', () => {
  it('holds seats, creates the order, and confirms with the operator when paid', async () => {
    const { api } = await newPartner();
    const dep = await departureOf(api, 'TR-IST-5D');
    const before = dep.seats_left;
    const passengers = [adult, { ...adult, first_name: 'Mina', gender: 'female' }, childOn(dep.start_date), infantOn(dep.start_date)];
    const pre = await api.post('/api/tours/prebook/', { tour_id: tourId('TR-IST-5D'), departure_id: dep.id, passengers });
    expect(pre.status).toBe(200);
    const expected = 2 * Number(dep.prices.ADT) + Number(dep.prices.CHD) + Number(dep.prices.INF);
    expect(pre.body.data).toMatchObject({ status: 'held', seats: 3, departure_id: dep.id });
    expect(Number(pre.body.data.total_price)).toBeCloseTo(expected, 2);
    expect((await departureOf(api, 'TR-IST-5D')).seats_left).toBe(before - 3);

    const order = await api.post('/api/tours/finalize/', { prebook_id: pre.body.data.prebook_id });
    expect(order.status).toBe(201);
    expect(order.body.data).toMatchObject({ service: 'tour', status: 'pending', total_price: pre.body.data.total_price });
    expect((await api.post('/api/tours/finalize/', { prebook_id: pre.body.data.prebook_id })).status).toBe(400);

    const paid = await api.post('/api/partners/pay/', { order_id: order.body.data.id, idempotency_key: `tour-${order.body.data.id}` });
    expect(paid.status).toBe(200);
    expect(paid.body.data.order_status).toBe('completed');
    expect(Math.round(paid.body.data.new_balance * 100)).toBe(1_000_000_000 * 100 - Math.round(expected * 100));
    const listed = (await api.get('/api/partners/orders/')).body.data.results[0];
    expect(listed).toMatchObject({ id: order.body.data.id, service: 'tour', status: 'completed', supplier_ref: expect.stringMatching(/^TOUR-/) });
    expect((await departureOf(api, 'TR-IST-5D')).seats_left).toBe(before - 3);
    expect(await eventTypesOf(api, order.body.data.id)).toEqual(['order.processing', 'order.completed']);
    const partnerId = (await stack.db.select().from(orders).where(eq(orders.id, order.body.data.id)))[0]!.partnerId;
    await recordHistory(stack, `pay:p${partnerId}:key:tour-${order.body.data.id}`, 'tour-pay');
    // The prebook's hold reference is the id of the workflow that placed it.
    const [held] = await stack.db.select().from(tourPrebooks).where(eq(tourPrebooks.id, pre.body.data.prebook_id));
    await recordHistory(stack, held!.holdRef, 'tour-prebook');
  });

  it('sells the last seats once when two partners prebook them at the same time', async () => {
    const [{ api: a }, { api: b }] = await Promise.all([newPartner(), newPartner()]);
    const dep = await departureOf(a, 'TR-EVN-5D');
    expect(dep.capacity).toBe(2);
    const body = { tour_id: tourId('TR-EVN-5D'), departure_id: dep.id, passengers: [adult, { ...adult, first_name: 'Mina' }] };
    const replies = await Promise.all([a.post('/api/tours/prebook/', body), b.post('/api/tours/prebook/', body)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.status === 400)!.body.error).toMatch(/not enough seats/);
    expect(await seatsTaken(dep.id)).toBe(2);
  });

  it.each([
    [(start: string) => [{ ...childOn(start), passenger_type: 'ADT' }], /^passengers\.0\.passenger_type: a traveller aged 8/],
    [(start: string) => [childOn(start)], /^passengers: at least one adult/],
    [(start: string) => [adult, infantOn(start), infantOn(start)], /^passengers: at most one infant per adult/],
    [() => [{ ...adult, national_id: '1234567890' }], /^passengers\.0\.national_id: /],
  ])('refuses bad passengers with 400 and holds nothing (%#)', async (make, message) => {
    const { api } = await newPartner();
    const dep = await departureOf(api, 'TR-SYZ-4D');
    const res = await api.post('/api/tours/prebook/', { tour_id: tourId('TR-SYZ-4D'), departure_id: dep.id, passengers: make(dep.start_date) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await seatsTaken(dep.id)).toBe(0);
  });

  it('refuses a departure of another tour, and hides other partners’ prebooks', async () => {
    const { api } = await newPartner();
    const { api: other } = await newPartner();
    const dep = await departureOf(api, 'TR-SYZ-4D');
    const wrong = await api.post('/api/tours/prebook/', { tour_id: tourId('TR-IST-5D'), departure_id: dep.id, passengers: [adult] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/^departure_id: /);
    const pre = await api.post('/api/tours/prebook/', { tour_id: tourId('TR-SYZ-4D'), departure_id: dep.id, passengers: [adult] });
    expect((await other.post('/api/tours/finalize/', { prebook_id: pre.body.data.prebook_id })).status).toBe(404);
  });
});

describe('hold expiry', () => {
  it('gives the seats back when a prebook is not paid in time; its order expires and cannot be paid', async () => {
    const short = await startStack({ tourPrebookMs: 2000 });
    try {
      const { api } = await partnerWithWallet(short, '0', '1000000000');
      const tour = await api.get(`/api/tours/${tourId('TR-MHD-3D')}/`);
      const dep = tour.body.data.departures[0];
      const pre = await api.post('/api/tours/prebook/', { tour_id: tourId('TR-MHD-3D'), departure_id: dep.id, passengers: [adult] });
      const order = await api.post('/api/tours/finalize/', { prebook_id: pre.body.data.prebook_id });
      expect(order.status).toBe(201);
      await untilOrderStatus(short.db, order.body.data.id, 'expired');
      expect((await api.get(`/api/tours/${tourId('TR-MHD-3D')}/`)).body.data.departures[0].seats_left).toBe(dep.seats_left);
      const pay = await api.post('/api/partners/pay/', { order_id: order.body.data.id });
      expect(pay.status).toBe(400);
      expect(pay.body.error).toMatch(/expired/);
      expect(await eventTypesOf(api, order.body.data.id)).toEqual(['order.expired']);
      await recordHistory(short, `tour-prebook-expiry:p${pre.body.data.prebook_id}`, 'tour-prebook-expiry');
    } finally {
      await short.close();
    }
  });
});
