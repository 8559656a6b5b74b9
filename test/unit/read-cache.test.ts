import { readCache } from '../../src/domain/read-cache';

/** What the catalogue's tests do not cover of the shared cache: answers it refuses to keep, and forgetting. */
describe('readCache', () => {
  it('keeps no answer that `keep` refuses (an unknown key): the next request reads again', async () => {
    const cache = readCache({ max: 10, ttlMs: 60_000 });
    const db = {};
    let runs = 0;
    const read = async () => (++runs < 3 ? undefined : 'found');
    const known = (v: string | undefined) => v !== undefined;
    expect(await cache.read(db, 'k', read, known)).toBeUndefined();
    expect(await cache.read(db, 'k', read, known)).toBeUndefined();
    expect(await cache.read(db, 'k', read, known)).toBe('found');
    expect(await cache.read(db, 'k', read, known)).toBe('found');
    expect(runs).toBe(3);
  });

  it('with `misses`, keeps a refused answer apart, for its own time, without pushing out kept answers', async () => {
    jest.useFakeTimers({ now: Date.now() });
    // Fake timers start performance.now() at 0, which lru-cache reads as "no start time".
    jest.advanceTimersByTime(1_000);
    try {
      const cache = readCache({ max: 2, ttlMs: 60_000, misses: { max: 2, ttlMs: 5_000 } });
      const db = {};
      let runs = 0;
      const read = (value: string | undefined) => async () => (++runs, value);
      const known = (v: string | undefined) => v !== undefined;
      expect(await cache.read(db, 'a', read('A'), known)).toBe('A');
      expect(await cache.read(db, 'b', read('B'), known)).toBe('B');
      // Unknown keys, more than the misses keep: the kept answers stay.
      for (const k of ['x', 'y', 'z']) expect(await cache.read(db, k, read(undefined), known)).toBeUndefined();
      expect(runs).toBe(5);
      expect(await cache.read(db, 'a', read('changed'), known)).toBe('A');
      expect(await cache.read(db, 'b', read('changed'), known)).toBe('B');
      expect(await cache.read(db, 'z', read('found'), known)).toBeUndefined();
      expect(runs).toBe(5);
      // Past the misses' time the key is read again; the kept answers are not.
      jest.advanceTimersByTime(5_001);
      expect(await cache.read(db, 'z', read('found'), known)).toBe('found');
      expect(await cache.read(db, 'b', read('changed'), known)).toBe('B');
      expect(runs).toBe(6);
      cache.forget(db);
      expect(await cache.read(db, 'y', read('found'), known)).toBe('found');
    } finally {
      jest.useRealTimers();
    }
  });

  it('forgets every read of one database handle, and only of that one', async () => {
    const cache = readCache({ max: 10, ttlMs: 60_000 });
    const [a, b] = [{}, {}];
    let runs = 0;
    const read = async () => ++runs;
    expect([await cache.read(a, 'k', read), await cache.read(b, 'k', read)]).toEqual([1, 2]);
    cache.forget(a);
    expect([await cache.read(a, 'k', read), await cache.read(b, 'k', read)]).toEqual([3, 2]);
  });
});
