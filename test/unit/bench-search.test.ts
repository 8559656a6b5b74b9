import {
  engineSearchCounters,
  parseMix,
  parsePrometheus,
  rankedCombinations,
  searchGenerator,
  seededRandom,
  summarise,
  zipf,
  type Observed,
} from '../../scripts/bench/search-workload';

/** bench:search's pure parts (scripts/bench/search-workload.ts): the workload it draws and the line it prints. */
describe('the Zipf sampler', () => {
  it('weighs rank k by 1/k^s, and draws each rank about as often as its weight says', () => {
    const { probabilities, sample } = zipf(10, 1.1);
    expect(probabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(probabilities[0]! / probabilities[1]!).toBeCloseTo(2 ** 1.1, 10);
    expect(probabilities[2]! / probabilities[9]!).toBeCloseTo((10 / 3) ** 1.1, 10);
    const random = seededRandom(7);
    const counts = Array<number>(10).fill(0);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) counts[sample(random)]! += 1;
    counts.forEach((n, k) => expect(Math.abs(n / draws - probabilities[k]!)).toBeLessThan(0.005));
  });

  it('with exponent 0 is uniform, and refuses what is not a distribution', () => {
    expect(zipf(4, 0).probabilities).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(() => zipf(0, 1)).toThrow(/at least 1/);
    expect(() => zipf(3, -1)).toThrow(/0 or more/);
    expect(() => zipf(3, NaN)).toThrow(/0 or more/);
  });

  it('draws the same ranks from the same seed, other ranks from another', () => {
    const { sample } = zipf(1000, 1.1);
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => sample(random));
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
  });
});

