import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { and, eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { adminClient, call, newPartner as partnerWithWallet, type PartnerCredentials } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory, scheduledActivities } from '../support/histories';
import { captureLogs } from '../support/logs';
import { type TestStack, useStack } from '../support/stack';
import { day } from '../support/fixtures';
import { waitFor } from '../support/wait';
import { payWorkflowId } from '../../workflows/pay.types';
import { OrderId, OrderStatus, Stage } from '../../workflows/search-attributes';

/** Interface B (spec §4.6, §5, §7, §8): agency hotel booking and travel products, bearer keys, FastAPI errors. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const minor = (n: number | string) => Math.round(Number(n) * 100);

function agency(creds: Pick<PartnerCredentials, 'agency_key'>) {
  const auth = { authorization: `Bearer ${creds.agency_key}` };
  return {
    get: (path: string) => call(stack.app, 'GET', `/v1${path}`, auth),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) => call(stack.app, 'POST', `/v1${path}`, { ...auth, ...headers }, body),
    delete: (path: string) => call(stack.app, 'DELETE', `/v1${path}`, auth),
  };
}

async function newAgency(topup = '500000000') {
  const { creds, api } = await partnerWithWallet(stack, '0', topup);
  return { creds, api, b: agency(creds) };
}

/** What Temporal Web shows an operator of a closed workflow: its Stage, OrderStatus and OrderId. */
async function toldOperators(workflowId: string) {
  const handle = stack.client.workflow.getHandle(workflowId);
  // The answer can come from the worker a moment before Temporal records the close (src/temporal/outcomes.ts).
  await handle.result().catch(() => undefined);
  const attrs = (await handle.describe()).typedSearchAttributes;
  return { stage: attrs.get(Stage), orderStatus: attrs.get(OrderStatus), orderId: attrs.get(OrderId) };
}

/** The payment a B workflow ran for an order, its child (workflows/pay.types.ts, payWorkflowId). */
const childPayment = (creds: { partner_id: number }, order: { id: number }) => payWorkflowId(creds.partner_id, { orderId: order.id });

