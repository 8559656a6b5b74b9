import { LRUCache } from 'lru-cache';

/**
 * What is made from a supplier's search answer for one partner (its prices, its sealed codes,
 * its JSON), kept with that answer: an answer the search layer serves again is the same
 * object, so a partner asking the same search at the same prices gets what was made the
 * first time, and it all goes when the answer leaves the cache.
 */
const made = new WeakMap<object, LRUCache<string, Promise<unknown>>>();

/** How many partners' (or pricings') versions of one answer are kept; the least used go first. */
const VERSIONS_PER_ANSWER = 32;

/** What `make` makes from `source` for `key`, made once while both are kept; a failure is not kept. */
export function derived<T>(source: object, key: string, make: () => Promise<T>): Promise<T> {
  let versions = made.get(source);
  if (!versions) {
    versions = new LRUCache({ max: VERSIONS_PER_ANSWER });
    made.set(source, versions);
  }
  const kept = versions.get(key) as Promise<T> | undefined;
  if (kept) return kept;
  const making = make();
  versions.set(key, making);
  const cache = versions;
  making.catch(() => {
    if (cache.get(key) === making) cache.delete(key);
  });
  return making;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 1;

/** A number naming this object (a markup rule as read, a rate as read) while it lives: a new read is a new number. */
export function identityOf(o: object | null): number {
  if (o === null) return 0;
  let id = identities.get(o);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(o, id);
  }
  return id;
}

const currenciesOf = new WeakMap<object, Array<{ currency: string; amount_minor: number }>>();

/**
 * The currencies of an answer's amounts, one zero amount each, sorted: what pricing it needs
 * (src/domain/pricing.ts, searchPricerFor), worked out once per answer.
 */
export function currenciesIn(source: object, amounts: () => Iterable<{ currency: string }>): Array<{ currency: string; amount_minor: number }> {
  let found = currenciesOf.get(source);
  if (!found) {
    const currencies = new Set<string>();
    for (const a of amounts()) currencies.add(a.currency);
    found = [...currencies].sort().map((currency) => ({ currency, amount_minor: 0 }));
    currenciesOf.set(source, found);
  }
  return found;
}

/** What a price shown in a search was made with, as one key: the markup rule chosen and each currency's rate as read. */
export function pricingKey(
  markup: { rule: object | null },
  pricer: { rateOf(currency: string): object | null },
  currencies: Array<{ currency: string }>,
): string {
  let key = `m${identityOf(markup.rule)}`;
  for (const c of currencies) key += `:${c.currency}${identityOf(pricer.rateOf(c.currency))}`;
  return key;
}
