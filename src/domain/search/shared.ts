import { and, eq, isNull, lt, lte, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { searchAnswers } from '../../db/schema';
import type { KeptAnswer, SharedSearchAnswers } from './layer';

/** One sweep of answers past their stale bound in every this many writes. */
const SWEEP_EVERY = 200;

/**
 * The answers every API process shares, in `search_answers` (PostgreSQL): a read per search
 * a process does not hold in memory, a claim and a write per supplier call. Times are the
 * processes' clocks in ms; a claim's lease outlives any clock skew between them that matters.
 */
export function sharedSearchAnswers(db: Db, now: () => number = Date.now): SharedSearchAnswers {
  let writes = 0;
  return {
    async read(key) {
      const [row] = await db.select().from(searchAnswers).where(eq(searchAnswers.key, key));
      if (!row || row.answer === null || row.fetchedAt === null || row.freshUntil === null || row.staleUntil === null) return null;
      return { json: row.answer, fetchedAt: row.fetchedAt, freshUntil: row.freshUntil, staleUntil: row.staleUntil } satisfies KeptAnswer;
    },
    async claim(key, leaseMs, after) {
      const at = now();
      const claimed = await db
        .insert(searchAnswers)
        .values({ key, supplier: '', service: '', fillingUntil: at + leaseMs })
        .onConflictDoUpdate({
          target: searchAnswers.key,
          set: { fillingUntil: at + leaseMs },
          setWhere: and(
            or(isNull(searchAnswers.fillingUntil), lt(searchAnswers.fillingUntil, at)),
            or(isNull(searchAnswers.fetchedAt), lte(searchAnswers.fetchedAt, after), isNull(searchAnswers.freshUntil), lte(searchAnswers.freshUntil, at)),
          ),
        })
        .returning({ key: searchAnswers.key });
      return claimed.length === 1;
    },
    async write(key, where, answer) {
      const values = {
        supplier: where.supplier,
        service: where.service,
        answer: answer.json,
        fetchedAt: answer.fetchedAt,
        freshUntil: answer.freshUntil,
        staleUntil: answer.staleUntil,
        fillingUntil: null,
      };
      await db
        .insert(searchAnswers)
        .values({ key, ...values })
        .onConflictDoUpdate({ target: searchAnswers.key, set: values });
      if (++writes % SWEEP_EVERY === 0) {
        const at = now();
        await db
          .delete(searchAnswers)
          .where(
            and(
              or(isNull(searchAnswers.staleUntil), lt(searchAnswers.staleUntil, at)),
              or(isNull(searchAnswers.fillingUntil), lt(searchAnswers.fillingUntil, at)),
            ),
          );
      }
    },
    async release(key) {
      await db.update(searchAnswers).set({ fillingUntil: null }).where(eq(searchAnswers.key, key));
    },
  };
}
