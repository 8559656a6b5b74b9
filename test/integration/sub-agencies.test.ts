import { count, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client';
import { ledgerEntries, orders } from '../../src/db/schema';
import { call, newPartner, partnerClient, type PartnerCredentials } from '../support/clients';
import { contact, day } from '../support/fixtures';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { toCommand } from '../../src/cli/admin';

/**
 * Sub-agencies over HTTP: a parent creates children, grants them credit out of its own and
 * marks up its price to them; a child books on that credit at the operator's price to the
 * parent plus the parent's markup, and each level's margin posts to its own account; the
 * parent reads its children's orders and statements, a child nothing of its parent's or its
 * sibling's; bad input is a 4xx in A's shape that writes nothing.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** The operator's rule for the parent: 10% of net + 5.00; the parent's for its child: 5% of that + 1.00. */
const operatorSell = (net: number) => net + Math.round(net / 10) + 500;
const childSell = (net: number) => operatorSell(net) + Math.round(operatorSell(net) / 20) + 100;

const accountBalance = async (code: string) =>
  Number(
    rowsOf<{ b: string }>(
      await stack.db.execute(sql`select coalesce(sum(case when credit_account = ${code} then amount_minor else -amount_minor end), 0) as b
        from transfers where credit_account = ${code} or debit_account = ${code}`),
    )[0]!.b,
  );
const ledgerRows = async () => (await stack.db.select({ n: count() }).from(ledgerEntries))[0]!.n;

async function family() {
  const parent = await newPartner(stack, '0', '1000000000');
  const rule = await call(stack.admin, 'POST', '/admin/markups', admin, { service: 'hotels', partner: parent.creds.partner_id, percent: '10', fixed: '5' });
  expect(rule.status).toBe(201);
  const made = await parent.api.post('/api/partners/agencies/', { name: 'Acme Shiraz' });
  expect(made.status).toBe(201);
  const sibling = await parent.api.post('/api/partners/agencies/', { name: 'Acme Tabriz' });
  const child = made.body.data as PartnerCredentials;
  const siblingCreds = sibling.body.data as PartnerCredentials;
  return { parent, child: { creds: child, api: partnerClient(stack, child) }, sibling: partnerClient(stack, siblingCreds), siblingCreds };
}

/** Searches, checks and books the first rate of a city, and orders it: the pending order and the rate's total as shown. */
async function bookHotel(api: ReturnType<typeof partnerClient>) {
  const search = await api.post('/api/hotel/search_hotels/', {
    check_in: day(45),
    check_out: day(47),
    nationality_id: 'IR',
    rooms: [{ adult_count: 2 }],
    city_id: 1,
  });
  expect(search.status).toBe(200);
  // A refundable rate: its cancellation gives money back.
  const rate = search.body.data.results.flatMap((h: { rates: Array<{ refundable: boolean }> }) => h.rates).find((r: { refundable: boolean }) => r.refundable);
  const checked = await api.post('/api/hotel/check_rate/', { rate_key: rate.rate_key });
  const guests = [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' }]];
  const booked = await api.post('/api/hotel/book/', { rate_key: checked.body.data.rate_key, guests, contact });
  expect(booked.status).toBe(200);
  const ordered = await api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id });
  expect(ordered.status).toBe(201);
  return {
    orderId: ordered.body.data.id as number,
    bookingId: booked.body.data.booking_id as number,
    shown: minor(rate.total_price),
    room: rate.room_name as string,
  };
}

