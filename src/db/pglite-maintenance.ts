import type { PGlite } from '@electric-sql/pglite';

/**
 * What autovacuum would do, for the embedded database. PGlite runs Postgres in single-user
 * mode, where autovacuum never runs: without this, dead row versions are only pruned page by
 * page, statistics are never gathered, and rows are never frozen (single-user mode only
 * warns as transaction ids approach wraparound). Each round reads every table's counters and
 * vacuums, or analyzes, the tables past autovacuum's own default thresholds, one table at a
 * time (PGlite runs one statement at a time: each table is a pause of its own, not one for
 * the whole database). docs/decisions/embedded-database-maintenance.md.
 */

/** One table's counters, as `pg_stat_user_tables` and `pg_class` give them. */
interface TableCounters {
  table: string;
  live: number;
  dead: number;
  insertedSinceVacuum: number;
  modifiedSinceAnalyze: number;
  xidAge: number;
}

/** What a round did to one table, and how long the database was held for it. */
export interface Maintained {
  table: string;
  action: 'vacuum' | 'analyze';
  ms: number;
}

/** autovacuum's default thresholds (`autovacuum_*` settings): a base count plus a share of the table's live rows. */
export const THRESHOLDS = {
  vacuum: { base: 50, share: 0.2 },
  vacuumInserts: { base: 1000, share: 0.2 },
  analyze: { base: 50, share: 0.1 },
  /** `autovacuum_freeze_max_age`: past it a table is vacuumed whatever its counters (and the vacuum freezes). */
  freezeAge: 200_000_000,
};

/** Which tables a round works on, and how (a vacuum also analyzes). */
export function dueFor(t: TableCounters): 'vacuum' | 'analyze' | null {
  const past = (n: number, { base, share }: { base: number; share: number }) => n > base + share * t.live;
  if (past(t.dead, THRESHOLDS.vacuum) || past(t.insertedSinceVacuum, THRESHOLDS.vacuumInserts) || t.xidAge > THRESHOLDS.freezeAge) return 'vacuum';
  if (past(t.modifiedSinceAnalyze, THRESHOLDS.analyze)) return 'analyze';
  return null;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** One round: each table past a threshold vacuumed (with analyze) or analyzed, in turn. */
export async function maintainOnce(pg: PGlite): Promise<Maintained[]> {
  // The counters a statement left are published at its transaction's end, at most once a second: flush them now.
  await pg.exec('select pg_stat_force_next_flush()');
  const { rows } = await pg.query<{ table: string; live: string; dead: string; inserted: string; modified: string; xid_age: number }>(`
    select s.relname as table, s.n_live_tup as live, s.n_dead_tup as dead, s.n_ins_since_vacuum as inserted,
      s.n_mod_since_analyze as modified, age(c.relfrozenxid) as xid_age
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = 'public'
    order by s.relname`);
  const done: Maintained[] = [];
  for (const r of rows) {
    const action = dueFor({
      table: r.table,
      live: Number(r.live),
      dead: Number(r.dead),
      insertedSinceVacuum: Number(r.inserted),
      modifiedSinceAnalyze: Number(r.modified),
      xidAge: Number(r.xid_age),
    });
    if (!action) continue;
    const started = performance.now();
    await pg.exec(action === 'vacuum' ? `vacuum (analyze) public.${quoted(r.table)}` : `analyze public.${quoted(r.table)}`);
    done.push({ table: r.table, action, ms: performance.now() - started });
  }
  return done;
}

/**
 * Runs a round every `intervalMs` (never two at once) until stopped; `onRound` hears what each
 * round did, `onError` why one failed (the next round tries again). Stopping waits for a
 * round under way.
 */
export function maintainEvery(
  pg: PGlite,
  intervalMs: number,
  hooks: { onRound?: (done: Maintained[]) => void; onError?: (err: unknown) => void } = {},
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = maintainOnce(pg)
      .then((done) => hooks.onRound?.(done))
      .catch((err: unknown) => hooks.onError?.(err))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
