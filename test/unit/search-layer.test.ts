import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../src/db/client';
import { memoryBudget, sharedBudget, type SearchBudget } from '../../src/domain/search/budget';
import { createSearchLayer, REFERENCE_TTL_MS, type SearchLayer } from '../../src/domain/search/layer';
import type { SearchSettings } from '../../src/domain/search/settings';
import { sharedSearchAnswers } from '../../src/domain/search/shared';
import { flightSearchesThrough, hotelSearchKey } from '../../src/domain/search/suppliers';
import { SearchBudgetSpentError, SupplierRejectedError } from '../../src/suppliers/errors';
import type { FlightSupplier } from '../../src/suppliers/flights';
import { searchRequests } from '../../src/platform/metrics';
import { loadConfig } from '../../src/config';

/** A supplier's search: counts its calls, answers after `delayMs` with the call's number. */
function supplier(delayMs = 20) {
  const calls: number[] = [];
  return {
    calls,
    load: async () => {
      calls.push(Date.now());
      await new Promise((r) => setTimeout(r, delayMs));
      return { n: calls.length };
    },
  };
}

const settings = (over: Partial<SearchSettings> = {}): SearchSettings => ({
  ttls: { 'sim.hotels': 60, 'sim.flights': 60 },
  staleSeconds: 30,
  budgets: {},
  queueMs: 0,
  deadlineMs: 20_000,
  memoryBytes: 1 << 20,
  ...over,
});

/** A clock the test moves: the layer's freshness and bounds read it. */
function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const call = (request: unknown, extra: Partial<{ supplier: string; fresh: boolean }> = {}) => ({
  supplier: 'sim',
  service: 'hotels' as const,
  request,
  ...extra,
});

async function outcomeCount(outcome: string, supplierName = 'sim'): Promise<number> {
  const metric = await searchRequests.get();
  return metric.values.filter((v) => v.labels.outcome === outcome && v.labels.supplier === supplierName).reduce((n, v) => n + v.value, 0);
}

