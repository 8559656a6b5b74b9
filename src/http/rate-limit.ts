import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/client';
import { DomainError } from '../domain/errors';
import type { Availability } from '../health/model';
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

/** The budgets every limit is counted against, each per minute (src/config.ts, RATE_LIMIT_*). */
export interface RateBudgets {
  /** Per partner and interface, unless an operator set the partner's own. */
  perMinute: number;
  /** Per partner: pay requests repeating an idempotency key bound to their order. */
  payRetriesPerMinute: number;
  /** Per client address: requests without valid credentials. */
  unauthenticatedPerMinute: number;
  /** Per client address: requests whose credentials were presented and wrong. */
  authFailuresPerMinute: number;
}

/**
 * The engine's request counters (rate-limiter-flexible). One limiter counts every key: its
 * own points are set out of reach, and each count is compared with its budget here, so an
 * operator's change of a partner's limit applies to the window under way (a limiter per
 * limit would keep separate counts per value in memory).
 */
export interface RateLimits {
  defaultPerMinute: number;
  /** Counts one request of the partner on that interface. */
  consume(scope: RateScope, partnerId: number, limit: number): Promise<RateState>;
  /** Where the partner stands, without counting anything. */
  peek(scope: RateScope, partnerId: number, limit: number): Promise<RateState>;
  /** Takes back one request counted for the partner on that interface (it was a pay retry). */
  uncount(scope: RateScope, partnerId: number): Promise<void>;
  /** Counts one pay retry of the partner, in the retries' own bucket. */
  consumePayRetry(partnerId: number): Promise<RateState>;
  /** Per client address, before authentication. */
  clients: ClientLimits;
  /** Failed console sign-ins, per account and per address. */
  signIns: SignInThrottle;
}

/** The console's failed sign-ins allowed in SIGN_IN_WINDOW_SECONDS: per account (e-mail), and per client address. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_FAILURES = { perAccount: 10, perAddress: 50 } as const;

/**
 * Failed sign-ins counted per account and per address over a quarter of an hour: one account
 * guessed at from many addresses, and one address guessing at many accounts, are each
 * refused until the window ends. A sign-in that succeeds forgets its account's failures.
 */
export interface SignInThrottle {
  /** Seconds until the account or the address may try again, or null while both may. */
  refusedFor(account: string, address: string): Promise<number | null>;
  failed(account: string, address: string): Promise<void>;
  succeeded(account: string): Promise<void>;
}

function signInThrottle(limiter: RateLimiterAbstract): SignInThrottle {
  const over = async (key: string, limit: number) => {
    const res = await limiter.get(key);
    return res && res.consumedPoints >= limit ? Math.max(Math.ceil(res.msBeforeNext / 1000), 1) : null;
  };
  return {
    refusedFor: async (account, address) =>
      (await over(`account:${account}`, SIGN_IN_FAILURES.perAccount)) ?? (await over(`address:${address}`, SIGN_IN_FAILURES.perAddress)),
    failed: async (account, address) => {
      await limiter.consume(`account:${account}`, 1);
      await limiter.consume(`address:${address}`, 1);
    },
    succeeded: async (account) => {
      await limiter.delete(`account:${account}`);
    },
  };
}

/** An address's budget for requests without valid credentials: its name in the RateLimit fields and its size. */
export interface ClientPolicy {
  name: '"unauthenticated"' | '"auth-failures"';
  limit: number;
}

/** What a client address without valid credentials may still do. */
export interface ClientLimits {
  /**
   * The budget the address spent and the seconds until its window ends (requests without
   * valid credentials are refused until then), or null while it has spent none.
   */
  spent(address: string): { policy: ClientPolicy; seconds: number } | null;
  /**
   * Counts a request of the address without valid credentials (`presented`: some were
   * given, and wrong). The budget it went over, or null while within both.
   */
  refused(address: string, presented: boolean): Promise<{ policy: ClientPolicy; seconds: number } | null>;
}

const OUT_OF_REACH = 2 ** 31 - 1;
/** How many spent client addresses a process keeps refusing from memory; the oldest are forgotten first. */
const SPENT_ADDRESSES_KEPT = 100_000;

