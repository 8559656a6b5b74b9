import type { Context, MiddlewareHandler } from 'hono';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/client';
import { logger } from '../platform/log';

/** The interfaces, counted apart: A (/api) and B (/v1). */
export type RateScope = 'a' | 'b';

/** The window every limit counts in: requests per minute. */
export const RATE_WINDOW_SECONDS = 60;
/** The policy's name in the RateLimit and RateLimit-Policy fields. */
const POLICY = '"per-minute"';

/** Where a partner stands in the current window, after (or without) counting this request. */
export interface RateState {
  limit: number;
  allowed: boolean;
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1 while over). */
  resetSeconds: number;
}

/**
 * The engine's per-partner, per-interface request counters (rate-limiter-flexible). One
 * limiter counts every partner: its own points are set out of reach, and each request is
 * compared with the partner's limit here, so an operator's change applies to the window
 * under way (a limiter per limit would keep separate counts per value in memory).
 */
export interface RateLimits {
  defaultPerMinute: number;
  /** Counts one request of the partner on that interface. */
  consume(scope: RateScope, partnerId: number, limit: number): Promise<RateState>;
  /** Where the partner stands, without counting anything. */
  peek(scope: RateScope, partnerId: number, limit: number): Promise<RateState>;
}

const OUT_OF_REACH = 2 ** 31 - 1;

function stateOf(res: RateLimiterRes | null, limit: number, counted: boolean): RateState {
  const consumed = res?.consumedPoints ?? 0;
  const ms = res && res.msBeforeNext > 0 ? res.msBeforeNext : RATE_WINDOW_SECONDS * 1000;
  const allowed = counted ? consumed <= limit : consumed < limit;
  return { limit, allowed, remaining: Math.max(limit - consumed, 0), resetSeconds: Math.max(Math.ceil(ms / 1000), res ? 1 : RATE_WINDOW_SECONDS) };
}

/** Counters over any of the library's stores. */
export function rateLimitsOver(limiter: RateLimiterAbstract, defaultPerMinute: number): RateLimits {
  const key = (scope: RateScope, partnerId: number) => `${scope}:${partnerId}`;
  return {
    defaultPerMinute,
    // The limiter's own points are out of reach, so consume never rejects: it counts and answers the count.
    consume: async (scope, partnerId, limit) => stateOf(await limiter.consume(key(scope, partnerId), 1), limit, true),
    peek: async (scope, partnerId, limit) => stateOf(await limiter.get(key(scope, partnerId)), limit, false),
  };
}

/**
 * PostgreSQL (DATABASE_URL): RateLimiterPostgres over the engine's own pool, in the table the
 * migrations created (`rate_limit_counters`), so every API replica on that database shares
 * each partner's count. PGlite (one process): RateLimiterMemory, unless `store: 'table'` asks
 * for the table there too (tests, to check the shared table in both modes).
 */
export function createRateLimits(database: Pick<Database, 'db' | 'kind'>, defaultPerMinute: number, opts: { store?: 'table' } = {}): RateLimits {
  const common = { points: OUT_OF_REACH, duration: RATE_WINDOW_SECONDS, keyPrefix: 'rl' };
  // drizzle keeps its driver's client as $client: node-postgres's Pool, or the PGlite instance.
  const client = (database.db as unknown as { $client: { query(text: string, values?: unknown[]): Promise<unknown> } }).$client;
  const table = { tableName: 'rate_limit_counters', tableCreated: true };
  if (database.kind === 'postgres') {
    return rateLimitsOver(new RateLimiterPostgres({ ...common, ...table, storeClient: client, storeType: 'pool' }), defaultPerMinute);
  }
  if (opts.store === 'table') {
    // PGlite answers rows and rowCount as pg does; it takes the text and values apart.
    const storeClient = { query: (q: { text: string; values?: unknown[] }) => client.query(q.text, q.values) };
    return rateLimitsOver(new RateLimiterPostgres({ ...common, ...table, storeClient, storeType: 'client' }), defaultPerMinute);
  }
  return rateLimitsOver(new RateLimiterMemory(common), defaultPerMinute);
}

/** The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-10; docs/decisions.md, "Rate limits"). */
export function setRateHeaders(c: Context, s: RateState): void {
  c.header('RateLimit-Policy', `${POLICY};q=${s.limit};w=${RATE_WINDOW_SECONDS}`);
  c.header('RateLimit', `${POLICY};r=${s.remaining};t=${s.resetSeconds}`);
}

/**
 * Counts an authenticated request of the partner `c.get('partner')` on its interface and
 * answers 429 in the interface's shape once it is over its limit; every answer carries the
 * RateLimit fields. `exempt` requests (a pay retry) are neither counted nor refused.
 */
export function rateLimit(
  limits: RateLimits,
  scope: RateScope,
  partnerOf: (c: Context) => { id: number; rateLimitPerMinute: number | null },
  refuse: (c: Context, message: string) => Response,
  exempt: (c: Context) => Promise<boolean> = async () => false,
): MiddlewareHandler {
  return async (c, next) => {
    const partner = partnerOf(c);
    const limit = partner.rateLimitPerMinute ?? limits.defaultPerMinute;
    let state: RateState | null;
    try {
      // An exempt request is served even at the limit: it is how a partner learns an outcome it is owed.
      state = (await exempt(c)) ? { ...(await limits.peek(scope, partner.id, limit)), allowed: true } : await limits.consume(scope, partner.id, limit);
    } catch (err) {
      // The counters are a guard, not a part the request needs: without them, serve it.
      logger.warn({ err: (err as Error).message, scope, partnerId: partner.id }, 'rate limit not counted: the counter store failed');
      state = null;
    }
    // Set before the handler runs: the answer it builds then carries them from the start. Set
    // on a finished answer, they would make Hono rebuild it as a web Response, and the Node
    // adapter stream its body (a fifth of the wallet's CPU; docs/performance.md, ninth step).
    if (state) setRateHeaders(c, state);
    if (state && !state.allowed) {
      c.header('Retry-After', String(state.resetSeconds));
      return refuse(c, `rate limit exceeded: ${state.limit} requests per minute; retry in ${state.resetSeconds} s`);
    }
    return next();
  };
}
