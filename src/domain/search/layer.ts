import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { expiredPurge } from './purge';
import { stringify } from 'safe-stable-stringify';
import { logger } from '../../platform/log';
import { searchRequests, supplierSearchBudget, supplierSearchCalls } from '../../platform/metrics';
import { noteSearchServed } from '../../platform/request-context';
import type { SupplierBreakers } from '../../suppliers/breakers';
import { withinSearchDeadline } from '../../suppliers/deadline';
import { SearchBudgetSpentError, SupplierRejectedError } from '../../suppliers/errors';
import type { SearchBudget } from './budget';
import type { SearchService, SearchSettings } from './settings';

/**
 * How a search was served: from the cache while fresh, from it past its freshness while a
 * fresh answer is fetched (stale), by joining a supplier call another search made (coalesced),
 * by a supplier call of its own (miss), or not at all, the supplier's budget spent (shed).
 */
export type SearchOutcome = 'fresh' | 'stale' | 'coalesced' | 'miss' | 'shed';

/** A supplier's answer as kept: its JSON, when it was fetched, until when it is fresh, and until when it may be served stale. */
export interface KeptAnswer {
  json: string;
  fetchedAt: number;
  freshUntil: number;
  staleUntil: number;
}

/**
 * Where the answers are shared by every API process (PostgreSQL, ./shared.ts). With one
 * process (`npm start`, PGlite) there is none: its memory is the whole cache.
 */
export interface SharedSearchAnswers {
  read(key: string): Promise<KeptAnswer | null>;
  /**
   * Claims the supplier call of `key` for `leaseMs`: false while another process holds a claim
   * on it, or once it holds a fresh answer fetched after `after` (written since the caller read).
   */
  claim(key: string, leaseMs: number, after: number): Promise<boolean>;
  /** Keeps an answer (and ends the claim on its key). */
  write(key: string, where: { supplier: string; service: SearchService }, answer: KeptAnswer): Promise<void>;
  /** Ends a claim without an answer (the call failed). */
  release(key: string): Promise<void>;
}

/** One supplier search as the layer sees it. */
export interface SearchCall<T> {
  supplier: string;
  service: SearchService;
  /** The request, normalised (./keys.ts): equal requests are equal values. */
  request: unknown;
  /** Skips the cache (a booking looking its room up): the answer is fetched, and kept. */
  fresh?: boolean;
  /** The earliest moment something in the answer expires at the supplier (a flight offer), if any. */
  expiresAt?: (answer: T) => number | null;
}

/** A list a search is checked against (a supplier's cities, its airports). */
export interface ReferenceCall {
  supplier: string;
  service: SearchService;
  name: string;
}

/**
 * A supplier's answer as the search layer holds it. The layer keeps an answer as its JSON,
 * not as objects: what is made from it for partners is kept under its `id` (./derived.ts),
 * so serving it again does not need it parsed.
 */
export interface Found<T> {
  /** Names this answer in this process while it is kept: its search, and which fetch of it. */
  readonly id: string;
  /** Until when what is made from it may be kept (ms since the epoch); 0: the answer is not kept, nor should that be. */
  readonly until: number;
  /** Small facts worked out from the answer (the currencies of its amounts), kept with it. */
  readonly memo: Map<string, unknown>;
  /** The answer: the object fetched while it lives, else parsed again from its JSON. Callers never change it. */
  value(): T;
}

export interface SearchLayer {
  /** The supplier's answer to a search: from the cache, or from `load` within the supplier's budget. Callers never change what it returns. */
  search<T>(call: SearchCall<T>, load: () => Promise<T>): Promise<T>;
  /** The same search, answered as the layer holds it. */
  find<T>(call: SearchCall<T>, load: () => Promise<T>): Promise<Found<T>>;
  /**
   * A supplier's reference list: kept in this process for REFERENCE_TTL_MS whenever its
   * service's searches are cached, one call at a time; a failure is not kept. Outside the
   * search budget, which counts searches.
   */
  reference<T>(call: ReferenceCall, load: () => Promise<T>): Promise<T>;
  /** `run` (a search, everything it asks its supplier) within the search deadline (src/suppliers/deadline.ts). */
  within<T>(supplier: string, run: () => Promise<T>): Promise<T>;
  /** `run` (one supplier operation) through that operation's circuit breaker (src/suppliers/breakers.ts), when the layer has breakers. */
  guarded<T>(supplier: string, operation: string, run: () => Promise<T>): Promise<T>;
  /** Bytes of the answers kept in this process. */
  keptBytes(): number;
}

