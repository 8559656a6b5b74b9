/**
 * npm run --silent bench:search-steady -- [--rate N] [--budget-per-s N] [--zipf EXPONENT]
 *   [--mix hotels_a=5,flights_a=3,hotels_b=2] [--warmup-s S] [--window-s S] [--queue-ms MS]
 *   [--stale-s S] [--seed N]
 *
 * What the search layer can serve from its cache once it has run for a while, computed
 * from bench:search's workload alone (no engine): searches drawn at --rate a second from
 * the same Zipf-ranked catalogues, a cache that keeps each answer for the simulator's time
 * to live per service plus the stale bound (a stale answer served and refreshed), and the
 * supplier's budget as a token bucket with the layer's queue (a search that would wait
 * longer is shed, its answer not kept). Prints one JSON line: the share served from the
 * cache, the share shed, and the supplier calls a second, over the window after the warm-up.
 */
import { SEARCH_TTL_DEFAULTS } from '../../src/domain/search/settings';
import { args, round } from './common';
import { catalogueDimensions, kindPicker, parseMix, seededRandom, zipf, SEARCH_KINDS, type SearchKind } from './search-workload';

const raw = args({
  rate: { type: 'string', default: '1000' },
  'budget-per-s': { type: 'string', default: '20' },
  zipf: { type: 'string', default: '1.1' },
  mix: { type: 'string', default: 'hotels_a=5,flights_a=3,hotels_b=2' },
  'warmup-s': { type: 'string', default: '600' },
  'window-s': { type: 'string', default: '60' },
  'queue-ms': { type: 'string', default: '2000' },
  'stale-s': { type: 'string', default: '60' },
  seed: { type: 'string', default: '1' },
});
const num = (name: keyof typeof raw) => {
  const v = Number(raw[name]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} takes a number of at least 0, not ${String(raw[name])}`);
  return v;
};
const rate = num('rate');
const budget = num('budget-per-s');
const warmup = num('warmup-s');
const window = num('window-s');
const queueS = num('queue-ms') / 1000;
const staleS = num('stale-s');
const mix = parseMix(String(raw.mix));
if (!(rate > 0) || !(window > 0)) throw new Error('--rate and --window-s must be more than 0');

/** Each kind's catalogue: as many searches as bench:search's (./search-workload.ts), and the simulator's time to live. */
const dimensions = catalogueDimensions();
const CATALOGUES: Record<SearchKind, { size: number; ttlS: number }> = {
  hotels_a: { size: dimensions.hotels_a.reduce((a, b) => a * b, 1), ttlS: SEARCH_TTL_DEFAULTS['simulator.hotels']! },
  flights_a: { size: dimensions.flights_a.reduce((a, b) => a * b, 1), ttlS: SEARCH_TTL_DEFAULTS['simulator.flights']! },
  hotels_b: { size: dimensions.hotels_b.reduce((a, b) => a * b, 1), ttlS: SEARCH_TTL_DEFAULTS['simulator.hotels']! },
};

const random = seededRandom(num('seed'));
const kindOf = kindPicker(mix);
const samplers = Object.fromEntries(SEARCH_KINDS.filter((k) => mix[k] > 0).map((k) => [k, zipf(CATALOGUES[k].size, num('zipf')).sample])) as Record<
  SearchKind,
  (r: () => number) => number
>;

/** When each search's answer was last fetched, by kind and rank. */
const fetched = new Map<string, number>();
const size = Math.max(1, Math.ceil(budget / 10));
let tokens = size;
let last = 0;
/** A token of the budget at `now`, waiting within the queue; false when the wait would be longer. */
function take(now: number): boolean {
  if (budget === 0) return true;
  tokens = Math.min(size, tokens + (now - last) * budget);
  last = now;
  if (tokens - 1 < -budget * queueS) return false;
  tokens -= 1;
  return true;
}

let cached = 0;
let shed = 0;
let calls = 0;
const total = Math.round(rate * (warmup + window));
for (let i = 0; i < total; i++) {
  const now = i / rate;
  const measured = now >= warmup;
  const kind = kindOf(random);
  const key = `${kind}:${samplers[kind](random)}`;
  const at = fetched.get(key);
  const ttl = CATALOGUES[kind].ttlS;
  if (at !== undefined && now < at + ttl + staleS) {
    if (measured) cached++;
    // Past its time to live, a stale answer is served and refreshed within the budget.
    if (now >= at + ttl && take(now)) {
      fetched.set(key, now);
      if (measured) calls++;
    }
    continue;
  }
  if (take(now)) {
    fetched.set(key, now);
    if (measured) calls++;
  } else if (measured) shed++;
}
const searches = Math.round(rate * window);
console.log(
  JSON.stringify({
    cache_hit_ratio: round(cached / searches, 3),
    shed_ratio: round(shed / searches, 3),
    supplier_calls_per_s: round(calls / window, 1),
    settings: { rate, budget_per_s: budget, zipf: num('zipf'), mix, warmup_s: warmup, window_s: window, queue_ms: queueS * 1000, stale_s: staleS },
  }),
);