/** The workflow of this type an operator finds by searching Temporal Web for the order (`OrderId = …`). */
async function foundByOrder(orderId: number, workflowType: string): Promise<string> {
  let found: string[] = [];
  await waitFor(
    async () => {
      found = [];
      for await (const wf of stack.client.workflow.list({ query: `OrderId = ${orderId} AND WorkflowType = '${workflowType}'` })) found.push(wf.workflowId);
      return found.length > 0;
    },
    () => `a ${workflowType} workflow searchable by OrderId ${orderId} (found ${found.length})`,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

type B = ReturnType<typeof agency>;
async function roomToBook(b: B, opts: { refundable?: boolean } = {}) {
  const res = await b.get(`/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}`);
  expect(res.status).toBe(200);
  for (const h of res.body.results) {
    const room = h.rooms.find((r: { refundable: boolean }) => opts.refundable === undefined || r.refundable === opts.refundable);
    if (room) return { hotel: h, room };
  }
  throw new Error('no room');
}
const bookingBody = (hotel_id: string, room_id: string) => ({
  hotel_id,
  room_id,
  guest_name: 'Sara Ahmadi',
  guest_email: 'sara@example.com',
  check_in: day(45),
  check_out: day(47),
  special_requests: 'high floor',
});

describe('authentication', () => {
  it('needs the agency key as a bearer token; A’s credentials never work here, nor B’s there', async () => {
    const { creds } = await newAgency();
    const path = '/v1/products';
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: `Basic ${creds.agency_key}` },
      { authorization: 'Bearer agk_not-a-real-key' },
      { authorization: `Bearer ${creds.api_key}` },
      { authorization: `Bearer ${creds.api_secret}` },
      { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret },
    ];
    for (const headers of cases) {
      const res = await call(stack.app, 'GET', path, headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 401 });
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
    expect((await call(stack.app, 'GET', path, { authorization: `Bearer ${creds.agency_key}` })).status).toBe(200);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', { 'x-api-key': creds.api_key, 'x-api-secret': creds.agency_key })).status).toBe(401);

    const rotated = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/rotate-agency-key`);
    expect((await call(stack.app, 'GET', path, { authorization: `Bearer ${creds.agency_key}` })).status).toBe(401);
    expect((await call(stack.app, 'GET', path, { authorization: `Bearer ${rotated.body.agency_key}` })).status).toBe(200);
    await adminClient(stack).post(`/admin/partners/${creds.partner_id}/disable`);
    const disabled = await call(stack.app, 'GET', path, { authorization: `Bearer ${rotated.body.agency_key}` });
    expect(disabled.status).toBe(401);
    expect(disabled.body.detail).toMatch(/disabled/);
  });

  it('publishes its OpenAPI document and docs without a key', async () => {
    const doc = await call(stack.app, 'GET', '/v1/openapi.json', {});
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/hotels/search', '/hotels/bookings', '/hotels/bookings/{booking_id}', '/products', '/products/orders']),
    );
    expect((await call(stack.app, 'GET', '/v1/docs', {})).status).toBe(200);
  });
});

describe('validation errors', () => {
  it.each([
    ['/hotels/search?check_in=2030-01-01&check_out=2030-01-03', ['query', 'city']],
    [`/hotels/search?city=shiraz&check_in=${day(10)}&check_out=${day(12)}&stars=6`, ['query', 'stars']],
    [`/hotels/search?city=shiraz&check_in=${day(10)}&check_out=${day(12)}&limit=101`, ['query', 'limit']],
    [`/hotels/search?city=shiraz&check_in=${day(-3)}&check_out=${day(2)}`, ['query', 'check_in']],
    [`/hotels/search?city=atlantis&check_in=${day(10)}&check_out=${day(12)}`, ['query', 'city']],
    ['/products?limit=0', ['query', 'limit']],
    ['/products?category=boat', ['query', 'category']],
  ])('GET %s → 422 with FastAPI detail at %j', async (path, loc) => {
    const { b } = await newAgency();
    const res = await b.get(path);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toEqual({ loc, msg: expect.any(String), type: expect.any(String) });
  });

  it('answers 422 for bad bodies and 415 for a wrong content type, writing nothing', async () => {
    const { creds, b } = await newAgency();
    const res = await b.post('/products/orders', {
      product_id: 'ACC-ADAPTER',
      quantity: 0,
      delivery_address: { street: 'x', city: 'y', country: 'Iran', postal_code: '1' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'quantity'],
        ['body', 'delivery_address', 'country'],
      ]),
    );
    const wrongType = await call(stack.app, 'POST', '/v1/products/orders', { authorization: `Bearer ${creds.agency_key}`, 'content-type': 'text/plain' }, 'x');
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toEqual({ detail: [{ loc: ['header', 'content-type'], msg: expect.any(String), type: 'content_type' }] });
    const malformed = await call(
      stack.app,
      'POST',
      '/v1/products/orders',
      { authorization: `Bearer ${creds.agency_key}`, 'content-type': 'application/json' },
      '{"product_id": ',
    );
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({ detail: [{ loc: ['body'], msg: expect.stringMatching(/JSON/), type: 'json_invalid' }] });
    expect(await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).toHaveLength(0);
  });
});

describe('hotel booking', () => {
  it('searches by city name or IATA code, with a minimum star rating', async () => {
    const { b } = await newAgency();
    const byName = await b.get(`/hotels/search?city=SHIRAZ&check_in=${day(45)}&check_out=${day(47)}&guests=2`);
    const byIata = await b.get(`/hotels/search?city=syz&check_in=${day(45)}&check_out=${day(47)}&guests=2`);
    expect(byName.body.count).toBeGreaterThan(0);
    expect(byIata.body.results.map((h: { hotel_id: string }) => h.hotel_id)).toEqual(byName.body.results.map((h: { hotel_id: string }) => h.hotel_id));
    const room = byName.body.results[0].rooms[0];
    expect(room).toMatchObject({ room_id: expect.stringMatching(/^[A-Z]{3}-(RO|BB|HB)-(FLEX|NRF)$/), currency: 'IRT', refundable: expect.any(Boolean) });
    expect(room.price_per_night * 2).toBeCloseTo(room.total_price, 0);
    const fourPlus = await b.get(`/hotels/search?city=shiraz&check_in=${day(45)}&check_out=${day(47)}&stars=4&limit=3`);
    expect(fourPlus.body.results.length).toBeLessThanOrEqual(3);
    expect(fourPlus.body.results.every((h: { stars: number }) => h.stars >= 4)).toBe(true);
    const hotel = await b.get(`/hotels/${byName.body.results[0].hotel_id}`);
    expect(hotel.body).toMatchObject({ name: byName.body.results[0].name, amenities: expect.any(Array), policies: expect.any(Object) });
    expect((await b.get('/hotels/999999')).status).toBe(404);
    expect((await b.get('/hotels/abc')).body).toEqual({ detail: expect.any(String) });
  });

  it('books (reserve → debit → confirm), lists, and cancels with a refund; a second delete answers the same', async () => {
    const { b, api, creds } = await newAgency();
    const { hotel, room } = await roomToBook(b, { refundable: true });
    const created = await b.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id));
    expect(created.body).toMatchObject({ status: 'active' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      booking_id: expect.any(String),
      status: 'active',
      hotel_id: hotel.hotel_id,
      room_id: room.room_id,
      guest_name: 'Sara Ahmadi',
      special_requests: 'high floor',
      total_price: room.total_price,
      currency: 'IRT',
    });
    expect(minor((await api.wallet()).balance)).toBe(50_000_000_000 - minor(room.total_price));
    const listed = await b.get('/hotels/bookings?status=active');
    expect(listed.body.results.map((x: { booking_id: string }) => x.booking_id)).toEqual([created.body.booking_id]);
    expect((await b.get('/hotels/bookings?status=cancelled')).body.results).toEqual([]);
    const inA = (await api.get('/api/partners/orders/')).body.data.results[0];
    expect(inA).toMatchObject({ service: 'hotel', status: 'completed' });
    expect((await api.get('/api/partners/ledger/')).body.data.results[0]).toMatchObject({ type: 'payment', order: inA.id });
    // Its child payment runs as A's payments do: against a supplier that answers at once, every step a local activity.
    expect(await scheduledActivities(stack, `pay:p${creds.partner_id}:order:${inA.id}`)).toEqual([]);
    // Temporal Web tells an operator how it ended, and finds it by its order.
    expect(await toldOperators(`agency-booking:b${created.body.booking_id}`)).toEqual({ stage: 'done', orderStatus: 'completed', orderId: inA.id });
    expect(await foundByOrder(inA.id, 'agencyHotelBooking')).toBe(`agency-booking:b${created.body.booking_id}`);

    const cancelled = await b.delete(`/hotels/bookings/${created.body.booking_id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ booking_id: created.body.booking_id, status: 'cancelled', refund_amount: room.total_price, currency: 'IRT' });
    const again = await b.delete(`/hotels/bookings/${created.body.booking_id}`);
    expect(again.body).toEqual(cancelled.body);
    await recordHistory(stack, `agency-booking:b${created.body.booking_id}`, 'agency-hotel-booking');
    const refunds = await stack.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.partnerId, creds.partner_id), eq(ledgerEntries.type, 'refund')));
    expect(refunds).toHaveLength(1);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
    expect((await b.get('/hotels/bookings?status=cancelled')).body.results[0]).toMatchObject({ booking_id: created.body.booking_id, status: 'cancelled' });
    // The agency reads them in A's feed: a B booking's cancellation is booking.cancelled, not order.cancelled.
    expect(await eventTypesOf(api, inA.id)).toEqual(['order.processing', 'order.completed', 'booking.cancelled']);
  });

  it('returns the same booking for a retried create with the same Idempotency-Key, charging once', async () => {
    const { b, creds } = await newAgency();
    const { hotel, room } = await roomToBook(b);
    const headers = { 'Idempotency-Key': 'agency-booking-1' };
    const [first, second] = await Promise.all([
      b.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id), headers),
      b.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id), headers),
    ]);
    const third = await b.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id), headers);
    expect([first.status, second.status, third.status]).toEqual([201, 201, 201]);
    expect(new Set([first.body.booking_id, second.body.booking_id, third.body.booking_id]).size).toBe(1);
    const payments = await stack.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.partnerId, creds.partner_id), eq(ledgerEntries.type, 'payment')));
    expect(payments).toHaveLength(1);
  });

  it('answers 402 without credit and 500 after full compensation when the hotel refuses; nothing is charged', async () => {
    const { b: poor, api: poorA } = await newAgency('1');
    const { hotel, room } = await roomToBook(poor);
    const refused = await poor.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id));
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ detail: expect.stringContaining('insufficient credit') });
    expect(await poorA.wallet()).toMatchObject({ balance: '1.00' });
    expect((await poor.get('/hotels/bookings')).body.results).toEqual([]);
    // Its order failed before any money moved: order.failed alone.
    const [poorOrder] = (await poorA.get('/api/partners/orders/')).body.data.results;
    expect(poorOrder).toMatchObject({ service: 'hotel', status: 'failed' });
    expect(await eventTypesOf(poorA, poorOrder.id)).toEqual(['order.failed']);
    // Temporal Web says what the order says: the booking failed, and so did its order.
    expect(await toldOperators(await foundByOrder(poorOrder.id, 'agencyHotelBooking'))).toEqual({
      stage: 'failed',
      orderStatus: 'failed',
      orderId: poorOrder.id,
    });

    const { b, api, creds } = await newAgency();
    const failed = await b.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id), { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(failed.status).toBe(500);
    expect(failed.body.detail).toMatch(/nothing was charged/);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
    const failedOrder = (await api.get('/api/partners/orders/')).body.data.results[0];
    expect(failedOrder).toMatchObject({ service: 'hotel', status: 'failed' });
    // The child payment's reversal releases the order, then fails it (B's order exists only to be paid now): two moves, two events.
    expect(await eventTypesOf(api, failedOrder.id)).toEqual(['order.processing', 'order.payment_reversed', 'order.failed']);
    // Temporal Web says what the order says, for the booking and for its child payment.
    const bookingWorkflow = await foundByOrder(failedOrder.id, 'agencyHotelBooking');
    expect(await toldOperators(bookingWorkflow)).toEqual({ stage: 'failed', orderStatus: 'failed', orderId: failedOrder.id });
    expect(await toldOperators(childPayment(creds, failedOrder))).toMatchObject({ stage: 'failed', orderStatus: 'failed' });
    await recordHistory(stack, bookingWorkflow, 'agency-hotel-booking-compensated');
  });

  it('hides other agencies’ bookings (404)', async () => {
    const { b } = await newAgency();
    const { b: other } = await newAgency();
    const { hotel, room } = await roomToBook(b);
    const created = await b.post('/hotels/bookings', bookingBody(hotel.hotel_id, room.room_id));
    expect((await other.delete(`/hotels/bookings/${created.body.booking_id}`)).status).toBe(404);
    expect((await other.get('/hotels/bookings')).body.results).toEqual([]);
    expect((await b.delete('/hotels/bookings/999999')).status).toBe(404);
  });
});

