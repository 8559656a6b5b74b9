import { eq } from 'drizzle-orm';
import { basketItems, baskets } from '../../src/db/schema';
import { SEED_CATEGORIES, SEED_PRODUCTS } from '../../src/db/seed/catalog-data';
import { call, newPartner as partnerWithWallet } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

let stack: TestStack;
useStack((s) => (stack = s));

const newPartner = (credit_limit?: string, topup?: string) => partnerWithWallet(stack, credit_limit, topup);

// The seed gives ids in array order, starting at 1, to categories, products and variants alike.
const categoryId = (slug: string) => SEED_CATEGORIES.findIndex((c) => c.slug === slug) + 1;
const productId = (sku: string) => {
  const i = SEED_PRODUCTS.findIndex((p) => p.sku === sku);
  if (i < 0) throw new Error(`no seed product ${sku}`);
  return i + 1;
};
const variantId = (sku: string) => {
  const all = SEED_PRODUCTS.flatMap((p) => p.variants);
  const i = all.findIndex((v) => v.sku === sku);
  if (i < 0) throw new Error(`no seed variant ${sku}`);
  return i + 1;
};

const TURKEY_ESIM = productId('ESIM-TR'); // 1; variants 3 GB 550,000.00 / 10 GB 1,200,000.00 / 20 GB 1,950,000.00
const TR_3GB = variantId('ESIM-TR-3GB-7D');
const TR_10GB = variantId('ESIM-TR-10GB-15D');
const UAE_3GB = variantId('ESIM-AE-3GB-7D');
const ADAPTER = productId('ACC-ADAPTER-UNIVERSAL'); // no variants, 650,000.00
const OUT_OF_STOCK = productId('ACC-LUGGAGE-TRACKER'); // stock 0, no variants
const OUT_OF_STOCK_WITH_VARIANTS = productId('SIM-EU'); // stock 0, has variants

const ITEMS = '/api/products/basket/items/';
const CURRENT = '/api/products/basket/current';
const CHECKOUT = '/api/products/checkout/';
const PRODUCTS = '/api/products/products/';

const basketRows = async (partnerId: number) => {
  const open = await stack.db.select().from(baskets).where(eq(baskets.partnerId, partnerId));
  const items = [];
  for (const b of open) items.push(...(await stack.db.select().from(basketItems).where(eq(basketItems.basketId, b.id))));
  return { baskets: open.length, items };
};

