import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client';

/** A token of a supplier's search budget: taken (after waiting `waitMs` for it), or refused with the wait to retry after. */
export type BudgetToken = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

/**
 * The searches a second each supplier may be sent: a token bucket per supplier, refilled at
 * `perSecond` and holding at most a tenth of a second's worth (at least one), so a burst
 * never goes much above the rate in any second. A search waits its turn within `maxWaitMs`
 * (the queue is the tokens owed: the bucket may go below zero by that long's worth), beyond
 * which it is refused.
 */
export interface SearchBudget {
  take(supplier: string, perSecond: number, maxWaitMs: number): Promise<BudgetToken>;
}

/** How many tokens a bucket holds at most: a tenth of a second's worth, at least one. */
export const bucketSize = (perSecond: number) => Math.max(1, Math.ceil(perSecond / 10));

const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** The budget of one process (`npm start`): every search this engine sends goes through it. */
export function memoryBudget(now: () => number = () => performance.now()): SearchBudget {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    async take(supplier, perSecond, maxWaitMs) {
      const t = now();
      const size = bucketSize(perSecond);
      const bucket = buckets.get(supplier) ?? { tokens: size, at: t };
      const tokens = Math.min(size, bucket.tokens + ((t - bucket.at) / 1000) * perSecond) - 1;
      const waitMs = tokens >= 0 ? 0 : (-tokens / perSecond) * 1000;
      if (waitMs > maxWaitMs) {
        buckets.set(supplier, { tokens: tokens + 1, at: t });
        return { ok: false, retryAfterMs: waitMs };
      }
      buckets.set(supplier, { tokens, at: t });
      await sleep(waitMs);
      return { ok: true, waitMs };
    },
  };
}

/**
 * The budget every API process shares (PostgreSQL): the bucket is a row of
 * `search_budgets`, taken from in one statement on the database's clock, so replicas
 * together never send a supplier more than its rate.
 */
export function sharedBudget(db: Db): SearchBudget {
  const known = new Set<string>();
  return {
    async take(supplier, perSecond, maxWaitMs) {
      const size = bucketSize(perSecond);
      if (!known.has(supplier)) {
        await db.execute(
          sql`insert into search_budgets (supplier, tokens, at) values (${supplier}, ${size}, clock_timestamp()) on conflict (supplier) do nothing`,
        );
        known.add(supplier);
      }
      const floor = -(perSecond * maxWaitMs) / 1000;
      const refilled = sql`least(${size}::float8, tokens + ${perSecond}::float8 * extract(epoch from clock_timestamp() - at)::float8)`;
      const res = await db.execute(sql`
        update search_budgets set tokens = ${refilled} - 1, at = clock_timestamp()
        where supplier = ${supplier} and ${refilled} - 1 >= ${floor}::float8
        returning tokens`);
      const [row] = rowsOf<{ tokens: number | string }>(res);
      // No row: the tokens owed already reach the longest wait; by then the queue has moved on.
      if (!row) return { ok: false, retryAfterMs: maxWaitMs + 1000 / perSecond };
      const tokens = Number(row.tokens);
      const waitMs = tokens >= 0 ? 0 : (-tokens / perSecond) * 1000;
      await sleep(waitMs);
      return { ok: true, waitMs };
    },
  };
}