function stateOf(res: RateLimiterRes | null, limit: number, counted: boolean): RateState {
  const consumed = res?.consumedPoints ?? 0;
  const ms = res && res.msBeforeNext > 0 ? res.msBeforeNext : RATE_WINDOW_SECONDS * 1000;
  const allowed = counted ? consumed <= limit : consumed < limit;
  return { limit, allowed, remaining: Math.max(limit - consumed, 0), resetSeconds: Math.max(Math.ceil(ms / 1000), res ? 1 : RATE_WINDOW_SECONDS) };
}

/**
 * Client addresses that spent a budget, refused from memory until their window ends: a
 * flood from one address then costs neither a credentials lookup nor a count in the store.
 */
function clientLimits(limiter: RateLimiterAbstract, budgets: RateBudgets): ClientLimits {
  const unauthenticated: ClientPolicy = { name: '"unauthenticated"', limit: budgets.unauthenticatedPerMinute };
  const failures: ClientPolicy = { name: '"auth-failures"', limit: budgets.authFailuresPerMinute };
  // Each address with the budget it spent and the time its window ends (ms since the epoch).
  const spent = new LRUCache<string, { policy: ClientPolicy; until: number }>({ max: SPENT_ADDRESSES_KEPT });
  const count = async (key: string, policy: ClientPolicy) => ({ policy, state: stateOf(await limiter.consume(key, 1), policy.limit, true) });
  return {
    spent: (address) => {
      const entry = spent.get(address);
      const ms = (entry?.until ?? 0) - Date.now();
      if (entry && ms > 0) return { policy: entry.policy, seconds: Math.ceil(ms / 1000) };
      spent.delete(address);
      return null;
    },
    refused: async (address, presented) => {
      const counts = [await count(`anon:${address}`, unauthenticated)];
      if (presented) counts.push(await count(`fail:${address}`, failures));
      for (const { policy, state } of counts) {
        // The budget is spent once its last request is counted: the next one is refused unread.
        if (state.remaining === 0) spent.set(address, { policy, until: Date.now() + state.resetSeconds * 1000 });
      }
      const over = counts.find((c) => !c.state.allowed);
      return over ? { policy: over.policy, seconds: over.state.resetSeconds } : null;
    },
  };
}

/** Counters over any of the library's stores (`signIns`: a limiter whose window is SIGN_IN_WINDOW_SECONDS). */
export function rateLimitsOver(
  limiter: RateLimiterAbstract,
  budgets: RateBudgets,
  signIns: RateLimiterAbstract = new RateLimiterMemory({ points: OUT_OF_REACH, duration: SIGN_IN_WINDOW_SECONDS, keyPrefix: 'signin' }),
): RateLimits {
  const key = (scope: RateScope, partnerId: number) => `${scope}:${partnerId}`;
  return {
    defaultPerMinute: budgets.perMinute,
    // The limiter's own points are out of reach, so consume never rejects: it counts and answers the count.
    consume: async (scope, partnerId, limit) => stateOf(await limiter.consume(key(scope, partnerId), 1), limit, true),
    peek: async (scope, partnerId, limit) => stateOf(await limiter.get(key(scope, partnerId)), limit, false),
    uncount: async (scope, partnerId) => {
      await limiter.reward(key(scope, partnerId), 1);
    },
    consumePayRetry: async (partnerId) => stateOf(await limiter.consume(`pay:${partnerId}`, 1), budgets.payRetriesPerMinute, true),
    clients: clientLimits(limiter, budgets),
    signIns: signInThrottle(signIns),
  };
}

type QueryClient = { query(q: { name?: string; text: string; values?: unknown[] }): Promise<unknown> };

/**
 * The store's client, watched: the first failed query of an outage is logged (the limiter
 * then counts in memory), and so is the first query that succeeds after it.
 */
function watched(client: QueryClient): QueryClient {
  let down = false;
  return {
    query: (q) =>
      client.query(q).then(
        (res) => {
          if (down) logger.info('rate limits: the counter store answers again; counting there again');
          down = false;
          return res;
        },
        (err: unknown) => {
          if (!down) logger.warn({ err: (err as Error).message }, 'rate limits: the counter store failed; counting in this process until it answers');
          down = true;
          throw err;
        },
      ),
  };
}

/**
 * PostgreSQL (DATABASE_URL): RateLimiterPostgres over the engine's own pool, in the table the
 * migrations created (`rate_limit_counters`), so every API replica on that database shares
 * each count. PGlite (one process): RateLimiterMemory, unless `store: 'table'` asks for the
 * table there too (tests, to check the shared table in both modes). A table whose query
 * fails counts in this process's memory meanwhile (the library's insurance limiter): every
 * limit still holds, per replica, until the store answers again.
 */