describe('travel products', () => {
  it('lists products by category and destination, one per plan, and shows one', async () => {
    const { b } = await newAgency();
    const sims = await b.get('/products?category=sim&destination=tr&limit=100');
    expect(sims.body.count).toBeGreaterThan(0);
    expect(sims.body.results.every((p: { category: string; destinations: string[] }) => p.category === 'sim' && p.destinations.includes('TR'))).toBe(true);
    expect((await b.get('/products')).body.results).toHaveLength(20);
    const one = await b.get('/products/ESIM-TR-10GB-15D');
    expect(one.body).toMatchObject({ product_id: 'ESIM-TR-10GB-15D', name: 'Turkey eSIM (10 GB / 15 days)', price: 1200000, in_stock: true });
    expect((await b.get('/products/NOPE')).status).toBe(404);
  });

  it('orders (debit → fulfilment), shows the order in B and in A, and isolates agencies', async () => {
    const { b, api } = await newAgency();
    const { b: other } = await newAgency();
    const body = {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 2,
      delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
      agency_ref: 'ACME-77',
    };
    const placed = await b.post('/products/orders', body, { 'Idempotency-Key': 'po-1' });
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({
      order_id: expect.any(String),
      status: 'completed',
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 2,
      total_price: 2400000,
      agency_ref: 'ACME-77',
      delivery_address: body.delivery_address,
    });
    expect(await api.wallet()).toMatchObject({ balance: '497600000.00' });
    expect(await toldOperators(`agency-order:o${placed.body.order_id}`)).toEqual({
      stage: 'done',
      orderStatus: 'completed',
      orderId: Number(placed.body.order_id),
    });
    await recordHistory(stack, `agency-order:o${placed.body.order_id}`, 'agency-product-order');
    const again = await b.post('/products/orders', body, { 'Idempotency-Key': 'po-1' });
    expect(again.body.order_id).toBe(placed.body.order_id);
    expect(await api.wallet()).toMatchObject({ balance: '497600000.00' });
    expect((await b.get(`/products/orders/${placed.body.order_id}`)).body).toEqual(placed.body);
    expect((await other.get(`/products/orders/${placed.body.order_id}`)).status).toBe(404);
    expect((await api.get('/api/partners/product-orders/')).body.data.results[0]).toMatchObject({
      id: Number(placed.body.order_id),
      status: 'completed',
      total_price_irt: '2400000.00',
    });
    expect((await b.post('/products/orders', { ...body, product_id: 'NOPE' })).status).toBe(422);
    expect(await eventTypesOf(api, Number(placed.body.order_id))).toEqual(['order.processing', 'product_order.shipped']);
  });

  it('answers 402 without credit, fails the order, and Temporal Web says so', async () => {
    const { b, api, creds } = await newAgency('1');
    const refused = await b.post('/products/orders', {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 1,
      delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
    });
    expect(refused.status).toBe(402);
    expect(await api.wallet()).toMatchObject({ balance: '1.00' });
    const [order] = (await api.get('/api/partners/product-orders/')).body.data.results;
    expect(order).toMatchObject({ status: 'failed' });
    const workflowId = await foundByOrder(order.id, 'agencyProductOrder');
    expect(await toldOperators(workflowId)).toEqual({ stage: 'failed', orderStatus: 'failed', orderId: order.id });
    expect(await toldOperators(childPayment(creds, order))).toMatchObject({ stage: 'failed', orderStatus: 'failed' });
    await recordHistory(stack, workflowId, 'agency-product-order-failed');
  });

  it('fails the order, its workflow and its child payment alike when the supplier refuses; the debit is reversed', async () => {
    const { b, api, creds } = await newAgency();
    const refused = await b.post(
      '/products/orders',
      { product_id: 'ESIM-TR-10GB-15D', quantity: 1, delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' } },
      { 'X-Sandbox-Scenario': 'supplier_reject' },
    );
    expect(refused.status).toBe(500);
    expect(refused.body.detail).toMatch(/nothing was charged/);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
    const [order] = (await api.get('/api/partners/product-orders/')).body.data.results;
    expect(order).toMatchObject({ status: 'failed' });
    expect(await eventTypesOf(api, order.id)).toEqual(['order.processing', 'order.payment_reversed', 'order.failed']);
    // The order row, the parent and the child payment say the same.
    const parent = await foundByOrder(order.id, 'agencyProductOrder');
    const child = childPayment(creds, order);
    expect(await toldOperators(parent)).toEqual({ stage: 'failed', orderStatus: 'failed', orderId: order.id });
    expect(await toldOperators(child)).toMatchObject({ stage: 'failed', orderStatus: 'failed' });
    // The child payment showed debiting and processing from its start, as the API's payments do.
    const { events } = await stack.client.workflow.getHandle(child).fetchHistory();
    const opening = decodeTypedSearchAttributes(events![0]!.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields);
    expect({ stage: opening.get(Stage), orderStatus: opening.get(OrderStatus) }).toEqual({ stage: 'debiting', orderStatus: 'processing' });
    await recordHistory(stack, parent, 'agency-product-order-compensated');
    await recordHistory(stack, child, 'pay-fails-order-compensated');
  });

  it('passes the request id on through the order’s workflow to its child payment and that one’s activities', async () => {
    const { b } = await newAgency();
    const body = { product_id: 'ESIM-TR-10GB-15D', quantity: 1, delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' } };
    const logs = captureLogs('info');
    let orderId: string;
    try {
      const placed = await b.post('/products/orders', body, { 'Idempotency-Key': 'po-reqid', 'X-Request-Id': 'agency-req-456' });
      expect(placed.status).toBe(201);
      orderId = placed.body.order_id;
    } finally {
      logs.stop();
    }
    // The child payment has no memo of its own: the id reached it as a header from its parent.
    expect(logs.records.filter((r) => r.msg === 'supplier call' && r.path === '/products/fulfilments')).toEqual([
      expect.objectContaining({
        requestId: 'agency-req-456',
        workflowId: expect.stringMatching(new RegExp(`^pay:p\\d+:order:${orderId}$`)),
        activityType: 'finalizeOrder',
      }),
    ]);
  });
});
