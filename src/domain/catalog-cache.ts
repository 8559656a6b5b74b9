import { readCache } from './read-cache';

/**
 * How long a catalogue read is served from memory. The catalogue (products, variants,
 * categories, stock) is written by the seed when the engine starts and by nothing while it
 * serves, so this bounds only how long a change made behind the engine's back (an operator's
 * SQL) takes to show (docs/decisions/catalogue-from-memory.md).
 */
export const CATALOGUE_TTL_MS = 5_000;
/** Distinct reads kept (a search text is part of the key, so the keys are the partners' to choose). */
const MAX_ENTRIES = 500;

const catalogue = readCache({ max: MAX_ENTRIES, ttlMs: CATALOGUE_TTL_MS });

/**
 * The catalogue read `key` of this database, from memory when it was read within the last
 * CATALOGUE_TTL_MS. Concurrent misses share one read; a read that fails is not kept. What it
 * returns is shared between requests: callers render it, never change it.
 */
export function fromCatalogue<T>(db: object, key: string, read: () => PromiseLike<T>): Promise<T> {
  return catalogue.read(db, key, read);
}