it("a child books on its parent's credit at the parent's price plus its markup; each level's margin posts to its own account", async () => {
  const { parent, child } = await family();
  const before = await parent.api.wallet();
  const granted = await parent.api.post(`/api/partners/agencies/${child.creds.partner_id}/credit/`, { credit_limit: '500000000', idempotency_key: 'grant-1' });
  expect(granted.status).toBe(200);
  expect(granted.body.data).toMatchObject({ sub_agency: { credit_limit: '500000000.00', available: '500000000.00' }, replayed: false });
  // The grant lowers what the parent can spend, by exactly the grant.
  expect(minor(granted.body.data.wallet.available)).toBe(minor(before.available) - 500000000_00);
  const again = await parent.api.post(`/api/partners/agencies/${child.creds.partner_id}/credit/`, { credit_limit: '500000000', idempotency_key: 'grant-1' });
  expect(again.body.data).toMatchObject({ replayed: true, wallet: { available: granted.body.data.wallet.available } });
  const markups = await call(stack.app, 'PUT', `/api/partners/agencies/${child.creds.partner_id}/markups/`, parentAuth(parent.creds), {
    markups: [{ service: 'hotels', percent: '5', fixed: '1' }],
  });
  expect(markups.status).toBe(200);
  expect(markups.body.data).toEqual([{ service: 'hotels', percent: '5', fixed: '1.00' }]);

  const parentBooking = await bookHotel(parent.api);
  const childBooking = await bookHotel(child.api);
  expect(childBooking.room).toBe(parentBooking.room);
  const [order] = await stack.db.select().from(orders).where(eq(orders.id, childBooking.orderId));
  const net = order!.netPrice!;
  // The parent sees the operator's price; the child that price with its parent's markup, in search and order alike.
  expect(parentBooking.shown).toBe(operatorSell(net));
  expect(childBooking.shown).toBe(childSell(net));
  expect(order).toMatchObject({ totalPrice: childSell(net), margin: childSell(net) - net, agencyMargin: childSell(net) - operatorSell(net) });

  // Interface B shows the child the same: its parent's price with the markup.
  const q = `/v1/hotels/search?city=THR&check_in=${day(50)}&check_out=${day(52)}&guests=2`;
  const onB = async (key: string) => (await call(stack.app, 'GET', q, { authorization: `Bearer ${key}` })).body.results[0].rooms[0];
  const [parentRoom, childRoom] = [await onB(parent.creds.agency_key), await onB(child.creds.agency_key)];
  expect(childRoom.room_id).toBe(parentRoom.room_id);
  expect(minor(childRoom.total_price)).toBe(minor(parentRoom.total_price) + Math.round(minor(parentRoom.total_price) / 20) + 100);

  const inspected = await call(stack.admin, 'GET', `/admin/orders/${childBooking.orderId}`, admin);
  expect(inspected.body.order.price_parts).toMatchObject({ agency_margin: ((childSell(net) - operatorSell(net)) / 100).toFixed(2) });
  const margins = { operator: await accountBalance('margin:IRT'), parent: await accountBalance(`agency_margin:${parent.creds.partner_id}`) };
  const paid = await child.api.post('/api/partners/pay/', { order_id: childBooking.orderId, idempotency_key: 'child-pay-1' });
  expect(paid.status).toBe(200);
  expect(minor((await child.api.wallet()).balance)).toBe(-childSell(net));
  expect((await accountBalance('margin:IRT')) - margins.operator).toBe(operatorSell(net) - net);
  expect((await accountBalance(`agency_margin:${parent.creds.partner_id}`)) - margins.parent).toBe(childSell(net) - operatorSell(net));

  // A refund gives back each level's margin from its own account.
  const quote = await child.api.post('/api/hotel/cancel_display/', { order_id: childBooking.orderId });
  const cancelled = await child.api.post('/api/hotel/cancel/', { order_id: childBooking.orderId, quote_id: quote.body.data.quote_id });
  expect(cancelled.status).toBe(200);
  expect(minor(cancelled.body.data.refund_amount)).toBeGreaterThan(0);
  expect(await accountBalance('margin:IRT')).toBe(margins.operator);
  expect(await accountBalance(`agency_margin:${parent.creds.partner_id}`)).toBe(margins.parent);

  const report = await call(stack.admin, 'GET', '/admin/reconcile', admin);
  expect(report.body.findings).toEqual([]);
});

const parentAuth = (creds: PartnerCredentials) => ({ 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret });

