/**
 * Every key of one kind that exists, kept in memory per database handle, read whole at most
 * once per `refreshMs`: whether a key exists is then answered without a lookup of its own, so
 * a flood of invented keys costs at most one read of the directory per `refreshMs`, however
 * many keys it invents (docs/decisions/credentials-from-memory.md).
 */
export interface KeyDirectory {
  /** Whether `key` exists: from memory, or after reading the directory again if it is older than `refreshMs`. */
  has(db: object, key: string): Promise<boolean>;
  /** The next `has` of a key not in memory reads the directory again (a key was added or changed through this process). */
  forget(db: object): void;
}

export function keyDirectory<D extends object>(opts: { load(db: D): Promise<Iterable<string>>; refreshMs: number }): KeyDirectory {
  interface PerHandle {
    keys: Set<string>;
    /** performance.now() of the read `keys` came from; -Infinity before the first or after `forget`. */
    readAt: number;
    /** The read under way, shared by every `has` that waits for it. */
    reading: Promise<void> | null;
    generation: number;
  }
  const directories = new WeakMap<object, PerHandle>();
  const reload = (db: D, dir: PerHandle): Promise<void> => {
    if (dir.reading) return dir.reading;
    const generation = dir.generation;
    const startedAt = performance.now();
    const reading = opts
      .load(db)
      .then((keys) => {
        if (generation !== dir.generation) return;
        dir.keys = new Set(keys);
        dir.readAt = startedAt;
      })
      .finally(() => {
        if (dir.reading === reading) dir.reading = null;
      });
    dir.reading = reading;
    return reading;
  };
  return {
    async has(db, key) {
      let dir = directories.get(db);
      if (!dir) {
        dir = { keys: new Set(), readAt: -Infinity, reading: null, generation: 0 };
        directories.set(db, dir);
      }
      if (dir.keys.has(key)) return true;
      if (performance.now() - dir.readAt < opts.refreshMs) return false;
      await reload(db as D, dir);
      return dir.keys.has(key);
    },
    forget(db) {
      const dir = directories.get(db);
      if (!dir) return;
      dir.readAt = -Infinity;
      dir.reading = null;
      dir.generation++;
    },
  };
}
