import { keyDirectory } from '../../src/domain/key-directory';

/** The directory of active keys: a flood of invented keys costs one read per refresh, not one per key. */
describe('keyDirectory', () => {
  afterEach(() => jest.useRealTimers());

  function directory(keys: string[]) {
    const db = {};
    let reads = 0;
    const dir = keyDirectory<object>({
      refreshMs: 5000,
      load: async () => {
        reads++;
        return [...keys];
      },
    });
    return { db, dir, keys, reads: () => reads };
  }

  it('reads the keys once for a flood of unknown keys, and again only after the refresh', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const { db, dir, keys, reads } = directory(['a:known']);
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => dir.has(db, `a:invented-${i}`)));
    expect(answers.every((a) => a === false)).toBe(true);
    expect(reads()).toBe(1);
    expect(await dir.has(db, 'a:known')).toBe(true);
    // A key added elsewhere is learnt once the refresh has passed, not before.
    keys.push('a:new');
    expect(await dir.has(db, 'a:new')).toBe(false);
    expect(reads()).toBe(1);
    jest.advanceTimersByTime(5001);
    expect(await dir.has(db, 'a:new')).toBe(true);
    expect(reads()).toBe(2);
  });

  it('reads again at the next unknown key after forget (a key added through this process), and keeps handles apart', async () => {
    const { db, dir, keys, reads } = directory(['b:one']);
    expect(await dir.has(db, 'b:one')).toBe(true);
    keys.push('b:two');
    dir.forget(db);
    expect(await dir.has(db, 'b:one')).toBe(true);
    expect(reads()).toBe(1);
    expect(await dir.has(db, 'b:two')).toBe(true);
    expect(reads()).toBe(2);
    expect(await dir.has({}, 'b:two')).toBe(true);
    expect(reads()).toBe(3);
  });

  it('a failed read answers no key and is tried again at the next ask', async () => {
    let fail = true;
    const dir = keyDirectory<object>({
      refreshMs: 5000,
      load: async () => {
        if (fail) throw new Error('database down');
        return ['a:k'];
      },
    });
    const db = {};
    await expect(dir.has(db, 'a:k')).rejects.toThrow('database down');
    fail = false;
    expect(await dir.has(db, 'a:k')).toBe(true);
  });
});
