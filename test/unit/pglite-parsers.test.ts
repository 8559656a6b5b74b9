import { jest } from '@jest/globals';
import { PGlite } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/client';
import { partners } from '../../src/db/schema';

/**
 * The PGlite handle sets drizzle's result parsers once instead of passing them with every
 * query. What drizzle reads must not change (dates and times as drizzle maps them from
 * text), in and out of transactions, and PGlite must no longer be handed a parser table
 * per query (it copies its ~350 parsers to merge one in).
 */
let database: Database;
const query = jest.spyOn(PGlite.prototype, 'query');
beforeAll(async () => {
  database = await openDatabase({});
});
afterAll(async () => {
  query.mockRestore();
  await database.close();
});

describe('PGlite through drizzle', () => {
  it('reads timestamps, dates and intervals as drizzle maps them, in and out of a transaction, on every run', async () => {
    const at = new Date('2026-11-24T04:05:06.789Z');
    const [row] = await database.db.insert(partners).values({ name: 'parsers', createdAt: at }).returning();
    expect(row!.createdAt).toEqual(at);
    // The first run is PGlite's own query, the later ones a named statement (src/db/pglite.ts): the same answers.
    for (let run = 0; run < 3; run++) {
      expect((await database.db.select().from(partners).where(eq(partners.id, row!.id)))[0]).toEqual(row);
      const inTx = await database.db.transaction(async (tx) => (await tx.select().from(partners).where(eq(partners.id, row!.id)))[0]);
      expect(inTx).toEqual(row);
      const raw = (await database.db.execute(
        sql`select date '2027-02-28' as d, interval '90 minutes' as i, ${'2026-11-24 04:05:06+00'}::timestamptz as ts, array[date '2027-01-01'] as ds, 12.50::numeric as n`,
      )) as unknown as { rows: Record<string, unknown>[] };
      // As drizzle's own parsers left them: text, never a JavaScript Date; other types as PGlite parses them.
      expect(raw.rows[0]).toEqual({ d: '2027-02-28', i: '01:30:00', ts: '2026-11-24 04:05:06+00', ds: '{2027-01-01}', n: '12.50' });
    }
  });

  it('hands PGlite no parser table with a query', async () => {
    query.mockClear();
    await database.db.select().from(partners);
    await database.db.execute(sql`select 1`);
    expect(query).toHaveBeenCalledTimes(2);
    for (const [, , options] of query.mock.calls) expect((options as { parsers?: unknown } | undefined)?.parsers).toBeUndefined();
  });
});
