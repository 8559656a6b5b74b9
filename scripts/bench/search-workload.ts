/**
 * bench:search's workload and report, as pure functions: a Zipf sampler, the searches
 * partners make (cities, dates, stays, occupancies and routes, each drawn by popularity),
 * the engine's Prometheus counters, and the one-line JSON summary.
 */
import { FLIGHTS } from '../../src/suppliers/simulator/air/inventory';
import { CITIES } from '../../src/suppliers/simulator/hotels/inventory';
import { percentile, round } from './common';

export { seededRandom } from '../seeded-random';

/**
 * Draws ranks 0..n-1 with P(k) proportional to 1/(k+1)^exponent: the first is the most
 * asked for, each next one less. Exponent 0 is uniform.
 */
export function zipf(n: number, exponent: number): { probabilities: number[]; sample: (random: () => number) => number } {
  if (!Number.isInteger(n) || n < 1) throw new Error(`zipf: n must be a whole number of at least 1, not ${n}`);
  if (!(exponent >= 0)) throw new Error(`zipf: the exponent must be 0 or more, not ${exponent}`);
  const weights = Array.from({ length: n }, (_, k) => 1 / (k + 1) ** exponent);
  const total = weights.reduce((a, b) => a + b, 0);
  const probabilities = weights.map((w) => w / total);
  const cumulative: number[] = [];
  probabilities.reduce((sum, p, k) => (cumulative[k] = sum + p), 0);
  cumulative[n - 1] = 1;
  const sample = (random: () => number) => {
    const u = random();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return { probabilities, sample };
}

/** A list drawn by popularity: its first element the most asked for. */
export function zipfOf<T>(items: readonly T[], exponent: number): (random: () => number) => T {
  const { sample } = zipf(items.length, exponent);
  return (random) => items[sample(random)]!;
}

export type SearchKind = 'hotels_a' | 'flights_a' | 'hotels_b';
export const SEARCH_KINDS: readonly SearchKind[] = ['hotels_a', 'flights_a', 'hotels_b'];

/** One partner search: what to send, and the key two identical searches share. */
export interface Search {
  kind: SearchKind;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  key: string;
}

/** `hotels_a=5,flights_a=3,hotels_b=2`: each kind's share of the searches. */
export function parseMix(raw: string): Record<SearchKind, number> {
  const mix: Record<SearchKind, number> = { hotels_a: 0, flights_a: 0, hotels_b: 0 };
  for (const part of raw.split(',').filter(Boolean)) {
    const [name, value] = part.split('=');
    if (!SEARCH_KINDS.includes(name as SearchKind) || !(Number(value) >= 0))
      throw new Error(`--mix takes ${SEARCH_KINDS.map((k) => `${k}=N`).join(',')}, not ${part}`);
    mix[name as SearchKind] = Number(value);
  }
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  if (!(total > 0)) throw new Error('--mix gives no search a share');
  return Object.fromEntries(SEARCH_KINDS.map((k) => [k, mix[k] / total])) as Record<SearchKind, number>;
}

/** Days ahead of a check-in or departure, most asked first: the coming weeks, then further out. */
const DAYS_AHEAD = Array.from({ length: 60 }, (_, i) => i + 1);
/** Nights of a stay, most asked first. */
const NIGHTS = [2, 3, 1, 4, 5, 7, 6];
/** Hotel occupancies on Interface A, most asked first: rooms of adults and children's ages. */
const OCCUPANCIES: ReadonlyArray<ReadonlyArray<{ adults: number; children: number[] }>> = [
  [{ adults: 2, children: [] }],
  [{ adults: 1, children: [] }],
  [{ adults: 2, children: [8] }],
  [{ adults: 3, children: [] }],
  [
    { adults: 2, children: [] },
    { adults: 2, children: [] },
  ],
];
/** Guests on Interface B (one room), most asked first. */
const GUESTS = [2, 1, 3, 4];
/** Flight trips, most asked first: one way, or back after this many days. */
const TRIPS = [null, 7, 3] as const;
/** Flight passengers (adults, children, infants), most asked first. */
const PASSENGERS = [
  [1, 0, 0],
  [2, 0, 0],
  [2, 1, 0],
  [3, 0, 0],
] as const;
const CABINS = ['economy', 'business'] as const;

/** The simulator's routes, both ways, in the order it lists them: every one has flights daily. */
export function simulatorRoutes(): Array<[string, string]> {
  const seen = new Set<string>();
  const routes: Array<[string, string]> = [];
  const byRoute = [...FLIGHTS].sort((x, y) => x.route.index - y.route.index || Number(x.origin !== x.route.a) - Number(y.origin !== y.route.a));
  for (const f of byRoute) {
    const key = `${f.origin}-${f.destination}`;
    if (seen.has(key)) continue;
    seen.add(key);
    routes.push([f.origin, f.destination]);
  }
  return routes;
}

/**
 * Every combination of the dimensions' values, most popular first: each dimension lists its
 * values most asked first, and a combination ranks by the product of its values' Zipf weights
 * (1/rank each). Answers combination indices in mixed radix, the first dimension fastest.
 */
export function rankedCombinations(sizes: number[]): Int32Array {
  const total = sizes.reduce((a, b) => a * b, 1);
  const score = new Float64Array(total);
  const logs = sizes.map((n) => Array.from({ length: n }, (_, r) => Math.log(r + 1)));
  for (let i = 0; i < total; i++) {
    let rest = i;
    let sum = 0;
    for (let d = 0; d < sizes.length; d++) {
      sum += logs[d]![rest % sizes[d]!]!;
      rest = Math.floor(rest / sizes[d]!);
    }
    score[i] = sum;
  }
  return Int32Array.from({ length: total }, (_, i) => i).sort((a, b) => score[a]! - score[b]! || a - b);
}

function digits(index: number, sizes: number[]): number[] {
  return sizes.map((n) => {
    const digit = index % n;
    index = Math.floor(index / n);
    return digit;
  });
}

/**
 * Each kind's catalogue as the number of values of each of its dimensions, in the order a
 * search names them (A's hotels: city, days ahead, nights, occupancy; A's flights: route,
 * days ahead, trip, passengers, cabin; B's hotels: city, days ahead, nights, guests).
 */
export function catalogueDimensions(routes: ReadonlyArray<unknown> = simulatorRoutes()): Record<SearchKind, number[]> {
  return {
    hotels_a: [CITIES.length, DAYS_AHEAD.length, NIGHTS.length, OCCUPANCIES.length],
    flights_a: [routes.length, DAYS_AHEAD.length, TRIPS.length, PASSENGERS.length, CABINS.length],
    hotels_b: [CITIES.length, DAYS_AHEAD.length, NIGHTS.length, GUESTS.length],
  };
}

/** The kind of each search, drawn by the mix's shares. */
export function kindPicker(mix: Record<SearchKind, number>): (random: () => number) => SearchKind {
  const kinds = SEARCH_KINDS.filter((k) => mix[k] > 0);
  const bounds = kinds.map((_, i) => kinds.slice(0, i + 1).reduce((sum, k) => sum + mix[k], 0));
  return (random) => {
    const u = random();
    return kinds[bounds.findIndex((b) => u < b)] ?? kinds[kinds.length - 1]!;
  };
}

const isoDay = (today: number, daysAhead: number) => new Date(today + daysAhead * 86_400_000).toISOString().slice(0, 10);

/**
 * The searches partners make. Each kind (by the mix) has a catalogue of every search it can
 * make (A's hotels: city, days ahead, nights, occupancy; A's flights: route, days ahead, trip,
 * passengers, cabin; B's hotels: city, days ahead, nights, guests), ranked by popularity
 * (rankedCombinations); a search is the catalogue's entry at a rank drawn from a Zipf
 * distribution of the given exponent.
 */
export function searchGenerator(opts: { exponent: number; mix: Record<SearchKind, number>; today?: number }) {
  const today = opts.today ?? Date.now();
  const routes = simulatorRoutes();
  const dimensions = catalogueDimensions(routes);
  const catalogue = (sizes: number[]) => {
    const order = rankedCombinations(sizes);
    const { sample } = zipf(order.length, opts.exponent);
    return (random: () => number) => digits(order[sample(random)]!, sizes);
  };
  const draw: Record<SearchKind, (random: () => number) => Search> = {
    hotels_a: (() => {
      const next = catalogue(dimensions.hotels_a);
      return (random) => {
        const [c, d, n, o] = next(random) as [number, number, number, number];
        const checkIn = DAYS_AHEAD[d]!;
        const body = {
          city_id: CITIES[c]!.id,
          check_in: isoDay(today, checkIn),
          check_out: isoDay(today, checkIn + NIGHTS[n]!),
          nationality_id: 'IR',
          rooms: OCCUPANCIES[o]!.map((r) => ({ adult_count: r.adults, child_count: r.children.length, child_ages: r.children })),
        };
        const json = JSON.stringify(body);
        return { kind: 'hotels_a', method: 'POST', path: '/api/hotel/search_hotels/', body: json, key: `hotels_a ${json}` };
      };
    })(),
    flights_a: (() => {
      const next = catalogue(dimensions.flights_a);
      return (random) => {
        const [r, d, t, p, c] = next(random) as [number, number, number, number, number];
        const [origin, destination] = routes[r]!;
        const out = DAYS_AHEAD[d]!;
        const back = TRIPS[t]!;
        const [adults, children, infants] = PASSENGERS[p]!;
        const body = {
          origin,
          destination,
          departure_date_time: isoDay(today, out),
          ...(back === null ? {} : { return_date_time: isoDay(today, out + back) }),
          adult_count: adults,
          child_count: children,
          infant_count: infants,
          cabin_type: CABINS[c]!,
          air_trip_type: back === null ? 'one_way' : 'round_trip',
        };
        const json = JSON.stringify(body);
        return { kind: 'flights_a', method: 'POST', path: '/api/flights/search_flights/', body: json, key: `flights_a ${json}` };
      };
    })(),
    hotels_b: (() => {
      const next = catalogue(dimensions.hotels_b);
      return (random) => {
        const [c, d, n, g] = next(random) as [number, number, number, number];
        const checkIn = DAYS_AHEAD[d]!;
        const query = new URLSearchParams({
          city: CITIES[c]!.name,
          check_in: isoDay(today, checkIn),
          check_out: isoDay(today, checkIn + NIGHTS[n]!),
          guests: String(GUESTS[g]!),
        });
        const path = `/v1/hotels/search?${query.toString()}`;
        return { kind: 'hotels_b', method: 'GET', path, key: `hotels_b ${path}` };
      };
    })(),
  };
  const kindOf = kindPicker(opts.mix);
  return (random: () => number): Search => draw[kindOf(random)](random);
}

/** One sample of a Prometheus text exposition: `name{label="value",…} number`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parsePrometheus(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export const SEARCH_OUTCOMES = ['fresh', 'stale', 'coalesced', 'miss', 'shed'] as const;
export type SearchOutcome = (typeof SEARCH_OUTCOMES)[number];

/** What the engine's search layer counts, summed over suppliers, services and API replicas; undefined where it counts nothing. */
export interface EngineSearchCounters {
  outcomes?: Record<SearchOutcome, number>;
  supplierCalls?: number;
  /** The largest budget any supplier has a second. */
  budgetPerS?: number;
}

export function engineSearchCounters(expositions: string[]): EngineSearchCounters {
  const samples = expositions.flatMap(parsePrometheus);
  const of = (name: string) => samples.filter((s) => s.name === name);
  const requests = of('search_requests_total');
  const calls = of('supplier_search_calls_total');
  const budgets = of('supplier_search_budget_per_second');
  return {
    outcomes: requests.length
      ? (Object.fromEntries(SEARCH_OUTCOMES.map((o) => [o, requests.filter((s) => s.labels.outcome === o).reduce((n, s) => n + s.value, 0)])) as Record<
          SearchOutcome,
          number
        >)
      : undefined,
    supplierCalls: calls.length ? calls.reduce((n, s) => n + s.value, 0) : undefined,
    budgetPerS: budgets.length ? Math.max(...budgets.map((s) => s.value)) : undefined,
  };
}

/** The simulator's `GET /stats` searches. */
export interface SupplierCounts {
  received: number;
  answered: number;
  refused: number;
}

/** What the load itself saw during the measured window. */
export interface Observed {
  seconds: number;
  /** Every answer's status, `socket_errors` and `timeouts` besides. */
  statuses: Record<string, number>;
  /** Milliseconds of each 2xx answer. */
  latencies: number[];
  /** Milliseconds of each 2xx answer by its X-Search-Cache header. */
  byCacheHeader: Record<string, number[]>;
  /** Searches sent in the window, answered or not (those in flight at its end among them). */
  sent: number;
  /** Bytes on the wire (headers and body) of the 2xx answers. */
  bytes2xx: number;
  /** Answers whose search was asked before in the run (its warm-up too). */
  repeats: number;
  /** Answers by kind of search. */
  byKind: Record<string, number>;
}

export interface SummaryInput {
  observed: Observed;
  supplier?: { before: SupplierCounts; after: SupplierCounts };
  engine?: { before: EngineSearchCounters; after: EngineSearchCounters };
  /** CPU seconds per process (or group of processes) at the start and the end of the window. */
  cpu?: { before: Record<string, number>; after: Record<string, number> };
  settings: Record<string, unknown>;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const ms = (x: number) => round(x, 1);

/**
 * The one-line report. Supplier calls and CPU per search divide by the searches sent in the
 * window, answered or not: a search still in flight at its end has made its supplier call.
 */
export function summarise(input: SummaryInput) {
  const { observed: o } = input;
  const answers = Object.entries(o.statuses)
    .filter(([k]) => /^\d+$/.test(k))
    .reduce((n, [, v]) => n + v, 0);
  const ok = Object.entries(o.statuses)
    .filter(([k]) => /^2\d\d$/.test(k))
    .reduce((n, [, v]) => n + v, 0);
  const errors = Object.values(o.statuses).reduce((n, v) => n + v, 0) - ok;
  const latencies = sorted(o.latencies);
  const asked = o.sent;

  const calls = input.supplier
    ? input.supplier.after.received - input.supplier.before.received
    : input.engine?.after.supplierCalls !== undefined && input.engine.before.supplierCalls !== undefined
      ? input.engine.after.supplierCalls - input.engine.before.supplierCalls
      : undefined;
  const refused = input.supplier ? input.supplier.after.refused - input.supplier.before.refused : undefined;

  const before = input.engine?.before.outcomes;
  const after = input.engine?.after.outcomes;
  const outcomes = before && after ? (Object.fromEntries(SEARCH_OUTCOMES.map((k) => [k, after[k] - before[k]])) as Record<SearchOutcome, number>) : undefined;
  const counted = outcomes ? Object.values(outcomes).reduce((a, b) => a + b, 0) : 0;
  const cacheHitRatio =
    outcomes && counted > 0
      ? { value: round((outcomes.fresh + outcomes.stale) / counted, 3), source: 'engine' }
      : calls !== undefined && asked > 0
        ? { value: round(Math.max(0, 1 - calls / asked), 3), source: 'supplier_calls' }
        : { value: null, source: 'none' };

  const cached = sorted([...(o.byCacheHeader.fresh ?? []), ...(o.byCacheHeader.stale ?? [])]);
  const cpuByProcess = input.cpu
    ? Object.fromEntries(
        Object.keys(input.cpu.before).map((k) => [k, asked ? ms((((input.cpu!.after[k] ?? 0) - input.cpu!.before[k]!) * 1000) / asked) : null]),
      )
    : undefined;
  const cpuTotal = cpuByProcess ? ms(Object.values(cpuByProcess).reduce<number>((a, b) => a + (b ?? 0), 0)) : null;

  return {
    searches_per_s: round(ok / o.seconds),
    p50_ms: ms(percentile(latencies, 50)),
    p95_ms: ms(percentile(latencies, 95)),
    p99_ms: ms(percentile(latencies, 99)),
    errors,
    statuses: o.statuses,
    cache_hit_ratio: cacheHitRatio.value,
    cache_hit_ratio_from: cacheHitRatio.source,
    search_outcomes: outcomes ?? null,
    cached_p50_ms: cached.length ? ms(percentile(cached, 50)) : null,
    by_cache_header: Object.fromEntries(Object.entries(o.byCacheHeader).map(([k, xs]) => [k, { answers: xs.length, p50_ms: ms(percentile(sorted(xs), 50)) }])),
    supplier_calls_per_search: calls !== undefined && asked ? round(calls / asked, 3) : null,
    supplier_calls_per_s: calls !== undefined ? round(calls / o.seconds) : null,
    supplier_refused_per_s: refused !== undefined ? round(refused / o.seconds) : null,
    supplier_budget_per_s: input.engine?.after.budgetPerS ?? null,
    bytes_per_answer: ok ? Math.round(o.bytes2xx / ok) : null,
    cpu_ms_per_search: cpuByProcess ? { total: cpuTotal, ...cpuByProcess } : null,
    repeated_search_ratio: answers ? round(o.repeats / answers, 3) : null,
    answers_by_kind: o.byKind,
    answers,
    sent: asked,
    seconds: round(o.seconds, 1),
    ...input.settings,
  };
}