describe('catalogue', () => {
  it('sanity: the seed has the ids this file assumes', () => {
    expect(SEED_PRODUCTS.length).toBe(26);
    expect(TURKEY_ESIM).toBe(1);
    expect([TR_3GB, TR_10GB]).toEqual([1, 2]);
    expect(SEED_PRODUCTS[OUT_OF_STOCK - 1]!.stock).toBe(0);
    expect(SEED_PRODUCTS[OUT_OF_STOCK_WITH_VARIANTS - 1]!.stock).toBe(0);
    expect(SEED_PRODUCTS[ADAPTER - 1]!.variants).toEqual([]);
  });

  it('sanity: every seeded product with variants names one of them its default', () => {
    for (const p of SEED_PRODUCTS) {
      if (p.variants.length === 0) expect({ sku: p.sku, default: p.default_variant }).toEqual({ sku: p.sku, default: undefined });
      else expect({ sku: p.sku, found: p.variants.some((v) => v.sku === p.default_variant) }).toEqual({ sku: p.sku, found: true });
    }
    expect(SEED_PRODUCTS[TURKEY_ESIM - 1]!.default_variant).toBe('ESIM-TR-10GB-15D');
  });

  it('GET product-categories lists modem, sim and accessory', async () => {
    const { api } = await newPartner();
    const res = await api.get('/api/products/product-categories/');
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data.map((c: { slug: string }) => c.slug).sort()).toEqual(['accessory', 'modem', 'sim']);
    for (const c of res.body.data) {
      expect(c).toEqual({ id: expect.any(Number), slug: expect.any(String), name: expect.any(String) });
    }
    expect(res.body.data.find((c: { slug: string }) => c.slug === 'sim')).toEqual({ id: categoryId('sim'), slug: 'sim', name: 'SIM Cards & eSIMs' });
  });

  it('requires credentials', async () => {
    const res = await stack.app.request(`http://engine.test${PRODUCTS}`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { ok: boolean }).ok).toBe(false);
  });

  it('GET products pages by 15 with absolute next/previous links', async () => {
    const { api } = await newPartner();
    const first = await api.get(PRODUCTS);
    expect(first.status).toBe(200);
    expect(first.body.ok).toBe(true);
    const p1 = first.body.data;
    expect(p1.total_count).toBeGreaterThanOrEqual(20);
    expect(p1.total_count).toBe(SEED_PRODUCTS.length);
    expect(p1.current_page).toBe(1);
    expect(p1.total_pages).toBe(Math.ceil(p1.total_count / 15));
    expect(p1.results).toHaveLength(15);
    expect(p1.previous).toBeNull();
    expect(p1.next).toMatch(/^http:\/\/engine\.test\/api\/products\/products\/\?(.*&)?page=2(&|$)/);
    expect(p1.results.map((p: { id: number }) => p.id)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));

    const second = await api.get(new URL(p1.next).pathname + new URL(p1.next).search);
    expect(second.status).toBe(200);
    const p2 = second.body.data;
    expect(p2.current_page).toBe(2);
    expect(p2.total_count).toBe(p1.total_count);
    expect(p2.results).toHaveLength(p1.total_count - 15);
    expect(p2.next).toBeNull();
    expect(p2.previous).toMatch(/^http:\/\/engine\.test\/api\/products\/products\//);
    expect(p2.previous).not.toMatch(/page=2/);
    const ids = [...p1.results, ...p2.results].map((p: { id: number }) => p.id);
    expect(new Set(ids).size).toBe(p1.total_count);

    // Every listed product has the documented shape.
    const tr = p1.results[0];
    expect(tr).toMatchObject({
      id: TURKEY_ESIM,
      sku: 'ESIM-TR',
      name: 'Turkey eSIM',
      category: { id: categoryId('sim'), slug: 'sim' },
      destinations: ['TR'],
      price: '550000.00',
      currency: 'IRT',
      delivery: 'digital',
      in_stock: true,
    });
    expect(tr.variants).toHaveLength(3);
  });

  it('answers 404 past the last page and 400 naming page for a bad page', async () => {
    const { api } = await newPartner();
    const past = await api.get(`${PRODUCTS}?page=99`);
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ ok: false, error: expect.any(String) });

    for (const bad of ['0', 'abc', '-1', '1.5']) {
      const res = await api.get(`${PRODUCTS}?page=${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body).toEqual({ ok: false, error: expect.stringMatching(/^page: /) });
    }
  });

  it('searches product names case-insensitively', async () => {
    const { api } = await newPartner();
    const res = await api.get(`${PRODUCTS}?search=turkey`);
    expect(res.status).toBe(200);
    const names = res.body.data.results.map((p: { name: string }) => p.name);
    expect(names).toContain('Turkey eSIM');
    expect(names.length).toBe(SEED_PRODUCTS.filter((p) => /turkey/i.test(p.name)).length);
    for (const n of names) expect(n).toMatch(/turkey/i);
    expect(res.body.data.total_count).toBe(names.length);

    const upper = await api.get(`${PRODUCTS}?search=TURKEY%20ESIM`);
    expect(upper.body.data.results.map((p: { name: string }) => p.name)).toEqual(['Turkey eSIM']);
  });

  it('answers an empty page for a search that matches nothing, and treats LIKE wildcards as text', async () => {
    const { api } = await newPartner();
    for (const q of ['zzzz-no-such-product', '%25', '_', '100%25']) {
      const res = await api.get(`${PRODUCTS}?search=${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
      expect(res.body.data).toEqual({ current_page: 1, total_pages: 1, total_count: 0, next: null, previous: null, results: [] });
    }
  });

  it('filters by category id, and keeps the filter in the next link', async () => {
    const { api } = await newPartner();
    const sim = categoryId('sim');
    const res = await api.get(`${PRODUCTS}?category=${sim}`);
    expect(res.status).toBe(200);
    const simCount = SEED_PRODUCTS.filter((p) => p.category === 'sim').length;
    expect(res.body.data.total_count).toBe(simCount);
    const all = [...res.body.data.results];
    if (res.body.data.next) {
      expect(res.body.data.next).toContain(`category=${sim}`);
      expect(res.body.data.next).toContain('page=2');
      const u = new URL(res.body.data.next);
      const more = await api.get(u.pathname + u.search);
      all.push(...more.body.data.results);
    }
    expect(all).toHaveLength(simCount);
    for (const p of all) expect(p.category).toMatchObject({ id: sim, slug: 'sim' });

    const combined = await api.get(`${PRODUCTS}?category=${categoryId('modem')}&search=turkey`);
    expect(combined.body.data.results.map((p: { sku: string }) => p.sku)).toEqual(['MODEM-TR']);

    const bad = await api.get(`${PRODUCTS}?category=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ok: false, error: expect.stringMatching(/^category: /) });
  });

  it('GET products/{id}/ gives the detail with variants priced as two-decimal strings', async () => {
    const { api } = await newPartner();
    const res = await api.get(`${PRODUCTS}${TURKEY_ESIM}/`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.data).toMatchObject({
      id: TURKEY_ESIM,
      sku: 'ESIM-TR',
      name: 'Turkey eSIM',
      price: '550000.00',
      currency: 'IRT',
      in_stock: true,
      category: { id: categoryId('sim'), slug: 'sim', name: 'SIM Cards & eSIMs' },
    });
    expect(res.body.data.variants).toEqual([
      { id: TR_3GB, sku: 'ESIM-TR-3GB-7D', name: '3 GB / 7 days', price: '550000.00', data_gb: 3, validity_days: 7 },
      { id: TR_10GB, sku: 'ESIM-TR-10GB-15D', name: '10 GB / 15 days', price: '1200000.00', data_gb: 10, validity_days: 15 },
      { id: variantId('ESIM-TR-20GB-30D'), sku: 'ESIM-TR-20GB-30D', name: '20 GB / 30 days', price: '1950000.00', data_gb: 20, validity_days: 30 },
    ]);
    for (const v of res.body.data.variants) expect(v.price).toMatch(/^\d+\.\d{2}$/);
    expect(res.body.data.default_variant).toBe(TR_10GB);

    const adapter = await api.get(`${PRODUCTS}${ADAPTER}/`);
    expect(adapter.body.data).toMatchObject({ sku: 'ACC-ADAPTER-UNIVERSAL', price: '650000.00', variants: [], default_variant: null, destinations: [] });
    const gone = await api.get(`${PRODUCTS}${OUT_OF_STOCK}/`);
    expect(gone.body.data).toMatchObject({ sku: 'ACC-LUGGAGE-TRACKER', in_stock: false });
  });

  it('answers 404 for an unknown product and 400 for a non-integer id', async () => {
    const { api } = await newPartner();
    const missing = await api.get(`${PRODUCTS}99999/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ ok: false, error: expect.stringContaining('not found') });

    const bad = await api.get(`${PRODUCTS}abc/`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ok: false, error: expect.stringMatching(/^id: /) });
  });
});