it("the parent reads its child's orders and statement; a child reads nothing of its parent's or its sibling's", async () => {
  const { parent, child, sibling, siblingCreds } = await family();
  await parent.api.post(`/api/partners/agencies/${child.creds.partner_id}/credit/`, { credit_limit: '500000000', idempotency_key: 'grant-2' });
  const own = await bookHotel(parent.api);
  const childs = await bookHotel(child.api);
  await child.api.post('/api/partners/pay/', { order_id: childs.orderId, idempotency_key: 'child-pay-2' });

  // By id, and in the list.
  expect((await parent.api.post('/api/hotel/booking_data/', { order_id: childs.orderId })).status).toBe(200);
  expect((await parent.api.post('/api/hotel/booking_data/', { booking_id: childs.bookingId })).status).toBe(200);
  const listed = (await parent.api.get('/api/partners/orders/')).body.data.results.map((o: { id: number }) => o.id);
  expect(listed).toEqual(expect.arrayContaining([own.orderId, childs.orderId]));
  const statement = await parent.api.get(`/api/partners/agencies/${child.creds.partner_id}/statement/?from=${day(0)}&to=${day(0)}`);
  expect(statement.status).toBe(200);
  expect(statement.body.data.movements.map((m: { order_id: number | null }) => m.order_id)).toContain(childs.orderId);

  // The child: its parent's order is not found, as another partner's; its sibling's neither; nor their statements.
  const hidden = await child.api.post('/api/hotel/booking_data/', { order_id: own.orderId });
  expect(hidden.status).toBe(404);
  expect(hidden.body.ok).toBe(false);
  expect((await sibling.post('/api/hotel/booking_data/', { order_id: childs.orderId })).status).toBe(404);
  expect((await child.api.post('/api/hotel/booking_data/', { booking_id: own.bookingId })).status).toBe(404);
  expect((await child.api.get('/api/partners/orders/')).body.data.results.map((o: { id: number }) => o.id)).toEqual([childs.orderId]);
  expect((await sibling.get(`/api/partners/agencies/${child.creds.partner_id}/statement/?from=${day(0)}&to=${day(0)}`)).status).toBe(404);
  // Acting on a child's order stays with the child: the parent cannot pay it.
  expect((await parent.api.post('/api/hotel/cancel/', { order_id: childs.orderId })).status).toBe(404);
  // Interface B the same: the parent reads its child's order, the sibling does not.
  const bOrder = await call(
    stack.app,
    'POST',
    '/v1/products/orders',
    { authorization: `Bearer ${child.creds.agency_key}` },
    {
      product_id: 'ESIM-TR-10GB-15D',
      quantity: 1,
      delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
    },
  );
  expect(bOrder.status).toBe(201);
  const readOnB = async (key: string) =>
    (await call(stack.app, 'GET', `/v1/products/orders/${bOrder.body.order_id}`, { authorization: `Bearer ${key}` })).status;
  expect(await readOnB(parent.creds.agency_key)).toBe(200);
  expect(await readOnB(siblingCreds.agency_key)).toBe(404);
  // One level: a child has no children and cannot make one.
  expect((await child.api.get('/api/partners/agencies/')).body.data).toEqual([]);
  const deeper = await child.api.post('/api/partners/agencies/', { name: 'Grandchild' });
  expect(deeper.status).toBe(400);
  expect(deeper.body).toEqual({ ok: false, error: expect.stringContaining('one level') });
});

