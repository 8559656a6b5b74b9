import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf, type Database, type Db } from '../../src/db/client';
import type { EnginePGlite } from '../../src/db/pglite';
import { dueFor, maintainOnce, THRESHOLDS, type Maintained } from '../../src/db/pglite-maintenance';

/**
 * PGlite runs Postgres in single-user mode, where autovacuum never runs; the engine does
 * what it would (src/db/pglite-maintenance.ts).
 */
const clientOf = (db: Db) => (db as unknown as { $client: EnginePGlite }).$client;

async function counters(db: Db, table: string) {
  await clientOf(db).exec('select pg_stat_force_next_flush()');
  // Timestamps stay text here, as node-postgres gives them (src/db/client.ts).
  const [row] = rowsOf<{ dead: string; vacuumed: string | null; analyzed: string | null }>(
    await db.execute(sql`select n_dead_tup as dead, last_vacuum as vacuumed, last_analyze as analyzed from pg_stat_user_tables where relname = ${table}`),
  );
  return { dead: Number(row!.dead), vacuumed: row!.vacuumed, analyzed: row!.analyzed };
}

/** `rows` rows written and deleted: each leaves a dead version behind (nothing reads the table, so no page is pruned on the way). */
async function churn(db: Db, rows: number) {
  await db.execute(sql`insert into rate_limit_counters (key, points) select 'churn-' || g, 1 from generate_series(1, ${rows}) g`);
  await db.execute(sql`delete from rate_limit_counters where key like 'churn-%'`);
}

describe('the embedded database without autovacuum', () => {
  let database: Database;
  beforeEach(async () => {
    database = await openDatabase({});
  });
  afterEach(() => database.close());

  it('keeps dead row versions until the engine vacuums them', async () => {
    await churn(database.db, 2000);
    expect((await counters(database.db, 'rate_limit_counters')).dead).toBe(2000);

    const done = await maintainOnce(clientOf(database.db));
    expect(done).toContainEqual<Maintained>({ table: 'rate_limit_counters', action: 'vacuum', ms: expect.any(Number) });
    const after = await counters(database.db, 'rate_limit_counters');
    expect(after).toEqual({ dead: 0, vacuumed: expect.stringMatching(/^\d{4}-/), analyzed: expect.stringMatching(/^\d{4}-/) });

    // Nothing past a threshold: the next round leaves the table alone.
    expect((await maintainOnce(clientOf(database.db))).map((m) => m.table)).not.toContain('rate_limit_counters');
  });
});

describe('a round of maintenance', () => {
  const table = { table: 't', live: 10_000, dead: 0, insertedSinceVacuum: 0, modifiedSinceAnalyze: 0, xidAge: 1_000 };
  it("works on a table past autovacuum's default thresholds, and on no other", () => {
    expect(dueFor(table)).toBeNull();
    expect(dueFor({ ...table, dead: 2_050 })).toBeNull();
    expect(dueFor({ ...table, dead: 2_051 })).toBe('vacuum');
    expect(dueFor({ ...table, insertedSinceVacuum: 3_001 })).toBe('vacuum');
    expect(dueFor({ ...table, modifiedSinceAnalyze: 1_051 })).toBe('analyze');
    expect(dueFor({ ...table, xidAge: THRESHOLDS.freezeAge + 1 })).toBe('vacuum');
  });
});

describe('an engine on the embedded database', () => {
  it('runs the rounds by itself, and stops them when it closes', async () => {
    const rounds: Maintained[][] = [];
    const database = await openDatabase({ maintenance: { intervalMs: 100, onRound: (done) => rounds.push(done) } });
    try {
      await churn(database.db, 2000);
      const deadline = Date.now() + 10_000;
      while (!rounds.flat().some((m) => m.table === 'rate_limit_counters') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(rounds.flat()).toContainEqual(expect.objectContaining({ table: 'rate_limit_counters', action: 'vacuum' }));
    } finally {
      await database.close();
    }
    const seen = rounds.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rounds).toHaveLength(seen);
  });
});
