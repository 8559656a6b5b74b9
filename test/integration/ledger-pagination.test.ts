import { adminClient, partnerClient, typedPartner, type PartnerCredentials } from '../support/clients';
import { orderItems, orders } from '../../src/db/schema';
import { CURRENCY, type TestStack, useStack } from '../support/stack';

/**
 * GET /api/partners/ledger/ (spec §4.1, §8): newest first, 15 a page, DRF-style pages with
 * absolute next/previous links; amounts and the wallet render as two-decimal strings.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const LEDGER = '/api/partners/ledger/';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TWO_DECIMALS = /^-?\d+\.\d{2}$/;

/** Decimal string with two decimals → minor units, without floats. */
const minor = (s: string) => {
  expect(s).toMatch(TWO_DECIMALS);
  const negative = s.startsWith('-');
  const [whole, frac] = s.replace('-', '').split('.');
  const n = Number(whole) * 100 + Number(frac);
  return negative ? -n : n;
};
const decimal = (m: number) => `${m < 0 ? '-' : ''}${Math.floor(Math.abs(m) / 100)}.${String(Math.abs(m) % 100).padStart(2, '0')}`;

describe('ledger pagination', () => {
  let creds: PartnerCredentials;
  // 20 top-ups of distinct amounts: 1,000.01 … 20,000.20 (minor units), after an initial grant and top-up.
  const topups = Array.from({ length: 20 }, (_, i) => (i + 1) * 100_000 + (i + 1));

  beforeAll(async () => {
    creds = await adminClient(stack).createPartner({ credit_limit: '500000', topup: '1250000' });
    for (const amount of topups) {
      const res = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/topup`, { amount: decimal(amount) });
      expect(res.status).toBe(200);
    }
  });

  const api = () => partnerClient(stack, creds);
  const client = () => typedPartner(stack, creds);

  it('answers page 1: 15 newest rows, total_count, total_pages 2, absolute next, no previous', async () => {
    const res = await client().GET('/partners/ledger/');
    expect(res.response.status).toBe(200);
    expect(res.data?.ok).toBe(true);
    const page = res.data!.data;
    expect(page).toEqual({
      current_page: 1,
      total_pages: 2,
      total_count: 22,
      next: 'http://engine.test/api/partners/ledger/?page=2',
      previous: null,
      results: expect.any(Array),
    });
    expect(page.results).toHaveLength(15);
    // Newest first: the last top-up leads, ids strictly decrease.
    expect(page.results[0]).toMatchObject({ type: 'topup', direction: 'credit', amount: decimal(topups[19]!) });
    const ids = page.results.map((r) => r.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(new Set(ids).size).toBe(15);
    expect(page.results.map((r) => r.amount)).toEqual(
      topups
        .slice(5)
        .reverse()
        .map((m) => decimal(m)),
    );
  });

  it('answers ?page=1 exactly as no page parameter', async () => {
    const plain = await client().GET('/partners/ledger/');
    const first = await client().GET('/partners/ledger/', { params: { query: { page: '1' } } });
    expect(first.response.status).toBe(200);
    expect(first.data?.data.results).toEqual(plain.data?.data.results);
    expect(first.data?.data.next).toBe('http://engine.test/api/partners/ledger/?page=2');
    expect(first.data?.data.previous).toBeNull();
  });

  it('answers page 2 with the rest, and previous pointing to page 1 without a page parameter', async () => {
    const res = await client().GET('/partners/ledger/', { params: { query: { page: '2' } } });
    expect(res.response.status).toBe(200);
    const page = res.data!.data;
    expect(page).toMatchObject({ current_page: 2, total_pages: 2, total_count: 22, next: null });
    // pagination.ts drops `page` for page 1 (DRF's behaviour).
    expect(page.previous).toBe('http://engine.test/api/partners/ledger/');
    expect(page.results).toHaveLength(7);
    expect(page.results.map((r) => [r.type, r.amount])).toEqual([
      ...topups
        .slice(0, 5)
        .reverse()
        .map((m) => ['topup', decimal(m)]),
      ['topup', '1250000.00'],
      ['credit_grant', '500000.00'],
    ]);

    // The two pages together are every row once, newest first.
    const first = (await client().GET('/partners/ledger/')).data!.data.results;
    const all = [...first, ...page.results];
    expect(new Set(all.map((r) => r.id)).size).toBe(22);
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => b - a));
  });

  it('keeps other query parameters in next/previous links', async () => {
    const res = await api().get(`${LEDGER}?page=2&foo=bar`);
    expect(res.status).toBe(200);
    expect(res.body.data.previous).toBe('http://engine.test/api/partners/ledger/?foo=bar');
    const first = await api().get(`${LEDGER}?foo=bar`);
    expect(first.body.data.next).toBe('http://engine.test/api/partners/ledger/?foo=bar&page=2');
  });

  it('answers 404 {ok:false} past the last page', async () => {
    for (const p of ['3', '100']) {
      const res = await client().GET('/partners/ledger/', { params: { query: { page: p } } });
      expect({ p, status: res.response.status }).toEqual({ p, status: 404 });
      expect(res.error).toEqual({ ok: false, error: expect.any(String) });
    }
  });

  it.each(['0', 'abc', '-1', '1.5', '2abc', '1e1', '9999999999'])('answers 400 {ok:false} naming page to ?page=%s', async (p) => {
    const res = await api().get(`${LEDGER}?page=${p}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringMatching(/page/) });
  });

  it('renders every row with balance_after equal to the running balance', async () => {
    const rows = [
      ...(await client().GET('/partners/ledger/')).data!.data.results,
      ...(await client().GET('/partners/ledger/', { params: { query: { page: '2' } } })).data!.data.results,
    ].reverse(); // oldest first
    expect(rows).toHaveLength(22);
    let balance = 0;
    for (const row of rows) {
      expect(row.amount).toMatch(/^\d+\.\d{2}$/);
      expect(row.balance_after).toMatch(TWO_DECIMALS);
      expect(row.created_at).toMatch(ISO);
      expect(['debit', 'credit']).toContain(row.direction);
      if (row.type !== 'credit_grant') balance += (row.direction === 'credit' ? 1 : -1) * minor(row.amount);
      expect({ id: row.id, balance_after: row.balance_after }).toEqual({ id: row.id, balance_after: decimal(balance) });
    }
    expect(rows[0]).toMatchObject({ type: 'credit_grant', amount: '500000.00', balance_after: '0.00', order: null, product_order: null, reverses: null });
    expect(rows[1]).toMatchObject({ type: 'topup', amount: '1250000.00', balance_after: '1250000.00' });
    const expected = 125_000_000 + topups.reduce((a, b) => a + b, 0);
    expect(balance).toBe(expected);
    expect(rows.at(-1)!.balance_after).toBe(decimal(expected));
  });

  it('renders the wallet as decimal strings with available = balance + credit_limit', async () => {
    const res = await client().GET('/partners/wallet/');
    expect(res.response.status).toBe(200);
    const w = res.data!.data;
    expect(Object.keys(w).sort()).toEqual(['available', 'balance', 'credit_limit', 'currency', 'updated_at']);
    const balance = 125_000_000 + topups.reduce((a, b) => a + b, 0);
    expect(w).toEqual({
      balance: decimal(balance),
      credit_limit: '500000.00',
      available: decimal(balance + 50_000_000),
      currency: 'IRT',
      updated_at: expect.stringMatching(ISO),
    });
    expect(minor(w.available)).toBe(minor(w.balance) + minor(w.credit_limit));
    expect(new Date(w.updated_at).toISOString()).toBe(w.updated_at);
  });
});