/** How long one process waits for another's call of the same search before it calls itself. */
const CLAIM_LEASE_MS = 30_000;
/** How often a process waiting for another's call looks for its answer. */
const CLAIM_POLL_MS = 40;
/** An answer is no longer served this long before the first offer in it expires at the supplier. */
const EXPIRY_MARGIN_MS = 60_000;
/** How long a reference list (cities, airports) is kept: they change with a supplier's network, not with its prices. */
export const REFERENCE_TTL_MS = 3_600_000;

interface Filled<T> {
  entry: Found<T> & Times;
  outcome: Exclude<SearchOutcome, 'shed'>;
}

interface Times {
  fetchedAt: number;
  freshUntil: number;
  staleUntil: number;
}

let nextFetch = 1;

/**
 * An answer kept: its JSON (outside the JavaScript heap, which then holds no answer's objects
 * for the collector to walk), and the object as fetched or last parsed while something uses it.
 */
class Kept<T> implements Found<T>, Times {
  readonly id: string;
  readonly memo = new Map<string, unknown>();
  private parsed: WeakRef<object> | null;

  constructor(
    key: string,
    readonly json: Buffer,
    value: T | null,
    readonly fetchedAt: number,
    readonly freshUntil: number,
    readonly staleUntil: number,
  ) {
    this.id = `${key}#${nextFetch++}`;
    this.parsed = typeof value === 'object' && value !== null ? new WeakRef(value) : null;
  }

  get until(): number {
    return this.staleUntil;
  }

  value(): T {
    const held = this.parsed?.deref();
    if (held) return held as T;
    const value = JSON.parse(this.json.toString('utf8')) as T;
    if (typeof value === 'object' && value !== null) this.parsed = new WeakRef(value);
    return value;
  }
}

/**
 * An answer not kept (searches of its supplier and service are not cached, it outlived its
 * bounds, or its supplier is not put through the layer): named once, made from once.
 */
export function foundOnce<T>(value: T): Found<T> {
  return { id: `~${nextFetch++}`, until: 0, memo: new Map(), value: () => value };
}

const notKept = <T>(value: T, times: Times): Found<T> & Times => ({ ...foundOnce(value), ...times });

/**
 * The search layer in front of every supplier search (docs/decisions/search-layer.md): a
 * cache of answers keyed by the normalised request, fresh for the supplier's and service's
 * time to live, then served stale within a bound while one refresh runs; identical searches
 * in flight share one supplier call (in this process, and across processes through the
 * shared store's claims); every supplier call takes a token of the supplier's budget, waiting
 * for one within SEARCH_QUEUE_MS, else the search is refused with the wait to retry after.
 */