describe('the search layer', () => {
  it('serves the same search from the cache while it is fresh, and calls the supplier for another', async () => {
    const s = supplier();
    const layer = createSearchLayer({ settings: settings(), budget: memoryBudget() });
    const first = await layer.search(call({ city: 1 }), s.load);
    const again = await layer.search(call({ city: 1 }), s.load);
    expect(again).toBe(first);
    await layer.search(call({ city: 2 }), s.load);
    expect(s.calls).toHaveLength(2);
  });

  it('keys a request by what it says, not how it spells it', () => {
    const a = hotelSearchKey({ city_id: 1, check_in: '2027-01-01', check_out: '2027-01-03', nationality: 'ir', rooms: [{ adults: 2, children_ages: [] }] });
    const b = hotelSearchKey({
      city_id: 1,
      check_in: '2027-01-01',
      check_out: '2027-01-03',
      nationality: 'IR',
      rooms: [{ adults: 2, children_ages: [] }],
      domestic: false,
    });
    expect(a).toEqual(b);
  });

  it('makes one supplier call for identical searches in flight, however many ask', async () => {
    const s = supplier(50);
    const layer = createSearchLayer({ settings: settings(), budget: memoryBudget() });
    const coalescedBefore = await outcomeCount('coalesced');
    const answers = await Promise.all(Array.from({ length: 50 }, () => layer.search(call({ city: 3 }), s.load)));
    expect(s.calls).toHaveLength(1);
    expect(new Set(answers).size).toBe(1);
    expect((await outcomeCount('coalesced')) - coalescedBefore).toBe(49);
  });

  it('serves a stale answer within its bound while one refresh runs, and none past it', async () => {
    const s = supplier(10);
    const c = clock();
    const layer = createSearchLayer({ settings: settings({ ttls: { 'sim.hotels': 10 }, staleSeconds: 5 }), budget: memoryBudget(), now: c.now });
    const first = await layer.search(call({ city: 4 }), s.load);
    c.advance(12_000);
    const stale = await Promise.all([layer.search(call({ city: 4 }), s.load), layer.search(call({ city: 4 }), s.load)]);
    expect(stale).toEqual([first, first]);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.calls).toHaveLength(2);
    const refreshed = await layer.search(call({ city: 4 }), s.load);
    expect(refreshed).toEqual({ n: 2 });
    // Past freshness and the stale bound: the search waits for the supplier.
    c.advance(16_000);
    expect(await layer.search(call({ city: 4 }), s.load)).toEqual({ n: 3 });
  });

  it('keeps a reference list for an hour, one call at a time, never a failure, and not when searches are not cached', async () => {
    const c = clock();
    const layer = createSearchLayer({ settings: settings({ ttls: { 'sim.hotels': 60 } }), budget: memoryBudget(), now: c.now });
    const s = supplier(20);
    const lists = await Promise.all(Array.from({ length: 5 }, () => layer.reference({ supplier: 'sim', service: 'hotels', name: 'cities' }, s.load)));
    expect(s.calls).toHaveLength(1);
    expect(new Set(lists).size).toBe(1);
    c.advance(REFERENCE_TTL_MS - 1);
    await layer.reference({ supplier: 'sim', service: 'hotels', name: 'cities' }, s.load);
    expect(s.calls).toHaveLength(1);
    c.advance(1);
    expect(await layer.reference({ supplier: 'sim', service: 'hotels', name: 'cities' }, s.load)).toEqual({ n: 2 });

    let failures = 0;
    const failing = async () => {
      failures++;
      throw new SupplierRejectedError('down', 503);
    };
    await expect(layer.reference({ supplier: 'sim', service: 'hotels', name: 'towns' }, failing)).rejects.toThrow('down');
    await expect(layer.reference({ supplier: 'sim', service: 'hotels', name: 'towns' }, failing)).rejects.toThrow('down');
    expect(failures).toBe(2);

    // Flights are not cached in these settings: their airports are asked for every time.
    const air = supplier(1);
    await layer.reference({ supplier: 'sim', service: 'flights', name: 'airports' }, air.load);
    await layer.reference({ supplier: 'sim', service: 'flights', name: 'airports' }, air.load);
    expect(air.calls).toHaveLength(2);
  });

  it('never keeps a failure: the next search asks the supplier again', async () => {
    const layer = createSearchLayer({ settings: settings(), budget: memoryBudget() });
    let n = 0;
    const failing = async () => {
      n++;
      throw new SupplierRejectedError('no such hotel', 404);
    };
    await expect(layer.search(call({ hotel: 9 }), failing)).rejects.toThrow('no such hotel');
    await expect(layer.search(call({ hotel: 9 }), failing)).rejects.toThrow('no such hotel');
    expect(n).toBe(2);
  });

  it('asks the supplier when the request must be fresh, and keeps that answer', async () => {
    const s = supplier();
    const layer = createSearchLayer({ settings: settings(), budget: memoryBudget() });
    await layer.search(call({ hotel: 5 }), s.load);
    expect(await layer.search(call({ hotel: 5 }, { fresh: true }), s.load)).toEqual({ n: 2 });
    expect(await layer.search(call({ hotel: 5 }), s.load)).toEqual({ n: 2 });
  });

  it('names an answer by its fetch: the same while it is served again, another once fetched again', async () => {
    const s = supplier();
    const layer = createSearchLayer({ settings: settings(), budget: memoryBudget() });
    const first = await layer.find(call({ hotel: 6 }), s.load);
    const again = await layer.find(call({ hotel: 6 }), s.load);
    expect(again.id).toBe(first.id);
    expect(again.until).toBeGreaterThan(Date.now());
    const refetched = await layer.find(call({ hotel: 6 }, { fresh: true }), s.load);
    expect(refetched.id).not.toBe(first.id);
    expect(refetched.value()).toEqual({ n: 2 });
    // Searches not cached: each answer has a name of its own, and nothing made from it is kept.
    const uncached = createSearchLayer({ settings: settings({ ttls: {} }), budget: memoryBudget() });
    const [x, y] = [await uncached.find(call({ hotel: 6 }), s.load), await uncached.find(call({ hotel: 6 }), s.load)];
    expect(x.id).not.toBe(y.id);
    expect([x.until, y.until]).toEqual([0, 0]);
  });

  it('keeps a flight answer no longer than its first offer lasts at the airline', async () => {
    let calls = 0;
    const c = clock();
    const expires = new Date(c.now() + 90_000).toISOString();
    const airline = {
      name: 'sim',
      search: async () => ({ search_id: `s${++calls}`, offers: [{ expires_at: expires }, { expires_at: null }] }),
    } as unknown as FlightSupplier;
    const layer = createSearchLayer({ settings: settings({ ttls: { 'sim.flights': 600 }, staleSeconds: 600 }), budget: memoryBudget(), now: c.now });
    const through = flightSearchesThrough(layer, airline);
    const req = { origin: 'THR', destination: 'MHD', departure_date: '2027-01-01', adults: 1, children: 0, infants: 0, cabin: 'economy' as const };
    await through.search(req);
    c.advance(20_000);
    expect((await through.search(req)).search_id).toBe('s1');
    // A minute before the offer expires the answer is no longer served, fresh or stale.
    c.advance(15_000);
    expect((await through.search(req)).search_id).toBe('s2');
  });

  it('sends the supplier no more than its budget, queues within the wait, and refuses beyond it', async () => {
    const s = supplier(1);
    // The budget's clock stands still while the 40 take their tokens, as if they all came at
    // once however slowly this machine runs them; the waits it hands out are real.
    const c = clock();
    const layer = createSearchLayer({ settings: settings({ budgets: { sim: 20 }, queueMs: 500 }), budget: memoryBudget(c.now) });
    const started = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => layer.search(call({ city: 100 + i }), s.load)));
    const refused = results.filter((r) => r.status === 'rejected');
    // 2 in the bucket, 10 more within half a second at 20 a second; the rest refused at once.
    expect(s.calls).toHaveLength(12);
    expect(refused).toHaveLength(28);
    for (const r of refused) {
      const err = (r as PromiseRejectedResult).reason as SearchBudgetSpentError;
      expect(err).toBeInstanceOf(SearchBudgetSpentError);
      expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // The calls spread over the wait: no second of them above the budget (plus the bucket).
    expect(s.calls[s.calls.length - 1]! - started).toBeGreaterThanOrEqual(400);
  });

  it('serves a stale answer instead of refusing when the budget is spent', async () => {
    const s = supplier(1);
    const c = clock();
    const layer = createSearchLayer({
      settings: settings({ ttls: { 'sim.hotels': 10 }, staleSeconds: 60, budgets: { sim: 1 }, queueMs: 0 }),
      budget: memoryBudget(c.now),
      now: c.now,
    });
    await layer.search(call({ city: 7 }), s.load);
    c.advance(11_000);
    // Refreshes are refused (the bucket is empty at this clock): the stale answer is served every time.
    for (let i = 0; i < 5; i++) expect(await layer.search(call({ city: 7 }), s.load)).toEqual({ n: 1 });
  });
});

