/**
 * What stands before the simulator's searches (hotel availability and air search), as before
 * a real supplier's: a rate limit per second (above it, 429 with Retry-After, at once), a
 * delay before the answer, and counters of the searches received, answered and refused,
 * which `GET /stats` serves (the authoritative count of supplier calls for `bench:search`).
 */
import type { Context, Next } from 'hono';
import { pause } from './scenarios';

export const SEARCH_SERVICES = ['hotels', 'air'] as const;
export type SearchService = (typeof SEARCH_SERVICES)[number];

export interface SearchGateOptions {
  /** How long every search waits before it is answered (0: at once). */
  searchDelayMs?: number;
  /** Searches a second the simulator accepts, all services together (0: no limit). */
  searchRatePerS?: number;
}

export interface SearchCounts {
  /** Every search that reached the simulator. */
  received: number;
  /** Searches let through the rate limit and answered (with results or a 4xx of their own). */
  answered: number;
  /** Searches refused with 429 by the rate limit. */
  refused: number;
}

/**
 * A token bucket of `ratePerS` tokens a second holding at most one second's worth: a burst of
 * `ratePerS` at once, then `ratePerS` a second on average.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  constructor(
    private readonly ratePerS: number,
    now: number,
  ) {
    this.capacity = Math.max(1, ratePerS);
    this.tokens = this.capacity;
    this.last = now;
  }

  /** Takes a token if there is one; else answers how many milliseconds until there is. */
  take(now: number): { ok: true } | { ok: false; waitMs: number } {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.ratePerS);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, waitMs: Math.ceil(((1 - this.tokens) / this.ratePerS) * 1000) };
  }
}

export function searchGate(opts: SearchGateOptions, clock: () => number = Date.now) {
  const delayMs = opts.searchDelayMs ?? 0;
  const bucket = opts.searchRatePerS ? new TokenBucket(opts.searchRatePerS, clock()) : undefined;
  const counts = Object.fromEntries(SEARCH_SERVICES.map((s) => [s, { received: 0, answered: 0, refused: 0 }])) as Record<SearchService, SearchCounts>;

  const middleware =
    (service: SearchService) =>
    async (c: Context, next: Next): Promise<Response | void> => {
      if (c.req.method !== 'POST') return next();
      const count = counts[service];
      count.received += 1;
      const taken = bucket?.take(clock());
      if (taken && !taken.ok) {
        count.refused += 1;
        c.header('Retry-After', String(Math.max(1, Math.ceil(taken.waitMs / 1000))));
        return c.json({ error: `rate limit: at most ${opts.searchRatePerS} searches a second` }, 429);
      }
      if (delayMs > 0) await pause(delayMs);
      await next();
      count.answered += 1;
    };

  const stats = () => {
    const total = SEARCH_SERVICES.reduce(
      (sum, s) => ({
        received: sum.received + counts[s].received,
        answered: sum.answered + counts[s].answered,
        refused: sum.refused + counts[s].refused,
      }),
      { received: 0, answered: 0, refused: 0 },
    );
    return {
      searches: { ...total, by_service: structuredClone(counts) },
      settings: { search_delay_ms: delayMs, search_rate_per_s: opts.searchRatePerS ?? 0 },
    };
  };

  return { middleware, stats };
}
