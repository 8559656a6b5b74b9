import { LRUCache } from 'lru-cache';

/** Reads of one kind kept in memory for a short time, per database handle (see `readCache`). */
export interface ReadCache {
  /**
   * The read `key` of this database handle, from memory when it was read within the time to
   * live. Concurrent misses share one read; a read that fails, or whose answer `keep`
   * refuses, is not kept. What it returns is shared between requests: callers never change it.
   */
  read<T>(db: object, key: string, load: () => PromiseLike<T>, keep?: (value: T) => boolean): Promise<T>;
  /** Forgets every read of this database handle: the next one of each key goes to the database. */
  forget(db: object): void;
}

/**
 * A read-through cache of at most `max` keys per database handle, each kept `ttlMs`. One
 * cache per handle: test stacks in one process, each with its own database, never share one.
 */
export function readCache(opts: { max: number; ttlMs: number }): ReadCache {
  const caches = new WeakMap<object, LRUCache<string, Promise<unknown>>>();
  return {
    read<T>(db: object, key: string, load: () => PromiseLike<T>, keep?: (value: T) => boolean): Promise<T> {
      let cache = caches.get(db);
      if (!cache) {
        // The clock is read at each lookup (not cached between them, not captured at load), so a
        // test's fake timers reach it; one performance.now() per request is nothing.
        cache = new LRUCache<string, Promise<unknown>>({ max: opts.max, ttl: opts.ttlMs, ttlResolution: 0, perf: { now: () => performance.now() } });
        caches.set(db, cache);
      }
      const kept = cache.get(key) as Promise<T> | undefined;
      if (kept) return kept;
      // A real promise, settled once: a drizzle query is a thenable that runs again at every `then`.
      const reading = Promise.resolve(load());
      cache.set(key, reading);
      const drop = () => {
        if (cache.get(key) === reading) cache.delete(key);
      };
      reading.then((value) => keep === undefined || keep(value) || drop(), drop);
      return reading;
    },
    forget(db: object) {
      caches.get(db)?.clear();
    },
  };
}
