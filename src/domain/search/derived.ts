import { LRUCache } from 'lru-cache';
import { perObject } from '../../platform/per-object';
import type { Money } from '../../suppliers/money';
import type { Markup } from '../markup';
import { searchPricerFor, type Pricer, type PricingDeps } from '../pricing';

/** Each kept answer's size as JSON, as the search layer noted it (./layer.ts). */
const answerBytes = new WeakMap<object, number>();

/** Notes a kept answer's size: what is made from it is counted at a few times that. */
export function noteAnswerBytes(answer: object, bytes: number): void {
  answerBytes.set(answer, bytes);
}

/** What is made from an answer (priced objects, their JSON, its compressed forms), for its size. */
const MADE_PER_ANSWER_BYTE = 3;
const UNKNOWN_ANSWER_BYTES = 64 * 1024;

interface Made {
  source: object;
  making: Promise<unknown>;
}

let made = new LRUCache<string, Made>({ maxSize: 64 * 1024 * 1024, sizeCalculation: sizeOfMade });

function sizeOfMade(m: Made): number {
  return MADE_PER_ANSWER_BYTE * (answerBytes.get(m.source) ?? UNKNOWN_ANSWER_BYTES);
}

/** The memory what is made from answers may take in this process (SEARCH_CACHE_MB); what was made before is forgotten. */
export function boundDerived(maxBytes: number): void {
  if (made.maxSize !== maxBytes) made = new LRUCache<string, Made>({ maxSize: maxBytes, sizeCalculation: sizeOfMade });
}

/**
 * What is made from a supplier's search answer for one partner (its prices, its sealed codes,
 * its JSON), made once per answer and `key`: an answer the search layer serves again is the
 * same object, so a partner asking the same search at the same prices gets what was made the
 * first time. Kept within a memory bound, the least used first out; a failure is not kept.
 */
export function derived<T>(source: object, key: string, make: () => Promise<T>): Promise<T> {
  const id = `${identityOf(source)}|${key}`;
  const kept = made.get(id);
  if (kept) return kept.making as Promise<T>;
  const making = make();
  const cache = made;
  const entry = { source, making };
  cache.set(id, entry);
  making.catch(() => {
    if (cache.get(id) === entry) cache.delete(id);
  });
  return making;
}

let nextIdentity = 1;
const identity = perObject((_: object) => nextIdentity++);

/** A number naming this object (a supplier's answer as kept) while it lives. */
export function identityOf(o: object | null): number {
  return o === null ? 0 : identity(o);
}

const currenciesOf = new WeakMap<object, Array<{ currency: string; amount_minor: number }>>();

/**
 * The currencies of an answer's amounts, one zero amount each, sorted: what pricing it needs
 * (src/domain/pricing.ts, searchPricerFor), worked out once per answer.
 */
function currenciesIn(source: object, amounts: () => Iterable<{ currency: string }>): Array<{ currency: string; amount_minor: number }> {
  let found = currenciesOf.get(source);
  if (!found) {
    const currencies = new Set<string>();
    for (const a of amounts()) currencies.add(a.currency);
    found = [...currencies].sort().map((currency) => ({ currency, amount_minor: 0 }));
    currenciesOf.set(source, found);
  }
  return found;
}

/**
 * What a price shown in a search was made with, as one key, by value: the markup rule chosen
 * (its id and what it takes) and each currency's rate (its row). A rule or a rate read again
 * unchanged is the same key; a new rate or another rule is another.
 */
function pricingKey(
  markup: { rule: { id: number; percentHundredths: number; fixedMinor: number; minMarginMinor: number } | null },
  pricer: { rateOf(currency: string): { rateId: number } | null },
  currencies: Array<{ currency: string }>,
): string {
  const r = markup.rule;
  let key = r ? `m${r.id}/${r.percentHundredths}/${r.fixedMinor}/${r.minMarginMinor}` : 'm-';
  for (const c of currencies) key += `:${c.currency}${pricer.rateOf(c.currency)?.rateId ?? ''}`;
  return key;
}

/**
 * A search's answer as sold (`make`, with the pricer of its amounts and the sale's markup),
 * made once per answer, `variant` (the supplier and the request's own filters) and pricing
 * (the markup's rule and the rates as read, by value): an answer served again from the
 * search layer's cache is not priced again, for this partner or any other sold at the same
 * rule (a sealed code names no partner).
 */
export async function soldOnce<T>(
  pricing: PricingDeps,
  found: object,
  amounts: () => Iterable<Money>,
  markup: Markup,
  variant: string,
  now: Date,
  make: (pricer: Pricer, markup: Markup) => T,
): Promise<T> {
  const currencies = currenciesIn(found, amounts);
  const pricer = await searchPricerFor(pricing, currencies, now);
  return derived(found, `${variant}:${pricingKey(markup, pricer, currencies)}`, async () => make(pricer, markup));
}
