import { CATALOGUE_TTL_MS, fromCatalogue } from '../../src/domain/catalog-cache';

/** A catalogue read that counts how often it ran and answers the run's number. */
function counted() {
  let runs = 0;
  return {
    read: async () => ++runs,
    runs: () => runs,
  };
}

describe('the catalogue from memory', () => {
  afterEach(() => jest.useRealTimers());

  it('reads once within the time to live, and again after it', async () => {
    jest.useFakeTimers({ now: Date.now() });
    // Fake timers start performance.now() at 0, which lru-cache reads as "no start time".
    jest.advanceTimersByTime(1_000);
    const db = {};
    const r = counted();
    expect(await fromCatalogue(db, 'k', r.read)).toBe(1);
    jest.advanceTimersByTime(CATALOGUE_TTL_MS - 100);
    expect(await fromCatalogue(db, 'k', r.read)).toBe(1);
    jest.advanceTimersByTime(200);
    expect(await fromCatalogue(db, 'k', r.read)).toBe(2);
    expect(r.runs()).toBe(2);
  });

  it('shares one read between concurrent misses', async () => {
    const db = {};
    const r = counted();
    const answers = await Promise.all(Array.from({ length: 5 }, () => fromCatalogue(db, 'k', r.read)));
    expect(answers).toEqual([1, 1, 1, 1, 1]);
    expect(r.runs()).toBe(1);
  });

  it('runs a query that is only a thenable (drizzle runs one at every then) once for all its readers', async () => {
    const db = {};
    let runs = 0;
    const query: PromiseLike<number> = { then: (ok, fail) => Promise.resolve(++runs).then(ok, fail) };
    const answers = [await fromCatalogue(db, 'k', () => query), await fromCatalogue(db, 'k', () => query), await fromCatalogue(db, 'k', () => query)];
    expect(answers).toEqual([1, 1, 1]);
    expect(runs).toBe(1);
  });

  it('keeps no failed read: the next request reads again', async () => {
    const db = {};
    await expect(fromCatalogue(db, 'k', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await fromCatalogue(db, 'k', async () => 'read again')).toBe('read again');
  });

  it('keeps each database its own, and each key its own', async () => {
    const a = {};
    const b = {};
    expect(await fromCatalogue(a, 'k', async () => 'a')).toBe('a');
    expect(await fromCatalogue(b, 'k', async () => 'b')).toBe('b');
    expect(await fromCatalogue(a, 'other', async () => 'a, other')).toBe('a, other');
    expect(await fromCatalogue(a, 'k', async () => 'not read')).toBe('a');
  });
});