describe('short lists', () => {
  it('renders a new partner’s amounts with two decimals ("1250000.00")', async () => {
    const creds = await adminClient(stack).createPartner({ topup: '1250000' });
    const api = partnerClient(stack, creds);
    const ledger = await typedPartner(stack, creds).GET('/partners/ledger/');
    expect(ledger.data?.data).toMatchObject({ current_page: 1, total_pages: 1, total_count: 1, next: null, previous: null });
    expect(ledger.data?.data.results).toEqual([
      {
        id: expect.any(Number),
        direction: 'credit',
        type: 'topup',
        amount: '1250000.00',
        balance_after: '1250000.00',
        order: null,
        product_order: null,
        reverses: null,
        note: 'initial top-up',
        created_at: expect.stringMatching(ISO),
        // The operator who created the partner with its top-up.
        actor: { type: 'operator', id: null, name: 'bootstrap' },
      },
    ]);
    expect(await api.wallet()).toMatchObject({ balance: '1250000.00', credit_limit: '0.00', available: '1250000.00' });
  });

  it('answers an empty ledger and empty order lists with page 1, total_count 0, results [] (not 404)', async () => {
    const creds = await adminClient(stack).createPartner();
    const api = partnerClient(stack, creds);
    for (const path of [LEDGER, '/api/partners/orders/', '/api/partners/product-orders/']) {
      const res = await api.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body).toEqual({
        ok: true,
        data: { current_page: 1, total_pages: 1, total_count: 0, next: null, previous: null, results: [] },
      });
      const two = await api.get(`${path}?page=2`);
      expect({ path, status: two.status }).toEqual({ path, status: 404 });
      expect(two.body).toEqual({ ok: false, error: expect.any(String) });
    }
    expect(await api.wallet()).toMatchObject({ balance: '0.00', credit_limit: '0.00', available: '0.00' });
  });

  it('pages each order list on its own: travel orders without product orders and the reverse, newest first, only the partner’s own', async () => {
    const [a, b] = [await adminClient(stack).createPartner(), await adminClient(stack).createPartner()];
    // Rows written as the engine writes them (the services' own flows are their own tests'): 17 travel and 2 product orders for A, one of each for B.
    const row = (partnerId: number, service: 'tour' | 'hotel' | 'product', n: number) => ({
      partnerId,
      service,
      totalPrice: 100 + n,
      currency: CURRENCY,
      paymentMethod: 'PARTNER_CREDIT' as const,
    });
    const travel = await stack.db
      .insert(orders)
      .values(Array.from({ length: 17 }, (_, i) => row(a.partner_id, i % 2 ? 'tour' : 'hotel', i)))
      .returning({ id: orders.id });
    const products = await stack.db
      .insert(orders)
      .values([row(a.partner_id, 'product', 0), row(a.partner_id, 'product', 1)])
      .returning({ id: orders.id });
    await stack.db.insert(orders).values([row(b.partner_id, 'tour', 0), row(b.partner_id, 'product', 0)]);
    // Lines written out of order across the two product orders: each order lists its own, in the order they were added.
    const line = (orderId: number, sku: string) => ({ orderId, productId: 1, sku, name: sku, quantity: 1, unitPrice: 100, lineTotal: 100 });
    await stack.db.insert(orderItems).values([line(products[1]!.id, 'B-1'), line(products[0]!.id, 'A-1'), line(products[1]!.id, 'B-2')]);
    const client = typedPartner(stack, a);
    const newestFirst = travel.map((o) => o.id).reverse();

    const one = (await client.GET('/partners/orders/')).data!.data;
    expect(one).toMatchObject({ current_page: 1, total_pages: 2, total_count: 17, previous: null });
    expect(one.results.map((o) => o.id)).toEqual(newestFirst.slice(0, 15));
    const two = (await client.GET('/partners/orders/', { params: { query: { page: '2' } } })).data!.data;
    expect(two).toMatchObject({ current_page: 2, total_pages: 2, total_count: 17, next: null });
    expect(two.results.map((o) => o.id)).toEqual(newestFirst.slice(15));
    const three = await client.GET('/partners/orders/', { params: { query: { page: '3' } } });
    expect(three.response.status).toBe(404);
    expect(three.error).toEqual({ ok: false, error: 'page 3 not found: there are 2 page(s)' });

    const bought = (await client.GET('/partners/product-orders/')).data!.data;
    expect(bought).toMatchObject({ current_page: 1, total_pages: 1, total_count: 2, next: null, previous: null });
    expect(bought.results.map((o) => [o.id, o.items.map((i) => i.sku)])).toEqual([
      [products[1]!.id, ['B-1', 'B-2']],
      [products[0]!.id, ['A-1']],
    ]);
    expect((await typedPartner(stack, b).GET('/partners/orders/')).data?.data.total_count).toBe(1);
  });

  it('shows a partner only its own ledger rows', async () => {
    const a = await adminClient(stack).createPartner({ topup: '10' });
    const b = await adminClient(stack).createPartner({ topup: '20' });
    const rowsA = (await typedPartner(stack, a).GET('/partners/ledger/')).data!.data.results;
    const rowsB = (await typedPartner(stack, b).GET('/partners/ledger/')).data!.data.results;
    expect(rowsA.map((r) => r.amount)).toEqual(['10.00']);
    expect(rowsB.map((r) => r.amount)).toEqual(['20.00']);
  });
});
