/** The services whose supplier searches go through the search layer. */
export type SearchService = 'hotels' | 'flights';

/**
 * How long each supplier's search answers are kept, in seconds, keyed `<supplier>.<service>`.
 * The simulator's prices move only with its scenarios; Duffel's offers and rates move, and
 * its flight offers expire within minutes, so they are kept for a short while only.
 */
export const SEARCH_TTL_DEFAULTS: Readonly<Record<string, number>> = {
  'simulator.hotels': 300,
  'simulator.flights': 120,
  'duffel.hotels': 120,
  'duffel.flights': 60,
};

/**
 * Searches a second each supplier is sent at most, across every API process (0: no budget).
 * Duffel's limits are per account and endpoint; a conservative default keeps well within them.
 */
export const SEARCH_BUDGET_DEFAULTS: Readonly<Record<string, number>> = {
  simulator: 0,
  duffel: 2,
};

/** What the search layer is configured with (src/config.ts, SEARCH_*). */
export interface SearchSettings {
  /** Seconds an answer is fresh, keyed `<supplier>.<service>`; missing or 0: never cached. */
  ttls: Readonly<Record<string, number>>;
  /** Seconds past its freshness an answer may still be served while a fresh one is fetched. */
  staleSeconds: number;
  /** Searches a second per supplier; missing or 0: no budget. */
  budgets: Readonly<Record<string, number>>;
  /** How long a search may wait for its supplier's budget before it is refused. */
  queueMs: number;
  /** How long a search may take at its supplier, everything included, before it is answered 503 (SEARCH_DEADLINE_MS). */
  deadlineMs: number;
  /** Bytes of answers each process keeps in memory. */
  memoryBytes: number;
}
