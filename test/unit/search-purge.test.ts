import { LRUCache } from 'lru-cache';
import { expiredPurge, PURGE_EVERY_MS } from '../../src/domain/search/purge';

/** The search caches drop expired answers on their own, at most once per PURGE_EVERY_MS, so memory follows what can still be served. */
describe('expiredPurge', () => {
  it('frees what expired, which the cache alone keeps until its size bound pushes it out', () => {
    // lru-cache takes a start of 0 for "no time to live": the clock starts later.
    let clock = 1_000_000;
    const now = () => clock;
    const cache = new LRUCache<string, { bytes: Buffer }>({ maxSize: 1_000_000, sizeCalculation: (v) => v.bytes.length, ttlResolution: 0, perf: { now } });
    const purge = expiredPurge(() => cache, now);
    cache.set('old', { bytes: Buffer.alloc(1000) }, { ttl: 1_000 });
    cache.set('fresh', { bytes: Buffer.alloc(500) }, { ttl: 10 * PURGE_EVERY_MS });
    clock += 2_000;
    purge();
    // Expired, yet still counted (and held) by the cache itself.
    expect(cache.calculatedSize).toBe(1500);
    clock += PURGE_EVERY_MS;
    purge();
    expect(cache.calculatedSize).toBe(500);
    expect(cache.has('fresh')).toBe(true);
  });

  it('purges at most once per PURGE_EVERY_MS', () => {
    let clock = 0;
    const now = () => clock;
    let purges = 0;
    const cache = { purgeStale: () => (purges++, true) } as unknown as LRUCache<string, object>;
    const purge = expiredPurge(() => cache, now);
    for (clock = 0; clock < 3 * PURGE_EVERY_MS; clock += 1_000) purge();
    expect(purges).toBe(2);
  });
});
