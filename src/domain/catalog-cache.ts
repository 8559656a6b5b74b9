import { LRUCache } from 'lru-cache';

/**
 * How long a catalogue read is served from memory. The catalogue (products, variants,
 * categories, stock) is written by the seed when the engine starts and by nothing while it
 * serves, so this bounds only how long a change made behind the engine's back (an operator's
 * SQL) takes to show (docs/decisions.md, "The catalogue from memory").
 */
export const CATALOGUE_TTL_MS = 5_000;
/** Distinct reads kept (a search text is part of the key, so the keys are the partners' to choose). */
const MAX_ENTRIES = 500;

/** One cache per database handle: test stacks in one process, each with its own database, never share one. */
const caches = new WeakMap<object, LRUCache<string, Promise<unknown>>>();

/**
 * The catalogue read `key` of this database, from memory when it was read within the last
 * CATALOGUE_TTL_MS. Concurrent misses share one read; a read that fails is not kept. What it
 * returns is shared between requests: callers render it, never change it.
 */
export function fromCatalogue<T>(db: object, key: string, read: () => PromiseLike<T>): Promise<T> {
  let cache = caches.get(db);
  if (!cache) {
    // The clock is read at each lookup (not cached between them, not captured at load), so a
    // test's fake timers reach it; one performance.now() per request is nothing.
    cache = new LRUCache<string, Promise<unknown>>({
      max: MAX_ENTRIES,
      ttl: CATALOGUE_TTL_MS,
      ttlResolution: 0,
      perf: { now: () => performance.now() },
    });
    caches.set(db, cache);
  }
  const kept = cache.get(key) as Promise<T> | undefined;
  if (kept) return kept;
  // A real promise, settled once: a drizzle query is a thenable that runs again at every `then`.
  const reading = Promise.resolve(read());
  cache.set(key, reading);
  reading.catch(() => {
    if (cache.get(key) === reading) cache.delete(key);
  });
  return reading;
}
