/**
 * `make(object)` once per object while it lives (kept in a WeakMap, so it goes with the
 * object): what is derived from an object that does not change, such as an index of a list
 * a supplier answered or the columns of a table.
 */
export function memoizePerObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (made.has(key)) return made.get(key)!;
    const value = make(key);
    made.set(key, value);
    return value;
  };
}
