import { LRUCache } from 'lru-cache';
import { expiredPurge } from './purge';
import type { Money } from '../../suppliers/money';
import type { Markup } from '../money/markup';
import { searchPricerFor, type Pricer, type PricingDeps } from '../money/pricing';
import type { Found } from './layer';

/** What is made from an answer, as kept: bytes, their size exact. */
export interface MadeBytes {
  bytes: Uint8Array;
}

const makings = new Map<string, Promise<MadeBytes>>();
let made = new LRUCache<string, MadeBytes>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (m) => Math.max(m.bytes.length, 1) });
const purgeExpired = expiredPurge(() => made);

/** The memory what is made from answers may take in this process (SEARCH_CACHE_MB); what was made before is forgotten. */
export function boundDerived(maxBytes: number): void {
  if (made.maxSize !== maxBytes) made = new LRUCache<string, MadeBytes>({ maxSize: maxBytes, sizeCalculation: (m) => Math.max(m.bytes.length, 1) });
}

/** Bytes of what is made from answers, as kept. */
export const derivedBytes = (): number => made.calculatedSize;

/** What is kept under `id`, if anything (not counted as a use). */
export function madeAlready<M extends MadeBytes>(id: string): M | undefined {
  return made.peek(id) as M | undefined;
}

/**
 * What is made from a kept answer (`id`: a `Sold`'s, and its form), made once: the searches
 * that ask while it is made share the making, and once made it is kept as bytes until `until`
 * (its answer's stale bound), within a memory bound, the least used first out. A failure is
 * not kept; nor is anything made from an answer that is not kept (`until` 0).
 */
export function madeOnce<M extends MadeBytes>(id: string, until: number, make: () => Promise<M>): Promise<M> {
  const kept = made.get(id);
  if (kept) return Promise.resolve(kept as M);
  const making = makings.get(id);
  if (making) return making as Promise<M>;
  const now = Date.now();
  if (until <= now) return make();
  const cache = made;
  const started = make();
  makings.set(id, started);
  const done = () => makings.delete(id);
  started.then((m) => {
    done();
    // Larger than the whole bound: not kept (the cache would refuse it anyway).
    if (m.bytes.length > cache.maxSize || until <= Date.now()) return;
    purgeExpired();
    cache.set(id, m, { ttl: until - Date.now() });
  }, done);
  return started;
}

/**
 * A search's answer as sold to a partner, named by what makes it: the supplier's answer as
 * kept, the request's own filters and the pricing. `make` prices and seals it; what is sent
 * is made from that once per name (madeOnce), so a search served again from the search
 * layer's cache is neither priced nor parsed again.
 */
export interface Sold<T> {
  readonly id: string;
  readonly until: number;
  make(): T;
}

/**
 * The currencies of an answer's amounts, one zero amount each, sorted: what pricing it needs
 * (src/domain/money/pricing.ts, searchPricerFor), worked out once per answer.
 */
function currenciesIn<S>(found: Found<S>, amounts: (answer: S) => Iterable<{ currency: string }>): Array<{ currency: string; amount_minor: number }> {
  let currencies = found.memo.get('currencies') as Array<{ currency: string; amount_minor: number }> | undefined;
  if (!currencies) {
    const seen = new Set<string>();
    for (const a of amounts(found.value())) seen.add(a.currency);
    currencies = [...seen].sort().map((currency) => ({ currency, amount_minor: 0 }));
    found.memo.set('currencies', currencies);
  }
  return currencies;
}

/**
 * What a price shown in a search was made with, as one key, by value: the wallet currency, the
 * markup rule chosen (its id and what it takes) and each currency's rate (its row). A rule or a rate read again
 * unchanged is the same key; a new rate or another rule is another.
 */
function pricingKey(
  markup: { rule: { id: number; percentHundredths: number; fixedMinor: number; minMarginMinor: number } | null },
  pricer: { currency: string; rateOf(currency: string): { rateId: number } | null },
  currencies: Array<{ currency: string }>,
): string {
  const r = markup.rule;
  let key = `${pricer.currency}:${r ? `m${r.id}/${r.percentHundredths}/${r.fixedMinor}/${r.minMarginMinor}` : 'm-'}`;
  for (const c of currencies) key += `:${c.currency}${pricer.rateOf(c.currency)?.rateId ?? ''}`;
  return key;
}

/**
 * A search's answer as sold (`make`, with the answer, the pricer of its amounts and the
 * sale's markup), named by the answer, `variant` (the supplier and the request's own filters)
 * and pricing (the markup's rule and the rates as read, by value): an answer served again
 * from the search layer's cache is not priced again, for this partner or any other sold at
 * the same rule (a sealed code names no partner).
 */
export async function soldOnce<S, T>(
  pricing: PricingDeps,
  found: Found<S>,
  amounts: (answer: S) => Iterable<Money>,
  markup: Markup,
  variant: string,
  now: Date,
  make: (answer: S, pricer: Pricer, markup: Markup) => T,
): Promise<Sold<T>> {
  const currencies = currenciesIn(found, amounts);
  const pricer = await searchPricerFor(pricing, currencies, now);
  return { id: `${found.id}|${variant}:${pricingKey(markup, pricer, currencies)}`, until: found.until, make: () => make(found.value(), pricer, markup) };
}