describe('basket', () => {
  it('adds an item (201), merges the same product+variant and shows the current basket', async () => {
    const { api } = await newPartner();
    const empty = await api.get(CURRENT);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ ok: true, data: { id: null, items: [], item_count: 0, total_price: '0.00', currency: 'IRT' } });

    const add = await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_3GB, quantity: 2 });
    expect(add.status).toBe(201);
    expect(add.body.ok).toBe(true);
    expect(add.body.data.item).toEqual({
      id: expect.any(Number),
      product: TURKEY_ESIM,
      variant: TR_3GB,
      name: 'Turkey eSIM (3 GB / 7 days)',
      quantity: 2,
      unit_price: '550000.00',
      line_total: '1100000.00',
    });
    expect(add.body.data.basket).toMatchObject({ id: expect.any(Number), item_count: 2, total_price: '1100000.00', currency: 'IRT' });
    expect(add.body.data.basket.items).toEqual([add.body.data.item]);
    const itemId = add.body.data.item.id;

    const again = await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_3GB, quantity: 3 });
    expect(again.status).toBe(201);
    expect(again.body.data.item).toMatchObject({ id: itemId, quantity: 5, line_total: '2750000.00' });
    expect(again.body.data.basket.items).toHaveLength(1);
    expect(again.body.data.basket.id).toBe(add.body.data.basket.id);

    const other = await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_10GB, quantity: 1 });
    expect(other.status).toBe(201);
    expect(other.body.data.item.id).not.toBe(itemId);
    const adapter = await api.post(ITEMS, { product: ADAPTER, quantity: 1 });
    expect(adapter.status).toBe(201);
    expect(adapter.body.data.item).toMatchObject({ product: ADAPTER, variant: null, name: 'Universal Travel Adapter', unit_price: '650000.00' });

    const current = await api.get(CURRENT);
    expect(current.status).toBe(200);
    expect(current.body.data).toMatchObject({
      id: add.body.data.basket.id,
      item_count: 7,
      total_price: '4600000.00', // 5 × 550,000 + 1,200,000 + 650,000
      currency: 'IRT',
    });
    expect(current.body.data.items.map((i: { product: number; variant: number | null; quantity: number }) => [i.product, i.variant, i.quantity])).toEqual([
      [TURKEY_ESIM, TR_3GB, 5],
      [TURKEY_ESIM, TR_10GB, 1],
      [ADAPTER, null, 1],
    ]);
  });

  it('takes the default variant when the item names none, merges it with the same variant named, and pays for it', async () => {
    const { api } = await newPartner();
    const detail = (await api.get(`${PRODUCTS}${TURKEY_ESIM}/`)).body.data;
    expect(detail.default_variant).toBe(TR_10GB);

    const add = await api.post(ITEMS, { product: TURKEY_ESIM, quantity: 1 });
    expect(add.status).toBe(201);
    expect(add.body.data.item).toMatchObject({ product: TURKEY_ESIM, variant: TR_10GB, name: 'Turkey eSIM (10 GB / 15 days)', unit_price: '1200000.00' });
    const named = await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_10GB, quantity: 1 });
    expect(named.body.data.item).toMatchObject({ id: add.body.data.item.id, quantity: 2 });
    // Another product's default: a modem's 15-day rental.
    const modem = await api.post(ITEMS, { product: productId('MODEM-TR'), quantity: 1 });
    expect(modem.body.data.item).toMatchObject({ variant: variantId('MODEM-TR-15D'), unit_price: '4600000.00' });
    await api.delete(`${ITEMS}${modem.body.data.item.id}/`);

    const order = (await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT' })).body.data;
    expect(order.items).toEqual([expect.objectContaining({ variant: TR_10GB, sku: 'ESIM-TR-10GB-15D', quantity: 2, line_total: '2400000.00' })]);
    const paid = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'default-variant-1' });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ amount: 2400000, order_status: 'completed', order_id: order.id });
    expect(await api.wallet()).toMatchObject({ balance: '7600000.00' });
  });

  it('removes an item; a second delete is 404', async () => {
    const { api } = await newPartner();
    const a = await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_3GB, quantity: 1 });
    const b = await api.post(ITEMS, { product: ADAPTER, quantity: 2 });
    const del = await api.delete(`${ITEMS}${a.body.data.item.id}/`);
    expect(del.status).toBe(200);
    expect(del.body.ok).toBe(true);
    expect(del.body.data.items.map((i: { id: number }) => i.id)).toEqual([b.body.data.item.id]);
    expect(del.body.data).toMatchObject({ item_count: 2, total_price: '1300000.00' });

    const current = await api.get(CURRENT);
    expect(current.body.data.items.map((i: { id: number }) => i.id)).toEqual([b.body.data.item.id]);

    const twice = await api.delete(`${ITEMS}${a.body.data.item.id}/`);
    expect(twice.status).toBe(404);
    expect(twice.body).toEqual({ ok: false, error: expect.any(String) });

    const bad = await api.delete(`${ITEMS}abc/`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^id: /);
  });

  it('keeps baskets per partner: another partner cannot delete my item and has its own empty basket', async () => {
    const { api: owner } = await newPartner();
    const { creds: intruderCreds, api: intruder } = await newPartner();
    const add = await owner.post(ITEMS, { product: TURKEY_ESIM, variant: TR_3GB, quantity: 1 });
    const itemId = add.body.data.item.id;

    const res = await intruder.delete(`${ITEMS}${itemId}/`);
    expect(res.status).toBe(404);
    expect(res.body.ok).toBe(false);

    const theirs = await intruder.get(CURRENT);
    expect(theirs.body).toEqual({ ok: true, data: { id: null, items: [], item_count: 0, total_price: '0.00', currency: 'IRT' } });
    expect(await basketRows(intruderCreds.partner_id)).toEqual({ baskets: 0, items: [] });

    const mine = await owner.get(CURRENT);
    expect(mine.body.data.items.map((i: { id: number }) => i.id)).toEqual([itemId]);
  });

  it('refuses bad items with 400 naming the field and writes nothing', async () => {
    const { creds, api } = await newPartner();
    const seeded = await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_3GB, quantity: 1 });
    expect(seeded.status).toBe(201);
    const before = await api.get(CURRENT);
    const rowsBefore = await basketRows(creds.partner_id);

    const cases: Array<[unknown, RegExp]> = [
      [{ product: 99999, quantity: 1 }, /^product: /],
      [{ product: TURKEY_ESIM, variant: UAE_3GB, quantity: 1 }, /^variant: /],
      [{ product: ADAPTER, variant: TR_3GB, quantity: 1 }, /^variant: /],
      [{ product: TURKEY_ESIM, variant: TR_3GB, quantity: 0 }, /^quantity: /],
      [{ product: TURKEY_ESIM, variant: TR_3GB, quantity: -1 }, /^quantity: /],
      [{ product: TURKEY_ESIM, variant: TR_3GB, quantity: 101 }, /^quantity: /],
      [{ product: TURKEY_ESIM, variant: TR_3GB, quantity: 1.5 }, /^quantity: /],
      [{ product: TURKEY_ESIM, variant: TR_3GB, quantity: '2' }, /^quantity: /],
      [{ product: TURKEY_ESIM, variant: TR_3GB }, /^quantity: /],
      [{ product: String(TURKEY_ESIM), variant: TR_3GB, quantity: 1 }, /^product: /],
      [{ variant: TR_3GB, quantity: 1 }, /^product: /],
      [{ product: TURKEY_ESIM, variant: 'x', quantity: 1 }, /^variant: /],
      [{ product: OUT_OF_STOCK, quantity: 1 }, /^product: .*out of stock/],
      [{ product: OUT_OF_STOCK_WITH_VARIANTS, variant: variantId('SIM-EU-10GB-15D'), quantity: 1 }, /^product: .*out of stock/],
      // 1 already in the basket: 100 more would make 101 on one line.
      [{ product: TURKEY_ESIM, variant: TR_3GB, quantity: 100 }, /^quantity: /],
    ];
    for (const [body, message] of cases) {
      const res = await api.post(ITEMS, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect({ body, ok: res.body.ok }).toEqual({ body, ok: false });
      expect({ body, error: res.body.error }).toEqual({ body, error: expect.stringMatching(message) });
    }

    const notJson = await api.raw('POST', ITEMS, { 'content-type': 'application/json' }, '{bad');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ ok: false, error: expect.any(String) });

    const textPlain = await api.raw('POST', ITEMS, { 'content-type': 'text/plain' }, 'x');
    expect(textPlain.status).toBe(415);
    expect(textPlain.body).toEqual({ ok: false, error: expect.any(String) });

    expect(await api.get(CURRENT)).toMatchObject({ status: 200, body: before.body });
    expect(await basketRows(creds.partner_id)).toEqual(rowsBefore);
    expect((await api.get(CURRENT)).body.data).toMatchObject({ item_count: 1, total_price: '550000.00' });
  });

  it('writes no basket at all for a partner whose first add is refused', async () => {
    const { creds, api } = await newPartner();
    const res = await api.post(ITEMS, { product: OUT_OF_STOCK, quantity: 1 });
    expect(res.status).toBe(400);
    expect(await basketRows(creds.partner_id)).toEqual({ baskets: 0, items: [] });
    expect((await api.get(CURRENT)).body.data.id).toBeNull();
  });
});