describe('the search settings', () => {
  it('takes times to live and budgets over the defaults, and refuses a pair it cannot read', () => {
    const config = loadConfig({ SEARCH_TTLS: 'duffel.flights=30, simulator.hotels=0', SEARCH_BUDGETS: 'duffel=0.5' });
    expect(config.SEARCH_TTLS).toEqual({ 'simulator.hotels': 0, 'simulator.flights': 120, 'duffel.hotels': 120, 'duffel.flights': 30 });
    expect(config.SEARCH_BUDGETS).toEqual({ simulator: 0, duffel: 0.5 });
    expect(() => loadConfig({ SEARCH_TTLS: 'duffel.trains=30' })).toThrow(/"duffel.trains=30" is not <supplier>.<hotels\|flights>=<seconds>/);
    expect(() => loadConfig({ SEARCH_BUDGETS: 'duffel=fast' })).toThrow(/"duffel=fast" is not <supplier>=<searches per second>/);
  });
});

describe('the search layer shared by processes (PostgreSQL, or PGlite standing in)', () => {
  let database: Database;
  let processes: SearchLayer[];
  let name: string;
  beforeAll(async () => {
    database = process.env.DATABASE_URL ? await openDatabase({ url: process.env.DATABASE_URL }) : await openDatabase({});
  }, 60_000);
  afterAll(() => database.close());
  beforeEach(() => {
    name = `sim${randomUUID().slice(0, 8)}`;
  });
  const two = (budget: (db: Database) => SearchBudget, over: Partial<SearchSettings> = {}) =>
    Array.from({ length: 2 }, () =>
      createSearchLayer({
        settings: settings({ ttls: { [`${name}.hotels`]: 60 }, ...over }),
        budget: budget(database),
        shared: sharedSearchAnswers(database.db),
      }),
    );

  it('calls the supplier once for a search two processes ask at the same moment, and both serve its answer', async () => {
    processes = two((d) => sharedBudget(d.db));
    const s = supplier(200);
    const [a, b] = await Promise.all(processes.map((p) => p.search(call({ city: 1 }, { supplier: name }), s.load)));
    expect(s.calls).toHaveLength(1);
    expect(a).toEqual(b);
    // A third process, later, finds it in the shared store.
    const [third] = two((d) => sharedBudget(d.db));
    expect(await third!.search(call({ city: 1 }, { supplier: name }), s.load)).toEqual(a);
    expect(s.calls).toHaveLength(1);
  });

  it('does not call the supplier again for an answer another process wrote between its read and its claim', async () => {
    // The second process's claim is held back until the first has written its answer: the
    // order a slow connection or a busy database gives.
    let written!: () => void;
    const writtenOnce = new Promise<void>((r) => (written = r));
    const store = sharedSearchAnswers(database.db);
    const late = { ...store, claim: async (key: string, leaseMs: number, after: number) => (await writtenOnce, store.claim(key, leaseMs, after)) };
    const first = { ...store, write: async (...args: Parameters<typeof store.write>) => (await store.write(...args), written()) };
    processes = [first, late].map((shared) =>
      createSearchLayer({ settings: settings({ ttls: { [`${name}.hotels`]: 60 } }), budget: sharedBudget(database.db), shared }),
    );
    const s = supplier(20);
    const late$ = processes[1]!.search(call({ city: 2 }, { supplier: name }), s.load);
    await new Promise((r) => setTimeout(r, 50));
    const [a, b] = await Promise.all([processes[0]!.search(call({ city: 2 }, { supplier: name }), s.load), late$]);
    expect(s.calls).toHaveLength(1);
    expect(b).toEqual(a);
  });

  it('shares one budget between processes', async () => {
    processes = two((d) => sharedBudget(d.db), { budgets: { [name]: 10 }, queueMs: 0 });
    const s = supplier(1);
    const started = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => processes[i % 2]!.search(call({ city: 200 + i }, { supplier: name }), s.load)),
    );
    const seconds = (performance.now() - started) / 1000;
    // One token in the bucket between them, and what trickles in at 10 a second while the statements run.
    expect(s.calls.length).toBeGreaterThanOrEqual(1);
    expect(s.calls.length).toBeLessThanOrEqual(1 + Math.ceil(seconds * 10));
    expect(s.calls.length).toBeLessThan(20);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof SearchBudgetSpentError)).toHaveLength(20 - s.calls.length);
  });

  it('calls the supplier itself when the process holding the claim fails', async () => {
    processes = two((d) => sharedBudget(d.db));
    let n = 0;
    // The second process asks once the first holds the claim (it is calling the supplier).
    let calling!: () => void;
    const claimed = new Promise<void>((r) => (calling = r));
    const failing = async () => {
      n++;
      calling();
      await new Promise((r) => setTimeout(r, 50));
      throw new Error('supplier down');
    };
    const s = supplier(1);
    const [first, second] = await Promise.allSettled([
      processes[0]!.search(call({ city: 300 }, { supplier: name }), failing),
      claimed.then(() => processes[1]!.search(call({ city: 300 }, { supplier: name }), s.load)),
    ]);
    expect(first.status).toBe('rejected');
    expect(second).toEqual({ status: 'fulfilled', value: { n: 1 } });
    expect(n).toBe(1);
  });
});
