import { partnerClient as typedPartnerClient, type PartnerClient } from '../../src/client';
import { call, newPartner } from '../support/clients';
import { contact, day, roomGuests } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';

/**
 * The travel orders list's extension filters (status, travel dates, agent) and its CSV export,
 * and the events feed narrowed to one order: what the agency console's bookings pages ask for.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const TEHRAN = 1;

/** Books a hotel in Tehran for a stay starting `from` days ahead and turns it into an order. */
async function hotelOrder(client: PartnerClient, from: number): Promise<number> {
  const found = await client.POST('/hotel/search_hotels/', {
    body: { check_in: day(from), check_out: day(from + 1), city_id: TEHRAN, nationality_id: 'IR', rooms: [{ adult_count: 1 }] },
  });
  const rate = found.data!.data.results[0]!.rates[0]!;
  const booked = await client.POST('/hotel/book/', { body: { rate_key: rate.rate_key, guests: roomGuests, contact } });
  const ordered = await client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
  expect(ordered.response.status).toBe(201);
  return ordered.data!.data.id;
}

let partner: Awaited<ReturnType<typeof newPartner>>;
let agentUser: number;
const ids: Record<'soon' | 'later' | 'paid' | 'cancelled', number> = { soon: 0, later: 0, paid: 0, cancelled: 0 };

beforeAll(async () => {
  partner = await newPartner(stack, '0', '100000000');
  const owner = { 'x-api-key': partner.creds.api_key, 'x-api-secret': partner.creds.api_secret };
  const user = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: 'Leila', email: 'leila@filters.example', role: 'agent' });
  agentUser = user.body.data.id;
  const conn = await call(stack.app, 'POST', '/api/partners/connections/', owner, {
    name: 'Leila A',
    interface: 'a',
    rights: ['search', 'book', 'view'],
    user_id: agentUser,
  });
  const leila = typedPartnerClient(
    'http://engine.test',
    { apiKey: conn.body.data.api_key, apiSecret: conn.body.data.api_secret },
    { fetch: async (r) => stack.app.fetch(r) },
  );

  ids.soon = await hotelOrder(leila, 10);
  ids.later = await hotelOrder(partner.client, 60);
  ids.paid = await hotelOrder(partner.client, 30);
  ids.cancelled = await hotelOrder(partner.client, 20);
  expect((await partner.client.POST('/partners/pay/', { body: { order_id: ids.paid, idempotency_key: 'filters-pay-1' } })).response.status).toBe(200);
  expect((await partner.client.POST('/hotel/cancel/', { body: { order_id: ids.cancelled } })).response.status).toBe(200);
}, 120_000);

const listed = async (query: string): Promise<number[]> => {
  const res = await partner.api.get(`/api/partners/orders/${query}`);
  expect(res.status).toBe(200);
  return (res.body.data.results as { id: number }[]).map((o) => o.id);
};

describe('the travel orders list, filtered', () => {
  it('lists every order without filters, newest first', async () => {
    expect(await listed('')).toEqual([ids.cancelled, ids.paid, ids.later, ids.soon]);
  });

  it('narrows to one or more statuses', async () => {
    expect(await listed('?status=completed')).toEqual([ids.paid]);
    expect(await listed('?status=cancelled,completed')).toEqual([ids.cancelled, ids.paid]);
    expect(await listed('?status=pending')).toEqual([ids.later, ids.soon]);
  });

  it('narrows to the day the service starts', async () => {
    expect(await listed(`?travel_from=${day(25)}`)).toEqual([ids.paid, ids.later]);
    expect(await listed(`?travel_to=${day(25)}`)).toEqual([ids.cancelled, ids.soon]);
    expect(await listed(`?travel_from=${day(15)}&travel_to=${day(35)}&status=pending,completed`)).toEqual([ids.paid]);
  });

  it('narrows to the orders one user made', async () => {
    expect(await listed(`?agent=${agentUser}`)).toEqual([ids.soon]);
    expect(await listed('?agent=999999')).toEqual([]);
  });

  it('counts only what the filters select', async () => {
    const res = await partner.api.get('/api/partners/orders/?status=pending');
    expect(res.body.data).toMatchObject({ total_count: 2, next: null, previous: null });
  });

  it('answers every selected order as CSV, with its filters', async () => {
    const res = await partner.api.get('/api/partners/orders/export/?status=pending,cancelled');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="orders-\d+\.csv"$/);
    const lines = (res.body as string).trim().split('\r\n');
    expect(lines[0]).toBe('order_id,service,status,total_price,currency,supplier_ref,created_at,completed_at,made_by');
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual([ids.cancelled, ids.later, ids.soon]);
    expect(lines[3]).toMatch(/,Leila$/);
  });

  it.each([
    ['?status=booked', /^status: must be one or more of pending, /],
    ['?status=', /^status: /],
    ['?travel_from=2026-02-30', /^travel_from: must be a real calendar date/],
    [`?travel_from=${day(10)}&travel_to=${day(5)}`, /^travel_to: must not be before travel_from/],
    ['?agent=abc', /^agent: must be a user id/],
  ])('refuses %s with 400 naming the parameter', async (query, message) => {
    for (const list of ['/api/partners/orders/', '/api/partners/orders/export/']) {
      const res = await partner.api.get(`${list}${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ ok: false, error: expect.stringMatching(message) });
    }
  });
});

describe('the events feed of one order', () => {
  it('lists only that order’s events, oldest first', async () => {
    const res = await partner.api.get(`/api/partners/events/?order_id=${ids.paid}`);
    expect(res.status).toBe(200);
    const found = res.body.data.results as { order_id: number; type: string }[];
    expect(found.map((e) => e.type)).toEqual(['order.processing', 'order.completed']);
    expect(found.every((e) => e.order_id === ids.paid)).toBe(true);
    expect((await partner.api.get(`/api/partners/events/?order_id=${ids.cancelled}`)).body.data.results.map((e: { type: string }) => e.type)).toEqual([
      'order.cancelled',
    ]);
  });

  it('refuses an order id that is not one with 400', async () => {
    const res = await partner.api.get('/api/partners/events/?order_id=x1');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^order_id: /);
  });
});
