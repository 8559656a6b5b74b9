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

/** How many answers `keep` refused are kept, and how long: a read of a key that is not there, asked again and again. */
export interface MissCache {
  max: number;
  ttlMs: number;
}

/**
 * A read-through cache of at most `max` keys per database handle, each kept `ttlMs`. One
 * cache per handle: test stacks in one process, each with its own database, never share one.
 * With `misses`, an answer `keep` refuses is kept too, apart (so that misses never push
 * the kept answers out), for its own shorter time.
 */
export function readCache(opts: { max: number; ttlMs: number; misses?: MissCache }): ReadCache {
  interface PerHandle {
    hits: LRUCache<string, Promise<unknown>>;
    misses: LRUCache<string, Promise<unknown>> | null;
    /** Reads under way, shared by concurrent misses; kept once settled, in `hits` or `misses`. */
    reading: Map<string, Promise<unknown>>;
    /** Bumped by `forget`: a read that began before it is not kept. */
    generation: number;
  }
  const caches = new WeakMap<object, PerHandle>();
  // The clock is read at each lookup (not cached between them, not captured at load), so a
  // test's fake timers reach it; one performance.now() per request is nothing.
  const lru = (o: { max: number; ttlMs: number }) =>
    new LRUCache<string, Promise<unknown>>({ max: o.max, ttl: o.ttlMs, ttlResolution: 0, perf: { now: () => performance.now() } });
  return {
    read<T>(db: object, key: string, load: () => PromiseLike<T>, keep?: (value: T) => boolean): Promise<T> {
      let cache = caches.get(db);
      if (!cache) {
        cache = { hits: lru(opts), misses: opts.misses ? lru(opts.misses) : null, reading: new Map(), generation: 0 };
        caches.set(db, cache);
      }
      const handle = cache;
      const kept = (handle.hits.get(key) ?? handle.misses?.get(key) ?? handle.reading.get(key)) as Promise<T> | undefined;
      if (kept) return kept;
      // A real promise, settled once: a drizzle query is a thenable that runs again at every `then`.
      const reading = Promise.resolve(load());
      const generation = handle.generation;
      handle.reading.set(key, reading);
      const settled = () => {
        if (handle.reading.get(key) === reading) handle.reading.delete(key);
        return generation === handle.generation;
      };
      reading.then(
        (value) => {
          if (!settled()) return;
          if (keep === undefined || keep(value)) handle.hits.set(key, reading);
          else handle.misses?.set(key, reading);
        },
        () => void settled(),
      );
      return reading;
    },
    forget(db: object) {
      const cache = caches.get(db);
      if (!cache) return;
      cache.hits.clear();
      cache.misses?.clear();
      cache.reading.clear();
      cache.generation++;
    },
  };
}