it('bad input answers a 4xx in the envelope and writes nothing', async () => {
  const { parent, child } = await family();
  const other = await newPartner(stack, '0', '1000');
  const strangers = (await other.api.post('/api/partners/agencies/', { name: 'Not yours' })).body.data.partner_id as number;
  const rows = await ledgerRows();
  const credit = (id: number | string, credit_limit: unknown, key = 'bad') =>
    parent.api.post(`/api/partners/agencies/${id}/credit/`, { credit_limit, idempotency_key: key });
  const cases: Array<[Promise<{ status: number; body: unknown }>, number]> = [
    [credit(child.creds.partner_id, '1000000001'), 402], // beyond the parent's 1,000,000,000.00 available
    [credit(child.creds.partner_id, '-5'), 400],
    [credit(child.creds.partner_id, 'lots'), 400],
    [credit(999999, '10'), 404],
    [credit(strangers, '10'), 404],
    [credit('abc', '10'), 400],
    [parent.api.post(`/api/partners/agencies/${child.creds.partner_id}/credit/`, { credit_limit: '10' }), 400],
    [
      call(stack.app, 'PUT', `/api/partners/agencies/${child.creds.partner_id}/markups/`, parentAuth(parent.creds), {
        markups: [{ service: 'cruises', percent: '5' }],
      }),
      400,
    ],
    [
      call(stack.app, 'PUT', `/api/partners/agencies/${child.creds.partner_id}/markups/`, parentAuth(parent.creds), {
        markups: [{ service: 'hotels', percent: '-1' }],
      }),
      400,
    ],
    [call(stack.app, 'PUT', `/api/partners/agencies/${strangers}/markups/`, parentAuth(parent.creds), { markups: [] }), 404],
    [parent.api.post(`/api/partners/agencies/${strangers}/disable/`), 404],
    [parent.api.post('/api/partners/agencies/', { name: '' }), 400],
  ];
  for (const [answer, status] of cases) {
    const { status: got, body } = await answer;
    expect([got, body]).toEqual([status, { ok: false, error: expect.any(String) }]);
  }
  expect(await ledgerRows()).toBe(rows);
  // Taking back more than the child has not used is refused; what it has not used comes back.
  await credit(child.creds.partner_id, '5000000', 'grant-3');
  const bought = await child.api.productOrder();
  expect((await child.api.post('/api/partners/pay/', { product_order_id: bought.id, idempotency_key: 'p' })).status).toBe(200);
  const used = -minor((await child.api.wallet()).balance);
  expect(used).toBeGreaterThan(0);
  const withdrawn = await credit(child.creds.partner_id, ((used - 1) / 100).toFixed(2), 'take-back');
  expect(withdrawn.status).toBe(400);
  const fine = await credit(child.creds.partner_id, (used / 100).toFixed(2), 'take-back-2');
  expect(fine.body.data.sub_agency).toMatchObject({ credit_limit: (used / 100).toFixed(2), available: '0.00' });
  // The same key with another limit is a conflict.
  expect((await credit(child.creds.partner_id, '7000000', 'take-back-2')).status).toBe(409);
});

it('operators manage sub-agencies through the admin API', async () => {
  const parent = await newPartner(stack, '0', '1000');
  const made = await call(stack.admin, 'POST', `/admin/partners/${parent.creds.partner_id}/agencies`, admin, { name: 'By an operator' });
  expect(made.status).toBe(201);
  const id = made.body.partner_id as number;
  const granted = await call(
    stack.admin,
    'POST',
    `/admin/partners/${parent.creds.partner_id}/agencies/${id}/credit`,
    { ...admin, 'idempotency-key': 'op-1' },
    { amount: '400' },
  );
  expect(granted.body).toMatchObject({ sub_agency: { credit_limit: '400.00' }, parent_wallet: { available: '600.00' } });
  const marked = await call(stack.admin, 'POST', `/admin/partners/${parent.creds.partner_id}/agencies/${id}/markups`, admin, { service: 'visa', fixed: '2' });
  expect(marked.body.results).toEqual([{ service: 'visa', percent: '0', fixed: '2.00' }]);
  const listed = await call(stack.admin, 'GET', `/admin/partners/${parent.creds.partner_id}/agencies`, admin);
  expect(listed.body.results).toEqual([expect.objectContaining({ id, credit_limit: '400.00', available: '400.00' })]);
  // An operator cannot give a sub-agency credit of the company's own: it comes from its parent.
  expect((await call(stack.admin, 'POST', `/admin/partners/${id}/credit-limit`, admin, { amount: '5' })).status).toBe(400);
  expect((await call(stack.admin, 'POST', `/admin/partners/${id}/agencies`, admin, { name: 'Too deep' })).status).toBe(400);
  // The CLI's commands are these routes.
  const cli = (line: string) => toCommand(line.split(' ')).command;
  expect(cli('agency child create --parent 1 --name Shiraz')).toMatchObject({ method: 'POST', path: '/admin/partners/1/agencies', body: { name: 'Shiraz' } });
  expect(cli('agency child credit --parent 1 --child 2 --amount 400 --idempotency-key k')).toMatchObject({
    method: 'POST',
    path: '/admin/partners/1/agencies/2/credit',
    body: { amount: '400' },
    headers: { 'idempotency-key': 'k' },
  });
  expect(cli('agency child markup --parent 1 --child 2')).toMatchObject({ method: 'GET', path: '/admin/partners/1/agencies/2/markups' });
  expect(() => cli('agency child credit --parent 1 --amount 4')).toThrow('--child is required');
});
