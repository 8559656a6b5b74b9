import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { newPartner } from '../support/clients';
import { day } from '../support/fixtures';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/**
 * The search layer over HTTP (docs/decisions/search-layer.md): Interface A's hotel and flight
 * searches and Interface B's hotel search served from the cache (X-Search-Cache), compressed
 * when the client accepts it, the supplier's budget answered with 503 and Retry-After in
 * each interface's shape, and the price a partner books still checked with the supplier.
 * The cache is on (the defaults' times to live; other tests' stacks search the supplier
 * directly); the simulator may be sent 2 searches a second; a search waits up to 1 s for its turn.
 */
let stack: TestStack;
useStack((s) => (stack = s), { env: { SEARCH_TTLS: 'simulator.hotels=300,simulator.flights=120', SEARCH_BUDGETS: 'simulator=2', SEARCH_QUEUE_MS: '1000' } });

const TEHRAN = 1;
const ISTANBUL = 7;
const hotelSearch = (city_id: number, from = 40) => ({
  city_id,
  check_in: day(from),
  check_out: day(from + 2),
  nationality_id: 'IR',
  rooms: [{ adult_count: 2 }],
});

async function post(headers: Record<string, string>, path: string, body: unknown) {
  const res = await stack.app.request(`http://engine.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const keysOf = (creds: { api_key: string; api_secret: string }) => ({ 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret });

describe('searches through the search layer', () => {
  it('serves a repeated hotel search from the cache, the same answer for the same partner', async () => {
    const { creds } = await newPartner(stack);
    const first = await post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(TEHRAN));
    const again = await post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(TEHRAN));
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(first.headers.get('x-search-cache')).toBe('miss');
    expect(again.headers.get('x-search-cache')).toBe('fresh');
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(JSON.parse(first.bytes.toString()).data.results.length).toBeGreaterThan(0);
    const scrape = await (await stack.admin.request('http://engine.test/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(scrape).toMatch(/^search_requests_total\{supplier="simulator",service="hotels",outcome="fresh"\} [1-9]/m);
    expect(scrape).toMatch(/^supplier_search_calls_total\{supplier="simulator",service="hotels",result="ok"\} [1-9]/m);
    expect(scrape).toMatch(/^supplier_search_budget_per_second\{supplier="simulator"\} 2$/m);
    // The answer kept is memory the engine tells apart, as is the embedded database's.
    expect(scrape).toMatch(/^engine_memory_bytes\{part="search_cache"\} [1-9]\d{3,}$/m);
    if (!process.env.DATABASE_URL) expect(scrape).toMatch(/^engine_memory_bytes\{part="pglite"\} [1-9]\d{7,}$/m);
  });

  it('prices a cached answer for each partner: one with a markup of its own sees its own prices', async () => {
    const plain = await newPartner(stack);
    const same = await newPartner(stack);
    const marked = await newPartner(stack);
    const rule = await stack.admin.request('http://engine.test/admin/markups', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'hotels', partner: marked.creds.partner_id, percent: '10', fixed: '5' }),
    });
    expect(rule.status).toBe(201);
    const body = async (creds: { api_key: string; api_secret: string }) => {
      const res = await post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(TEHRAN, 41));
      return { served: res.headers.get('x-search-cache'), data: JSON.parse(res.bytes.toString()).data };
    };
    const [a, b, m] = [await body(plain.creds), await body(same.creds), await body(marked.creds)];
    expect([a.served, b.served, m.served]).toEqual(['miss', 'fresh', 'fresh']);
    type Result = { results: Array<{ rates: Array<{ rate_key: string; total_price: string }> }> };
    const prices = (d: Result) => d.results.flatMap((h) => h.rates.map((r) => Number(r.total_price)));
    expect(prices(b.data)).toEqual(prices(a.data));
    const marked_ = prices(m.data);
    expect(marked_).toHaveLength(prices(a.data).length);
    // 10% of net (to the minor unit) + 5.00.
    prices(a.data).forEach((net, i) => expect(Math.abs(marked_[i]! - (net + net / 10 + 5))).toBeLessThanOrEqual(0.006));
    const keys = (d: Result) => d.results.flatMap((h) => h.rates.map((r) => r.rate_key));
    expect(keys(m.data).filter((k) => keys(a.data).includes(k))).toEqual([]);
  });

  it('compresses a large answer with brotli or gzip as the client accepts, and sends it plain otherwise', async () => {
    const { creds } = await newPartner(stack);
    const plain = await post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(TEHRAN, 42));
    expect(plain.headers.get('content-encoding')).toBeNull();
    const br = await post({ ...keysOf(creds), 'accept-encoding': 'gzip, deflate, br' }, '/api/hotel/search_hotels/', hotelSearch(TEHRAN, 42));
    const gz = await post({ ...keysOf(creds), 'accept-encoding': 'gzip;q=1, br;q=0.5' }, '/api/hotel/search_hotels/', hotelSearch(TEHRAN, 42));
    const none = await post({ ...keysOf(creds), 'accept-encoding': 'br;q=0, gzip;q=0' }, '/api/hotel/search_hotels/', hotelSearch(TEHRAN, 42));
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(none.headers.get('content-encoding')).toBeNull();
    expect(br.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
    expect(gunzipSync(gz.bytes).equals(plain.bytes)).toBe(true);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length);
  });

  it("serves Interface B's hotel search and Interface A's flight search from the cache too", async () => {
    const { creds } = await newPartner(stack);
    const b = (city: string) =>
      stack.app.request(`http://engine.test/v1/hotels/search?city=${city}&check_in=${day(50)}&check_out=${day(52)}&guests=2`, {
        headers: { authorization: `Bearer ${creds.agency_key}` },
      });
    const [firstB, againB] = [await b('Istanbul'), await b('IST')];
    expect([firstB.status, againB.status]).toEqual([200, 200]);
    expect([firstB.headers.get('x-search-cache'), againB.headers.get('x-search-cache')]).toEqual(['miss', 'fresh']);
    const flight = {
      origin: 'THR',
      destination: 'MHD',
      departure_date_time: `${day(30)}T08:00:00Z`,
      cabin_type: 'economy',
      air_trip_type: 'one_way',
      adult_count: 1,
    };
    const firstF = await post(keysOf(creds), '/api/flights/search_flights/', flight);
    const againF = await post(keysOf(creds), '/api/flights/search_flights/', flight);
    expect([firstF.status, againF.status]).toEqual([200, 200]);
    expect([firstF.headers.get('x-search-cache'), againF.headers.get('x-search-cache')]).toEqual(['miss', 'fresh']);
  });

  it('checks the price with the supplier at the rate check, whatever the search was served from', async () => {
    const { creds, client } = await newPartner(stack);
    await post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(ISTANBUL, 43));
    const cached = await post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(ISTANBUL, 43));
    expect(cached.headers.get('x-search-cache')).toBe('fresh');
    const rate = JSON.parse(cached.bytes.toString()).data.results[0].rates[0];
    const checked = await client.POST('/hotel/check_rate/', {
      params: { header: { 'x-sandbox-scenario': 'price_changed' } },
      body: { rate_key: rate.rate_key },
    });
    expect(checked.data?.data).toMatchObject({ price_changed: true, previous_price: rate.total_price });
    expect(checked.data?.data.total_price).not.toBe(rate.total_price);
  });

  it("refuses searches beyond the supplier budget with 503 and Retry-After, in each interface's shape", async () => {
    const { creds } = await newPartner(stack);
    // Searches nobody made before, all at once: the bucket's one token, then 2 a second for the 1 s wait.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(keysOf(creds), '/api/hotel/search_hotels/', hotelSearch(TEHRAN, 100 + i))));
    const refused = answers.filter((a) => a.status === 503);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(4);
    expect(refused.length + answers.filter((a) => a.status === 200).length).toBe(12);
    for (const r of refused) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(r.bytes.toString())).toEqual({
        ok: false,
        error: expect.stringMatching(/searches with simulator are at their limit right now; try again in \d+ s/),
      });
    }
    const b = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        stack.app.request(`http://engine.test/v1/hotels/search?city=Tehran&check_in=${day(130 + i)}&check_out=${day(132 + i)}`, {
          headers: { authorization: `Bearer ${creds.agency_key}` },
        }),
      ),
    );
    const bRefused = b.filter((r) => r.status === 503);
    expect(bRefused.length).toBeGreaterThan(0);
    expect(await bRefused[0]!.json()).toEqual({ detail: expect.stringMatching(/at their limit right now/) });
    expect(Number(bRefused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