describe('the search catalogue', () => {
  it('ranks every combination once, by the product of its values’ ranks', () => {
    const sizes = [3, 4, 2];
    const order = [...rankedCombinations(sizes)];
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    const weight = (i: number) => 1 / ((i % 3) + 1) / ((Math.floor(i / 3) % 4) + 1) / (Math.floor(i / 12) + 1);
    expect(order[0]).toBe(0);
    for (let r = 1; r < order.length; r++) expect(weight(order[r - 1]!)).toBeGreaterThanOrEqual(weight(order[r]!));
  });

  it('mixes the kinds of search as asked, each a valid request to its route', () => {
    const today = Date.parse('2026-11-27T08:00:00Z');
    const next = searchGenerator({ exponent: 1.1, mix: parseMix('hotels_a=5,flights_a=3,hotels_b=2'), today });
    const random = seededRandom(3);
    const searches = Array.from({ length: 20_000 }, () => next(random));
    const share = (kind: string) => searches.filter((s) => s.kind === kind).length / searches.length;
    expect(share('hotels_a')).toBeCloseTo(0.5, 1);
    expect(share('flights_a')).toBeCloseTo(0.3, 1);
    expect(share('hotels_b')).toBeCloseTo(0.2, 1);
    for (const s of searches.slice(0, 500)) {
      if (s.kind === 'hotels_b') {
        expect(s.method).toBe('GET');
        const q = new URL(s.path, 'http://x').searchParams;
        expect(q.get('check_in')! > '2026-11-27').toBe(true);
        expect(q.get('check_out')! > q.get('check_in')!).toBe(true);
        continue;
      }
      const body = JSON.parse(s.body!) as Record<string, string>;
      if (s.kind === 'hotels_a') {
        expect(s.path).toBe('/api/hotel/search_hotels/');
        expect(body.check_out! > body.check_in!).toBe(true);
        expect(body.check_in! > '2026-11-27').toBe(true);
      } else {
        expect(s.path).toBe('/api/flights/search_flights/');
        expect(body.origin).not.toBe(body.destination);
        expect(body.air_trip_type === 'round_trip').toBe(body.return_date_time !== undefined);
      }
      expect(s.key).toContain(s.body);
    }
    // The most asked search is the catalogue's first: the first city, tomorrow, the commonest stay.
    const counts = new Map<string, number>();
    for (const s of searches) counts.set(s.key, (counts.get(s.key) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    expect(top).toBe(
      'hotels_a {"city_id":1,"check_in":"2026-11-28","check_out":"2026-11-30","nationality_id":"IR","rooms":[{"adult_count":2,"child_count":0,"child_ages":[]}]}',
    );
    // Popular searches repeat, the tail does not: neither all distinct nor all one.
    expect(counts.size / searches.length).toBeGreaterThan(0.1);
    expect(counts.size / searches.length).toBeLessThan(0.6);
  });

  it('leaves out a kind without a share, and refuses a mix it cannot read', () => {
    const next = searchGenerator({ exponent: 1, mix: parseMix('flights_a=1') });
    const random = seededRandom(1);
    expect(new Set(Array.from({ length: 200 }, () => next(random).kind))).toEqual(new Set(['flights_a']));
    expect(() => parseMix('hotels=1')).toThrow(/--mix takes/);
    expect(() => parseMix('hotels_a=-1')).toThrow(/--mix takes/);
    expect(() => parseMix('hotels_a=0')).toThrow(/no search a share/);
  });
});

describe("the engine's search counters", () => {
  const exposition = [
    '# HELP search_requests_total Searches by outcome',
    '# TYPE search_requests_total counter',
    'search_requests_total{supplier="simulator",service="hotels",outcome="fresh"} 70',
    'search_requests_total{supplier="simulator",service="flights",outcome="fresh"} 10',
    'search_requests_total{supplier="simulator",service="hotels",outcome="stale"} 5',
    'search_requests_total{supplier="simulator",service="hotels",outcome="coalesced"} 3',
    'search_requests_total{supplier="simulator",service="hotels",outcome="miss"} 12',
    'supplier_search_calls_total{supplier="simulator",service="hotels"} 12',
    'supplier_search_budget_per_second{supplier="simulator"} 20',
    'http_requests_total{route="/x",label="a \\"quoted\\" value"} 4',
  ].join('\n');

  it('reads samples with their labels', () => {
    const samples = parsePrometheus(exposition);
    expect(samples).toHaveLength(8);
    expect(samples[7]).toEqual({ name: 'http_requests_total', labels: { route: '/x', label: 'a "quoted" value' }, value: 4 });
  });

  it('sums outcomes over services and replicas, and says so when the engine counts none', () => {
    expect(engineSearchCounters([exposition, exposition])).toEqual({
      outcomes: { fresh: 160, stale: 10, coalesced: 6, miss: 24, shed: 0 },
      supplierCalls: 24,
      budgetPerS: 20,
    });
    expect(engineSearchCounters(['http_requests_total 3', ''])).toEqual({ outcomes: undefined, supplierCalls: undefined, budgetPerS: undefined });
  });
});

describe('the JSON summary', () => {
  const observed = (): Observed => ({
    seconds: 10,
    statuses: { '200': 900, '429': 60, '503': 20, socket_errors: 15, timeouts: 5 },
    latencies: Array.from({ length: 900 }, (_, i) => i + 1),
    byCacheHeader: { fresh: [1, 2, 3, 4], stale: [5], miss: [300, 310] },
    bytes2xx: 900 * 2000,
    repeats: 700,
    byKind: { hotels_a: 980 },
    sent: 1000,
  });

  it('takes the hit ratio from the engine’s outcomes, supplier calls from the simulator', () => {
    const s = summarise({
      observed: observed(),
      supplier: { before: { received: 100, answered: 90, refused: 10 }, after: { received: 300, answered: 250, refused: 50 } },
      engine: {
        before: { outcomes: { fresh: 0, stale: 0, coalesced: 0, miss: 0, shed: 0 }, budgetPerS: 20 },
        after: { outcomes: { fresh: 700, stale: 50, coalesced: 30, miss: 180, shed: 20 }, budgetPerS: 20 },
      },
      cpu: { before: { engine: 1, simulator: 0.5 }, after: { engine: 3.45, simulator: 0.99 } },
      settings: { target: 'start' },
    });
    expect(s).toMatchObject({
      searches_per_s: 90,
      p50_ms: 450,
      p95_ms: 855,
      p99_ms: 891,
      errors: 100,
      cache_hit_ratio: 0.765,
      cache_hit_ratio_from: 'engine',
      search_outcomes: { fresh: 700, stale: 50, coalesced: 30, miss: 180, shed: 20 },
      cached_p50_ms: 3,
      by_cache_header: { fresh: { answers: 4, p50_ms: 2 }, miss: { answers: 2, p50_ms: 300 } },
      supplier_calls_per_search: 0.2,
      supplier_calls_per_s: 20,
      supplier_refused_per_s: 4,
      supplier_budget_per_s: 20,
      bytes_per_answer: 2000,
      cpu_ms_per_search: { total: 3, engine: 2.5, simulator: 0.5 },
      repeated_search_ratio: 0.714,
      answers: 980,
      sent: 1000,
      target: 'start',
    });
  });

  it('without the engine’s counters estimates the hit ratio from supplier calls, and without either says null', () => {
    const fromCalls = summarise({
      observed: observed(),
      supplier: { before: { received: 0, answered: 0, refused: 0 }, after: { received: 245, answered: 245, refused: 0 } },
      engine: { before: {}, after: {} },
      settings: {},
    });
    expect(fromCalls).toMatchObject({ cache_hit_ratio: 0.755, cache_hit_ratio_from: 'supplier_calls', supplier_budget_per_s: null, cpu_ms_per_search: null });
    const none = summarise({ observed: observed(), settings: {} });
    expect(none).toMatchObject({ cache_hit_ratio: null, cache_hit_ratio_from: 'none', supplier_calls_per_search: null, supplier_calls_per_s: null });
    // Supplier calls from the engine's own counter when the simulator has no /stats.
    const fromEngine = summarise({ observed: observed(), engine: { before: { supplierCalls: 10 }, after: { supplierCalls: 108 } }, settings: {} });
    expect(fromEngine).toMatchObject({ supplier_calls_per_search: 0.098, cache_hit_ratio: 0.902, cache_hit_ratio_from: 'supplier_calls' });
  });
});
