import { eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { listen, type RunningServer } from '../../src/platform/listen';
import { createSimulatorApp } from '../../src/suppliers/simulator/app';
import { newPartner } from '../support/clients';
import { contact, day, roomGuests } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';

/**
 * What a supplier answers is checked against its port before anything is priced or booked:
 * a fractional amount, a currency nobody knows, or a missing field never reaches a partner
 * (the API answers the supplier unavailable, 503), and a payment never debits an order in
 * a currency other than its wallet's.
 */
type Rewrite = (path: string, body: Record<string, any>) => Record<string, any>;
let rewrite: Rewrite | null = null;
let supplier: RunningServer;
/** The stack's settings, read when it starts (after the stand-in below listens). */
const env: Record<string, string> = {};

// The simulator, behind a stand-in that spoils chosen answers.
beforeAll(async () => {
  const simulator = createSimulatorApp({ slowMs: 3000 });
  supplier = await listen(
    async (req) => {
      const path = new URL(req.url).pathname;
      const res = await simulator.fetch(req);
      if (!rewrite || !res.ok || !res.headers.get('content-type')?.includes('json')) return res;
      return Response.json(rewrite(path, (await res.json()) as Record<string, any>), { status: res.status });
    },
    0,
    '127.0.0.1',
  );
  env.SUPPLIER_URL = supplier.url;
});
afterAll(() => supplier.close());
afterEach(() => (rewrite = null));

let stack: TestStack;
useStack((s) => (stack = s), { env });

const TEHRAN = 1;
const searchBody = { check_in: day(40), check_out: day(42), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: TEHRAN };
const unavailable = { ok: false, error: 'the supplier is unavailable right now; try again shortly' };

describe('supplier answers are checked at the port', () => {
  it.each<[string, Rewrite]>([
    ['a fractional price', (path, b) => (path === '/hotels/rates/check' ? { ...b, total_price_minor: b.total_price_minor + 0.5 } : b)],
    ['a negative price', (path, b) => (path === '/hotels/rates/check' ? { ...b, total_price_minor: -1 } : b)],
    ['a currency the engine does not know', (path, b) => (path === '/hotels/rates/check' ? { ...b, currency: 'XYZ' } : b)],
    ['no expiry', (path, b) => (path === '/hotels/rates/check' ? { ...b, expires_at: undefined } : b)],
  ])('a rate check answered with %s is refused, not priced', async (_, spoil) => {
    const { api } = await newPartner(stack);
    const found = await api.post('/api/hotel/search_hotels/', searchBody);
    const rateKey = (found.body as any).data.results[0].rates[0].rate_key;
    rewrite = spoil;
    const checked = await api.post('/api/hotel/check_rate/', { rate_key: rateKey });
    expect(checked.status).toBe(503);
    expect(checked.body).toEqual(unavailable);
  });

  it('a search whose rates come in a currency the engine does not know is refused', async () => {
    const { api } = await newPartner(stack);
    rewrite = (path, b) =>
      path === '/hotels/availability' ? { ...b, hotels: b.hotels.map((h: any) => ({ ...h, rates: h.rates.map((r: any) => ({ ...r, currency: 'usd' })) })) } : b;
    const found = await api.post('/api/hotel/search_hotels/', searchBody);
    expect(found.status).toBe(503);
    expect(found.body).toEqual(unavailable);
  });
});

describe('the debit checks currencies', () => {
  it('an order in another currency than its wallet is not payable, and nothing moves', async () => {
    const { api, client } = await newPartner(stack, undefined, '100000000');
    const found = await api.post('/api/hotel/search_hotels/', searchBody);
    const rateKey = (found.body as any).data.results[0].rates[0].rate_key;
    const booked = await client.POST('/hotel/book/', { body: { rate_key: rateKey, guests: roomGuests, contact } });
    const ordered = await client.POST('/hotel/order/', { body: { booking_id: booked.data!.data.booking_id } });
    const orderId = ordered.data!.data.id;
    await stack.db.update(orders).set({ currency: 'EUR' }).where(eq(orders.id, orderId));
    const before = await api.wallet();

    const paid = await client.POST('/partners/pay/', { body: { order_id: orderId } });
    expect(paid.response.status).toBe(400);
    expect(paid.error?.error).toBe(`order ${orderId} is priced in EUR and cannot be paid from a wallet in IRT`);
    expect(await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId))).toEqual([]);
    expect((await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status).toBe('pending');
    expect(await api.wallet()).toEqual(before);
  });
});
