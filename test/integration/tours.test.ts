import { eq } from 'drizzle-orm';
import { orders, tourDepartures, tourPrebooks } from '../../src/db/schema';
import { SEED_TOURS } from '../../src/db/seed/tours-data';
import type { PartnerClient } from '../../src/client';
import type { components } from '../../src/client/partner-api';
import { newPartner as partnerWithWallet, settled } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilOrderStatus } from '../support/order-status';
import { startStack, type TestStack, useStack } from '../support/stack';

/** Tours on Interface A (spec §4.5): browse, search options, prebook (seats held), finalize, pay. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

type Passenger = components['schemas']['TourPrebookRequest']['passengers'][number];
const newPartner = () => partnerWithWallet(stack, '0', '1000000000');
const tourId = (code: string) => SEED_TOURS.findIndex((t) => t.code === code) + 1;

const adult: Passenger = {
  first_name: 'Reza',
  last_name: 'Karimi',
  birth_date: '1985-04-12',
  gender: 'male',
  passenger_type: 'ADT',
  nationality: 'IR',
  national_id: '0012345679',
};
const childOn = (start: string): Passenger => ({
  ...adult,
  first_name: 'Sara',
  birth_date: `${Number(start.slice(0, 4)) - 8}${start.slice(4)}`,
  passenger_type: 'CHD',
  gender: 'female',
});
const infantOn = (start: string): Passenger => ({
  ...adult,
  first_name: 'Ali',
  birth_date: `${Number(start.slice(0, 4)) - 1}${start.slice(4)}`,
  passenger_type: 'INF',
});

async function departureOf(client: PartnerClient, code: string, index = 0) {
  const res = await client.GET('/tours/{id}/', { params: { path: { id: String(tourId(code)) } } });
  expect(res.response.status).toBe(200);
  return res.data!.data.departures[index]!;
}
const seatsTaken = async (departureId: number) => (await stack.db.select().from(tourDepartures).where(eq(tourDepartures.id, departureId)))[0]!.seatsTaken;

describe('browse', () => {
  it('lists tours (15 a page) and filters them as search-options says', async () => {
    const { api: raw, client } = await newPartner();
    const all = await client.GET('/tours/');
    expect(all.response.status).toBe(200);
    expect(all.data?.data.total_count).toBe(SEED_TOURS.length);
    expect(all.data?.data.results[0]).toMatchObject({
      id: 1,
      code: SEED_TOURS[0]!.code,
      price_from: expect.stringMatching(/^\d+\.\d{2}$/),
      next_departure: expect.any(String),
    });

    const options = await client.GET('/tours/search-options/');
    expect(options.data?.data.categories).toEqual(expect.arrayContaining(['cultural', 'pilgrimage', 'beach']));
    expect(options.data?.data.months.length).toBeGreaterThan(0);

    const pilgrimage = await client.GET('/tours/', { params: { query: { category: 'pilgrimage' } } });
    expect(pilgrimage.data?.data.results.map((t) => t.category)).toEqual(Array(pilgrimage.data?.data.total_count).fill('pilgrimage'));
    const istanbul = await client.GET('/tours/', { params: { query: { destination: 'istanbul' } } });
    expect(istanbul.data?.data.results.every((t) => t.destination_city === 'Istanbul')).toBe(true);
    const month = options.data!.data.months[0];
    const inMonth = await client.GET('/tours/', { params: { query: { month } } });
    expect(inMonth.data?.data.total_count).toBeGreaterThan(0);
    const short = await client.GET('/tours/', { params: { query: { max_duration: 4 } } });
    expect(short.data?.data.results.every((t) => t.duration_days <= 4)).toBe(true);
    const cheap = await client.GET('/tours/', { params: { query: { max_price: '20000000' } } });
    expect(cheap.data?.data.results.every((t) => Number(t.price_from) <= 20_000_000)).toBe(true);
    // Raw: query values the contract refuses, sent as is.
    expect((await raw.get('/api/tours/?month=2027-13')).status).toBe(400);
    expect((await raw.get('/api/tours/?min_price=abc')).status).toBe(400);
  });

  it('shows a tour with its itinerary and departures, and 404 for an unknown one', async () => {
    const { client } = await newPartner();
    const res = await client.GET('/tours/{id}/', { params: { path: { id: String(tourId('TR-EVN-5D')) } } });
    expect(res.data?.data).toMatchObject({ code: 'TR-EVN-5D', itinerary: expect.any(Array), includes: expect.any(Array) });
    expect(res.data?.data.itinerary).toHaveLength(res.data!.data.duration_days);
    expect(res.data?.data.departures[0]).toMatchObject({
      seats_left: expect.any(Number),
      prices: { ADT: expect.any(String), CHD: expect.any(String), INF: expect.any(String) },
    });
    expect((await client.GET('/tours/{id}/', { params: { path: { id: '9999' } } })).response.status).toBe(404);
  });
});

describe('prebook, finalize, pay', () => {
  it('holds seats, creates the order, and confirms with the operator when paid', async () => {
    const { api, client } = await newPartner();
    const dep = await departureOf(client, 'TR-IST-5D');
    const before = dep.seats_left;
    const passengers: Passenger[] = [adult, { ...adult, first_name: 'Mina', gender: 'female' }, childOn(dep.start_date), infantOn(dep.start_date)];
    const pre = await client.POST('/tours/prebook/', { body: { tour_id: tourId('TR-IST-5D'), departure_id: dep.id, passengers } });
    expect(pre.response.status).toBe(200);
    const expected = 2 * Number(dep.prices.ADT) + Number(dep.prices.CHD) + Number(dep.prices.INF);
    expect(pre.data?.data).toMatchObject({ status: 'held', seats: 3, departure_id: dep.id });
    expect(Number(pre.data?.data.total_price)).toBeCloseTo(expected, 2);
    expect((await departureOf(client, 'TR-IST-5D')).seats_left).toBe(before - 3);

    const order = await client.POST('/tours/finalize/', { body: { prebook_id: pre.data!.data.prebook_id } });
    expect(order.response.status).toBe(201);
    expect(order.data?.data).toMatchObject({ service: 'tour', status: 'pending', total_price: pre.data?.data.total_price });
    expect((await client.POST('/tours/finalize/', { body: { prebook_id: pre.data!.data.prebook_id } })).response.status).toBe(400);

    const paid = await client.POST('/partners/pay/', { body: { order_id: order.data!.data.id, idempotency_key: `tour-${order.data!.data.id}` } });
    expect(paid.response.status).toBe(200);
    expect(paid.data?.data.order_status).toBe('completed');
    expect(Math.round(settled(paid)!.new_balance * 100)).toBe(1_000_000_000 * 100 - Math.round(expected * 100));
    const listed = (await client.GET('/partners/orders/')).data!.data.results[0];
    expect(listed).toMatchObject({ id: order.data!.data.id, service: 'tour', status: 'completed', supplier_ref: expect.stringMatching(/^TOUR-/) });
    expect((await departureOf(client, 'TR-IST-5D')).seats_left).toBe(before - 3);
    expect(await eventTypesOf(api, order.data!.data.id)).toEqual(['order.processing', 'order.completed']);
    const partnerId = (await stack.db.select().from(orders).where(eq(orders.id, order.data!.data.id)))[0]!.partnerId;
    await recordHistory(stack, `pay:p${partnerId}:key:tour-${order.data!.data.id}`, 'tour-pay');
    // The prebook's hold reference is the id of the workflow that placed it.
    const [held] = await stack.db.select().from(tourPrebooks).where(eq(tourPrebooks.id, pre.data!.data.prebook_id));
    await recordHistory(stack, held!.holdRef, 'tour-prebook');
  });

  it('sells the last seats once when two partners prebook them at the same time', async () => {
    const [{ client: a }, { client: b }] = await Promise.all([newPartner(), newPartner()]);
    const dep = await departureOf(a, 'TR-EVN-5D');
    expect(dep.capacity).toBe(2);
    const body = { tour_id: tourId('TR-EVN-5D'), departure_id: dep.id, passengers: [adult, { ...adult, first_name: 'Mina' }] };
    const replies = await Promise.all([a.POST('/tours/prebook/', { body }), b.POST('/tours/prebook/', { body })]);
    expect(replies.map((r) => r.response.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.response.status === 400)!.error?.error).toMatch(/not enough seats/);
    expect(await seatsTaken(dep.id)).toBe(2);
  });

  it.each([
    [(start: string) => [{ ...childOn(start), passenger_type: 'ADT' }], /^passengers\.0\.passenger_type: a traveller aged 8/],
    [(start: string) => [childOn(start)], /^passengers: at least one adult/],
    [(start: string) => [adult, infantOn(start), infantOn(start)], /^passengers: at most one infant per adult/],
    [() => [{ ...adult, national_id: '1234567890' }], /^passengers\.0\.national_id: /],
  ])('refuses bad passengers with 400 and holds nothing (%#)', async (make, message) => {
    // Raw: passengers the contract refuses, sent as is.
    const { api: raw, client } = await newPartner();
    const dep = await departureOf(client, 'TR-SYZ-4D');
    const res = await raw.post('/api/tours/prebook/', { tour_id: tourId('TR-SYZ-4D'), departure_id: dep.id, passengers: make(dep.start_date) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await seatsTaken(dep.id)).toBe(0);
  });

  it('refuses a departure of another tour, and hides other partners’ prebooks', async () => {
    const { client } = await newPartner();
    const { client: other } = await newPartner();
    const dep = await departureOf(client, 'TR-SYZ-4D');
    const wrong = await client.POST('/tours/prebook/', { body: { tour_id: tourId('TR-IST-5D'), departure_id: dep.id, passengers: [adult] } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error?.error).toMatch(/^departure_id: /);
    const pre = await client.POST('/tours/prebook/', { body: { tour_id: tourId('TR-SYZ-4D'), departure_id: dep.id, passengers: [adult] } });
    expect((await other.POST('/tours/finalize/', { body: { prebook_id: pre.data!.data.prebook_id } })).response.status).toBe(404);
  });
});

describe('hold expiry', () => {
  it('gives the seats back when a prebook is not paid in time; its order expires and cannot be paid', async () => {
    const short = await startStack({ tourPrebookMs: 2000 });
    try {
      const { api, client } = await partnerWithWallet(short, '0', '1000000000');
      const tour = await client.GET('/tours/{id}/', { params: { path: { id: String(tourId('TR-MHD-3D')) } } });
      const dep = tour.data!.data.departures[0]!;
      const pre = await client.POST('/tours/prebook/', { body: { tour_id: tourId('TR-MHD-3D'), departure_id: dep.id, passengers: [adult] } });
      const order = await client.POST('/tours/finalize/', { body: { prebook_id: pre.data!.data.prebook_id } });
      expect(order.response.status).toBe(201);
      await untilOrderStatus(short.db, order.data!.data.id, 'expired');
      expect((await client.GET('/tours/{id}/', { params: { path: { id: String(tourId('TR-MHD-3D')) } } })).data?.data.departures[0]?.seats_left).toBe(
        dep.seats_left,
      );
      const pay = await client.POST('/partners/pay/', { body: { order_id: order.data!.data.id } });
      expect(pay.response.status).toBe(400);
      expect(pay.error?.error).toMatch(/expired/);
      expect(await eventTypesOf(api, order.data!.data.id)).toEqual(['order.expired']);
      await recordHistory(short, `tour-prebook-expiry:p${pre.data!.data.prebook_id}`, 'tour-prebook-expiry');
    } finally {
      await short.close();
    }
  });
});
