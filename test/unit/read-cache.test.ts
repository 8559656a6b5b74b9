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