export function createRateLimits(database: Pick<Database, 'db' | 'kind'>, budgets: RateBudgets, opts: { store?: 'table' } = {}): RateLimits {
  const common = { points: OUT_OF_REACH, duration: RATE_WINDOW_SECONDS, keyPrefix: 'rl' };
  const signIn = { points: OUT_OF_REACH, duration: SIGN_IN_WINDOW_SECONDS, keyPrefix: 'signin' };
  // drizzle keeps its driver's client as $client: node-postgres's Pool, or the PGlite instance.
  const client = (database.db as unknown as { $client: { query(text: unknown, values?: unknown[]): Promise<unknown> } }).$client;
  const table = { tableName: 'rate_limit_counters', tableCreated: true, insuranceLimiter: new RateLimiterMemory(common) };
  if (database.kind === 'postgres') {
    const storeClient = watched({ query: (q) => client.query(q) });
    return rateLimitsOver(
      new RateLimiterPostgres({ ...common, ...table, storeClient, storeType: 'pool' }),
      budgets,
      new RateLimiterPostgres({ ...signIn, ...table, insuranceLimiter: new RateLimiterMemory(signIn), storeClient, storeType: 'pool' }),
    );
  }
  if (opts.store === 'table') {
    // PGlite answers rows and rowCount as pg does; it takes the text and values apart.
    const storeClient = watched({ query: (q) => client.query(q.text, q.values) });
    return rateLimitsOver(
      new RateLimiterPostgres({ ...common, ...table, storeClient, storeType: 'client' }),
      budgets,
      new RateLimiterPostgres({ ...signIn, ...table, insuranceLimiter: new RateLimiterMemory(signIn), storeClient, storeType: 'client' }),
    );
  }
  return rateLimitsOver(new RateLimiterMemory(common), budgets);
}

/** The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-10; docs/decisions.md, "Rate limits"). */
export function setRateHeaders(c: Context, s: RateState): void {
  c.header('RateLimit-Policy', `${POLICY};q=${s.limit};w=${RATE_WINDOW_SECONDS}`);
  c.header('RateLimit', `${POLICY};r=${s.remaining};t=${s.resetSeconds}`);
}

/**
 * What the rate limiter leaves a pay route: `countPayRetry`, to call once the request is known
 * to repeat an idempotency key bound to its order. It moves the request's count from the
 * partner's limit to the partner's pay-retry bucket, sets the RateLimit fields again, and
 * throws a 429 (HTTPException, with Retry-After) once that bucket is spent.
 */
export type PayRetryVariables = { countPayRetry?: () => Promise<void> };

/**
 * Counts an authenticated request of the partner `c.get('partner')` on its interface and
 * answers 429 in the interface's shape once it is over its limit; every answer carries the
 * RateLimit fields. A pay retry counts in the partner's pay-retry bucket instead: over that,
 * 429; within it, served even at the partner's limit (it is how a partner learns an outcome
 * it is owed). Within the limit the pay route tells a retry itself, from the key's row it
 * reads anyway (`countPayRetry`); only a request over the limit is asked `payRetry` here,
 * so that a retry is still served.
 */
export function rateLimit(
  limits: RateLimits,
  scope: RateScope,
  partnerOf: (c: Context) => { id: number; rateLimitPerMinute: number | null },
  refuse: (c: Context, message: string) => Response,
  payRetry?: (c: Context) => Promise<boolean>,
): MiddlewareHandler {
  return async (c, next) => {
    const partner = partnerOf(c);
    const limit = partner.rateLimitPerMinute ?? limits.defaultPerMinute;
    /** The request is a pay retry: its count moves to the retries' bucket; the refusal's message once that is spent. */
    const asRetry = async (): Promise<string | null> => {
      await limits.uncount(scope, partner.id);
      const retries = await limits.consumePayRetry(partner.id);
      setRateHeaders(c, { ...(await limits.peek(scope, partner.id, limit)), allowed: true });
      if (retries.allowed) return null;
      c.header('Retry-After', String(retries.resetSeconds));
      return `rate limit exceeded: ${retries.limit} pay retries per minute; retry in ${retries.resetSeconds} s`;
    };
    const state = await limits.consume(scope, partner.id, limit);
    if (state.allowed) {
      // Set before the handler runs: the answer it builds then carries them from the start. Set
      // on a finished answer, they would make Hono rebuild it as a web Response, and the Node
      // adapter stream its body, which costs far more than setting them first.
      setRateHeaders(c, state);
      if (payRetry) {
        c.set('countPayRetry', async () => {
          const refused = await asRetry();
          if (refused) throw new HTTPException(429, { message: refused });
        });
      }
      return next();
    }
    // A retry that cannot be told (its key's row unreadable) counts as any request.
    if (payRetry && (await payRetry(c).catch(() => false))) {
      const refused = await asRetry();
      return refused ? refuse(c, refused) : next();
    }
    setRateHeaders(c, state);
    c.header('Retry-After', String(state.resetSeconds));
    return refuse(c, `rate limit exceeded: ${state.limit} requests per minute; retry in ${state.resetSeconds} s`);
  };
}

