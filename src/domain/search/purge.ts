import type { LRUCache } from 'lru-cache';

/** How often a cache of answers drops the entries past their time to live. */
export const PURGE_EVERY_MS = 30_000;

/**
 * A purge of `cache`'s expired entries, done at most once per PURGE_EVERY_MS however often it
 * is called: lru-cache drops an expired entry only when it is read again or the size bound
 * pushes it out, so under a long tail of searches the cache would otherwise fill its bound
 * with answers no one can be served.
 */
export function expiredPurge<K extends object | string, V extends object>(cache: () => LRUCache<K, V>, now: () => number = Date.now): () => void {
  let last = now();
  return () => {
    const at = now();
    if (at - last < PURGE_EVERY_MS) return;
    last = at;
    cache().purgeStale();
  };
}