export function createSearchLayer(opts: {
  settings: SearchSettings;
  budget: SearchBudget;
  shared?: SharedSearchAnswers | null;
  breakers?: SupplierBreakers;
  now?: () => number;
}): SearchLayer {
  const { settings, budget } = opts;
  const shared = opts.shared ?? null;
  const now = opts.now ?? Date.now;
  const kept = new LRUCache<string, Kept<unknown>>({ maxSize: settings.memoryBytes, sizeCalculation: (entry) => Math.max(entry.json.length, 1) });
  const purgeExpired = expiredPurge(() => kept, now);
  const inFlight = new Map<string, Promise<Filled<unknown>>>();
  const references = new Map<string, { until: number; value: Promise<unknown> }>();
  for (const [supplier, perSecond] of Object.entries(settings.budgets)) supplierSearchBudget.set({ supplier }, perSecond);

  const ttlMs = (supplier: string, service: SearchService) => (settings.ttls[`${supplier}.${service}`] ?? 0) * 1000;

  /** Keeps an answer until its stale bound; one past it, or larger than the whole cache, is not kept. */
  function keep<T>(key: string, json: string, value: T | null, times: Times): Found<T> & Times {
    const at = now();
    if (times.staleUntil <= at || json.length > settings.memoryBytes) return notKept(value ?? (JSON.parse(json) as T), times);
    purgeExpired();
    const entry = new Kept<T>(key, Buffer.from(json, 'utf8'), value, times.fetchedAt, times.freshUntil, times.staleUntil);
    kept.set(key, entry as Kept<unknown>, { ttl: times.staleUntil - at });
    return entry;
  }

  function served(call: { supplier: string; service: SearchService }, outcome: SearchOutcome): void {
    searchRequests.inc({ supplier: call.supplier, service: call.service, outcome });
    noteSearchServed(outcome);
  }

  /** The supplier call itself, within the budget; the answer kept here and shared. */
  async function fetchAnswer<T>(key: string, call: SearchCall<T>, load: () => Promise<T>, ttl: number): Promise<Found<T> & Times> {
    const perSecond = settings.budgets[call.supplier] ?? 0;
    if (perSecond > 0) {
      const token = await budget.take(call.supplier, perSecond, settings.queueMs);
      if (!token.ok) throw new SearchBudgetSpentError(call.supplier, Math.max(Math.ceil(token.retryAfterMs / 1000), 1));
    }
    let value: T;
    try {
      value = await load();
      supplierSearchCalls.inc({ supplier: call.supplier, service: call.service, result: 'ok' });
    } catch (err) {
      supplierSearchCalls.inc({ supplier: call.supplier, service: call.service, result: err instanceof SupplierRejectedError ? 'rejected' : 'failed' });
      throw err;
    }
    const fetchedAt = now();
    const expires = call.expiresAt?.(value) ?? null;
    const freshUntil = Math.min(fetchedAt + ttl, expires === null ? Infinity : expires - EXPIRY_MARGIN_MS);
    const staleUntil = Math.min(freshUntil + settings.staleSeconds * 1000, expires === null ? Infinity : expires - EXPIRY_MARGIN_MS);
    const times = { fetchedAt, freshUntil, staleUntil };
    if (!(ttl > 0 && freshUntil > fetchedAt)) return notKept(value, times);
    const json = JSON.stringify(value);
    const entry = keep(key, json, value, times);
    // The answer is served whatever happens to its shared copy: the other processes then call for it themselves.
    if (shared) {
      await shared
        .write(key, { supplier: call.supplier, service: call.service }, { json, ...times })
        .catch((err: Error) =>
          logger.warn({ supplier: call.supplier, service: call.service, err: err.message }, 'a search answer could not be shared with the other API processes'),
        );
    }
    return entry;
  }

  /** An answer kept by another process, into this one's memory. */
  function adopt<T>(key: string, answer: KeptAnswer): Found<T> & Times {
    return keep<T>(key, answer.json, null, { fetchedAt: answer.fetchedAt, freshUntil: answer.freshUntil, staleUntil: answer.staleUntil });
  }

  /**
   * The answer of `key` from the shared store, else from the supplier: one process calls
   * (the claim's holder), the others wait for its answer, and call themselves only once its
   * lease runs out. `after`: an answer fetched before it does not count (a refresh).
   */
  async function fill<T>(key: string, call: SearchCall<T>, load: () => Promise<T>, ttl: number, after: number): Promise<Filled<T>> {
    if (!shared || ttl === 0) return { entry: await fetchAnswer(key, call, load, ttl), outcome: 'miss' };
    const waitUntil = now() + CLAIM_LEASE_MS;
    for (let first = true; ; first = false) {
      const found = await shared.read(key);
      if (found && found.fetchedAt > after) {
        if (found.freshUntil > now()) return { entry: adopt<T>(key, found), outcome: first && !call.fresh ? 'fresh' : 'coalesced' };
        if (!call.fresh && found.staleUntil > now()) return { entry: adopt<T>(key, found), outcome: 'stale' };
      }
      if (await shared.claim(key, CLAIM_LEASE_MS, after)) break;
      if (now() >= waitUntil) break;
      await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
    }
    try {
      return { entry: await fetchAnswer(key, call, load, ttl), outcome: 'miss' };
    } catch (err) {
      await shared.release(key).catch((e: Error) => logger.warn({ err: e.message }, 'a search claim could not be released; it lapses on its own'));
      throw err;
    }
  }

  /** One fill of `key` at a time in this process: the searches that ask meanwhile share it (coalesced). */
  function joinOrFill<T>(key: string, call: SearchCall<T>, load: () => Promise<T>, ttl: number, after: number): Promise<Filled<T>> {
    const running = inFlight.get(key) as Promise<Filled<T>> | undefined;
    if (running) return running.then((f) => ({ entry: f.entry, outcome: 'coalesced' }));
    const filling = fill(key, call, load, ttl, after);
    inFlight.set(key, filling as Promise<Filled<unknown>>);
    const done = () => {
      if (inFlight.get(key) === (filling as Promise<Filled<unknown>>)) inFlight.delete(key);
    };
    filling.then(done, done);
    return filling;
  }

  /** Fetches a fresh answer in the background while a stale one is served; a spent budget or a failure leaves the stale one. */
  function refresh<T>(key: string, call: SearchCall<T>, load: () => Promise<T>, ttl: number, fetchedAt: number): void {
    if (inFlight.has(key)) return;
    joinOrFill(key, { ...call, fresh: true }, load, ttl, fetchedAt).catch((err: Error) =>
      logger.info(
        { supplier: call.supplier, service: call.service, err: err.message },
        'a stale search answer could not be refreshed; it is served until its bound',
      ),
    );
  }

  /** A search's answer as kept: from memory while fresh or within its stale bound, else filled. */
  async function find<T>(call: SearchCall<T>, load: () => Promise<T>): Promise<Found<T>> {
    const ttl = ttlMs(call.supplier, call.service);
    const key = `${call.supplier}.${call.service}:${createHash('sha256')
      .update(stringify(call.request) ?? '')
      .digest('base64url')}`;
    const local = ttl > 0 ? (kept.get(key) as Kept<T> | undefined) : undefined;
    const at = now();
    if (local && !call.fresh && at < local.freshUntil) {
      served(call, 'fresh');
      return local;
    }
    if (local && !call.fresh && at < local.staleUntil) {
      refresh(key, call, load, ttl, local.fetchedAt);
      served(call, 'stale');
      return local;
    }
    try {
      const filled = await joinOrFill(key, call, load, ttl, call.fresh ? at : 0);
      // Kept by another process and stale: served, and refreshed once this fill has let go of the key.
      if (filled.outcome === 'stale') setImmediate(() => refresh(key, call, load, ttl, filled.entry.fetchedAt));
      served(call, filled.outcome);
      return filled.entry;
    } catch (err) {
      if (err instanceof SearchBudgetSpentError) served(call, 'shed');
      throw err;
    }
  }

  return {
    reference<T>(call: ReferenceCall, load: () => Promise<T>): Promise<T> {
      if (ttlMs(call.supplier, call.service) === 0) return load();
      const key = `${call.supplier}.${call.service}.${call.name}`;
      const held = references.get(key);
      if (held && now() < held.until) return held.value as Promise<T>;
      const value = load();
      references.set(key, { until: now() + REFERENCE_TTL_MS, value });
      value.catch(() => {
        if (references.get(key)?.value === value) references.delete(key);
      });
      return value;
    },

    within: (supplier, run) => withinSearchDeadline(supplier, settings.deadlineMs, run),
    guarded: (supplier, operation, run) => (opts.breakers ? opts.breakers.run(supplier, operation, run) : run()),
    search: async <T>(call: SearchCall<T>, load: () => Promise<T>): Promise<T> => (await find(call, load)).value(),
    find,
    keptBytes: () => kept.calculatedSize,
  };
}