/** How an interface authenticates a request, and how it says no. */
export interface Authentication<P> {
  /** The partner the request's credentials name; throws the interface's 401 (a DomainError 'unauthorized') if none. */
  authenticate(c: Context): Promise<P>;
  /** Whether the request carries credentials at all (wrong ones count as failed authentications too). */
  presented(c: Context): boolean;
  /**
   * Whether the request's key names an active partner, answered from memory (at most one
   * read of every key per refresh, however many keys a flood invents): an address that spent
   * its budget has only such keys checked.
   */
  known(c: Context): Promise<boolean>;
  /** The client's address (./client-address.ts). */
  addressOf(c: Context): string;
  refuse(c: Context, message: string): Response;
}

/**
 * Authenticates the request before anything reads its body, with the client address's
 * budgets for requests without valid credentials around it. Valid credentials are served
 * whatever the address spent (they count in their partner's own limit, after this): an
 * office behind one NAT is not locked out by a neighbour's broken script. Only requests
 * without valid credentials spend the address's budgets; once it spent one, such requests
 * are answered 429 with Retry-After until its window ends, and only a key that names an
 * active partner is still looked at (its secret compared), so a flood of invented keys costs
 * no lookups.
 */
export function authenticateThrottled<P>(limits: RateLimits, auth: Authentication<P>): (c: Context) => Promise<P | Response> {
  const tooMany = (c: Context, over: { policy: ClientPolicy; seconds: number }) => {
    c.header('Retry-After', String(over.seconds));
    c.header('RateLimit-Policy', `${over.policy.name};q=${over.policy.limit};w=${RATE_WINDOW_SECONDS}`);
    c.header('RateLimit', `${over.policy.name};r=0;t=${over.seconds}`);
    return auth.refuse(c, `too many requests without valid credentials from this address; retry in ${over.seconds} s`);
  };
  const unauthorized = (err: unknown) => err instanceof DomainError && err.code === 'unauthorized';
  return async (c) => {
    const address = auth.addressOf(c);
    const spent = limits.clients.spent(address);
    if (spent) {
      if (!auth.presented(c) || !(await auth.known(c))) return tooMany(c, spent);
      try {
        return await auth.authenticate(c);
      } catch (err) {
        // A known key with a wrong secret, or a disabled partner's: refused as the address's other failures, uncounted.
        if (unauthorized(err)) return tooMany(c, spent);
        throw err;
      }
    }
    try {
      return await auth.authenticate(c);
    } catch (err) {
      if (!unauthorized(err)) throw err;
      const over = await limits.clients.refused(address, auth.presented(c));
      if (over) return tooMany(c, over);
      throw err;
    }
  };
}

/**
 * The middleware both interfaces run first: credentials before anything reads the body, so a
 * request without valid ones is answered unread. The published contract passes; every other
 * route reads the database (authentication first), so while it is down it says so at once.
 */
export function credentialsFirst<P>(opts: {
  isPublic(c: Context): boolean;
  health: Availability;
  authenticate(c: Context): Promise<P | Response>;
}): MiddlewareHandler<{ Variables: { partner: P } }> {
  return async (c, next) => {
    if (opts.isPublic(c)) return next();
    opts.health.require(['database']);
    const partner = await opts.authenticate(c);
    if (partner instanceof Response) return partner;
    c.set('partner', partner);
    return next();
  };
}