describe('checkout', () => {
  it('refuses an empty basket with 400', async () => {
    const { creds, api } = await newPartner();
    const res = await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining('empty') });
    expect((await api.get('/api/partners/product-orders/')).body.data.total_count).toBe(0);
    expect(await basketRows(creds.partner_id)).toEqual({ baskets: 0, items: [] });
  });

  it('takes a checkout without a body (every field has a default, as documented): a GATEWAY order', async () => {
    const { creds, api } = await newPartner();
    await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_10GB, quantity: 1 });
    // No body and no Content-Type, as a contract fuzzer sends it (was a 500: the defaults were skipped).
    const res = await call(stack.app, 'POST', CHECKOUT, { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'pending', payment_method: 'GATEWAY', delivery: null });
  });

  it('turns the basket into a pending PARTNER_CREDIT order and empties the basket', async () => {
    const { api } = await newPartner();
    await api.post(ITEMS, { product: TURKEY_ESIM, variant: TR_10GB, quantity: 2 });
    await api.post(ITEMS, { product: ADAPTER, quantity: 1 });
    const basket = (await api.get(CURRENT)).body.data;
    expect(basket.total_price).toBe('3050000.00');

    const res = await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT' });
    expect(res.status).toBe(201);
    expect(res.body.ok).toBe(true);
    const order = res.body.data;
    expect(order).toMatchObject({
      id: expect.any(Number),
      status: 'pending',
      total_price_irt: basket.total_price,
      currency: 'IRT',
      payment_method: 'PARTNER_CREDIT',
      delivery: null,
      supplier_ref: null,
      completed_at: null,
    });
    expect(order.items).toEqual([
      {
        product: TURKEY_ESIM,
        variant: TR_10GB,
        sku: 'ESIM-TR-10GB-15D',
        name: 'Turkey eSIM (10 GB / 15 days)',
        quantity: 2,
        unit_price: '1200000.00',
        line_total: '2400000.00',
      },
      {
        product: ADAPTER,
        variant: null,
        sku: 'ACC-ADAPTER-UNIVERSAL',
        name: 'Universal Travel Adapter',
        quantity: 1,
        unit_price: '650000.00',
        line_total: '650000.00',
      },
    ]);

    const after = await api.get(CURRENT);
    expect(after.body.data).toMatchObject({ id: null, items: [], item_count: 0, total_price: '0.00' });
    const again = await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT' });
    expect(again.status).toBe(400);

    // The next add opens a fresh basket.
    const next = await api.post(ITEMS, { product: ADAPTER, quantity: 1 });
    expect(next.body.data.basket.id).not.toBe(basket.id);
    expect(next.body.data.basket.items).toHaveLength(1);

    // No money moved: checkout only creates the pending order.
    expect(await api.wallet()).toMatchObject({ balance: '10000000.00' });
  });

  it('defaults payment_method to GATEWAY and refuses an unknown one', async () => {
    const { api } = await newPartner();
    await api.post(ITEMS, { product: ADAPTER, quantity: 1 });
    const cash = await api.post(CHECKOUT, { payment_method: 'CASH' });
    expect(cash.status).toBe(400);
    expect(cash.body).toEqual({ ok: false, error: expect.stringMatching(/^payment_method: /) });
    expect((await api.get(CURRENT)).body.data.items).toHaveLength(1);

    const res = await api.post(CHECKOUT, {});
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ payment_method: 'GATEWAY', status: 'pending', total_price_irt: '650000.00' });
  });

  it('accepts delivery details and echoes them; refuses a country that is not an ISO code', async () => {
    const { api } = await newPartner();
    await api.post(ITEMS, { product: productId('SIM-TR'), variant: variantId('SIM-TR-10GB-15D'), quantity: 1 });
    const delivery = { recipient_name: 'Ayşe Yılmaz', street: 'İstiklal Cd. 12', city: 'Istanbul', country: 'TR' };

    const bad = await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT', delivery: { ...delivery, country: 'Turkey' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ok: false, error: expect.stringMatching(/^delivery\.country: /) });
    const missing = await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT', delivery: { ...delivery, city: undefined } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^delivery\.city: /);
    expect((await api.get(CURRENT)).body.data.items).toHaveLength(1);

    const res = await api.post(CHECKOUT, { payment_method: 'PARTNER_CREDIT', delivery });
    expect(res.status).toBe(201);
    expect(res.body.data.delivery).toEqual(delivery);
    expect(res.body.data.total_price_irt).toBe('1350000.00');

    const listed = await api.get('/api/partners/product-orders/');
    expect(listed.body.data.results[0]).toMatchObject({ id: res.body.data.id, delivery });
  });

  it('lists the product order under product-orders and not under travel orders', async () => {
    const { api } = await newPartner();
    const order = await api.productOrder({ quantity: 3 });
    expect(order).toMatchObject({ status: 'pending', total_price_irt: '1650000.00' });

    const products = await api.get('/api/partners/product-orders/');
    expect(products.status).toBe(200);
    expect(products.body.data.total_count).toBe(1);
    expect(products.body.data.results[0]).toMatchObject({
      id: order.id,
      status: 'pending',
      payment_method: 'PARTNER_CREDIT',
      total_price_irt: '1650000.00',
      items: [{ product: TURKEY_ESIM, variant: TR_3GB, sku: 'ESIM-TR-3GB-7D', quantity: 3 }],
    });

    const travel = await api.get('/api/partners/orders/');
    expect(travel.status).toBe(200);
    expect(travel.body.data.total_count).toBe(0);
    expect(travel.body.data.results.map((o: { id: number }) => o.id)).not.toContain(order.id);

    const { api: other } = await newPartner();
    expect((await other.get('/api/partners/product-orders/')).body.data.total_count).toBe(0);
  });
});

// Ids are int4 columns: a larger id in a path is simply not found, in a body a 400, never
// the database's "value out of range" as a 500.
describe('ids beyond the int4 range', () => {
  const BEYOND = 2147483648; // 2^31: one past the largest serial id

  it('GET products/{id}/ answers 404, not 500', async () => {
    const { api } = await newPartner();
    expect((await api.get(`${PRODUCTS}2147483647/`)).status).toBe(404); // the largest int4 is fine
    const res = await api.get(`${PRODUCTS}${BEYOND}/`);
    expect(res.status).toBe(404);
  });

  it('DELETE basket/items/{id}/ answers 404, not 500', async () => {
    const { api } = await newPartner();
    await api.post(ITEMS, { product: ADAPTER, quantity: 1 });
    const res = await api.delete(`${ITEMS}${BEYOND}/`);
    expect(res.status).toBe(404);
  });

  it('POST basket/items/ answers 400 naming product, not 500', async () => {
    const { api } = await newPartner();
    const res = await api.post(ITEMS, { product: BEYOND, quantity: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^product: /);
  });
});
