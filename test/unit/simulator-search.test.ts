import { createSimulatorApp } from '../../src/suppliers/simulator/app';
import { TokenBucket } from '../../src/suppliers/simulator/search-gate';

/**
 * The simulator's search knobs (SIMULATOR_SEARCH_DELAY_MS, SIMULATOR_SEARCH_RATE_PER_S) and
 * its counters (GET /stats), which bench:search reads as the count of supplier calls.
 */
const isoDay = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);
const HOTEL_SEARCH = { city_id: 1, check_in: isoDay(30), check_out: isoDay(32), nationality: 'IR', rooms: [{ adults: 2 }] };
const AIR_SEARCH = { origin: 'THR', destination: 'MHD', departure_date: isoDay(30), adults: 1, cabin: 'economy' };

type Simulator = ReturnType<typeof createSimulatorApp>;

async function search(simulator: Simulator, service: 'hotels' | 'air') {
  const [path, body] = service === 'hotels' ? ['/hotels/availability', HOTEL_SEARCH] : ['/air/search', AIR_SEARCH];
  const started = performance.now();
  const res = await simulator.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), body: json };
}

interface Stats {
  searches: {
    received: number;
    answered: number;
    refused: number;
    by_service: Record<'hotels' | 'air', { received: number; answered: number; refused: number }>;
  };
  settings: { search_delay_ms: number; search_rate_per_s: number };
}
const stats = async (simulator: Simulator) => (await (await simulator.request('/stats')).json()) as Stats;

describe("the simulator's searches", () => {
  it('by default answer at once, without a limit, and are counted', async () => {
    const simulator = createSimulatorApp({ slowMs: 0 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => search(simulator, i % 2 ? 'air' : 'hotels')));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    expect((answers[0]!.body.hotels as unknown[]).length).toBeGreaterThan(0);
    expect((answers[1]!.body.offers as unknown[]).length).toBeGreaterThan(0);
    expect(await stats(simulator)).toEqual({
      searches: {
        received: 30,
        answered: 30,
        refused: 0,
        by_service: { hotels: { received: 15, answered: 15, refused: 0 }, air: { received: 15, answered: 15, refused: 0 } },
      },
      settings: { search_delay_ms: 0, search_rate_per_s: 0 },
    });
  });

  it('wait the configured delay before answering, hotels and flights alike', async () => {
    const simulator = createSimulatorApp({ slowMs: 0, searchDelayMs: 1000 });
    const [hotels, air] = await Promise.all([search(simulator, 'hotels'), search(simulator, 'air')]);
    expect([hotels.status, air.status]).toEqual([200, 200]);
    // Timers may fire a millisecond early by the performance clock.
    expect(hotels.ms).toBeGreaterThanOrEqual(995);
    expect(air.ms).toBeGreaterThanOrEqual(995);
    // Other calls are not delayed (half the delay leaves a busy machine its slack).
    const started = performance.now();
    expect((await simulator.request('/hotels/cities')).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('above the rate limit are refused at once with 429 and Retry-After, and counted as refused', async () => {
    const simulator = createSimulatorApp({ slowMs: 0, searchRatePerS: 3, searchDelayMs: 1000 });
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => search(simulator, i < 3 ? 'hotels' : 'air')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    const refused = answers[3]!;
    expect(refused.retryAfter).toBe('1');
    expect(refused.body.error).toMatch(/rate limit/);
    // At once: without the search's delay (half of it leaves a busy machine its slack).
    expect(refused.ms).toBeLessThan(500);
    const s = await stats(simulator);
    expect(s.searches).toMatchObject({ received: 5, answered: 3, refused: 2 });
    expect(s.searches.by_service.air).toEqual({ received: 2, answered: 0, refused: 2 });
    expect(s.settings).toEqual({ search_delay_ms: 1000, search_rate_per_s: 3 });
  });
});

describe('the rate limit’s token bucket', () => {
  it('allows a burst of one second’s rate, then the rate, and says how long to wait', () => {
    const bucket = new TokenBucket(2, 0);
    expect(bucket.take(0)).toEqual({ ok: true });
    expect(bucket.take(0)).toEqual({ ok: true });
    expect(bucket.take(0)).toEqual({ ok: false, waitMs: 500 });
    expect(bucket.take(250)).toEqual({ ok: false, waitMs: 250 });
    expect(bucket.take(500)).toEqual({ ok: true });
    // Idle time refills at most one second's worth.
    expect([10_000, 10_000, 10_000].map((t) => bucket.take(t).ok)).toEqual([true, true, false]);
  });

  it('under one a second still lets one through, then waits', () => {
    const bucket = new TokenBucket(0.5, 0);
    expect(bucket.take(0)).toEqual({ ok: true });
    expect(bucket.take(0)).toEqual({ ok: false, waitMs: 2000 });
    expect(bucket.take(2000)).toEqual({ ok: true });
  });
});
