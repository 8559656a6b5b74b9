import fs from 'node:fs';
import path from 'node:path';
import { sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { reportMemory } from '../platform/metrics';
import { maintainEvery, type Maintained } from './pglite-maintenance';
import * as schema from './schema';

export type Schema = typeof schema;
/** The database handle shared by PostgreSQL (pg) and PGlite: query functions take this or a transaction. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

const MIGRATIONS = path.join(__dirname, 'migrations');

/**
 * Opens the database and applies the committed migrations: PostgreSQL when a URL is
 * given, otherwise PGlite (embedded Postgres) stored in `dataDir`, or in memory when
 * `dataDir` is omitted (tests).
 */
export async function openDatabase(opts: {
  url?: string;
  dataDir?: string;
  connectTimeoutMs?: number;
  onIdleError?: (err: Error) => void;
  /** PGlite only: vacuum and analyze what needs it every `intervalMs` (src/db/pglite-maintenance.ts), as autovacuum does for PostgreSQL. */
  maintenance?: { intervalMs: number; onRound?: (done: Maintained[]) => void; onError?: (err: unknown) => void };
}): Promise<Database> {
  if (opts.url) {
    const { Pool } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    // A database that stops answering fails a request within connectTimeoutMs instead of
    // holding it; keep-alive finds connections to a server that vanished.
    const pool = new Pool({ connectionString: opts.url, max: 10, connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000, keepAlive: true });
    // An idle connection that PostgreSQL ends (a restart, a failover, an administrator)
    // emits 'error' on the pool; unheard, that would end the process. The pool drops the
    // connection and opens a new one for the next query; a query that was running fails
    // on its own and its caller decides.
    pool.on('error', (err) => opts.onIdleError?.(err));
    // A connection checked out of the pool (a transaction between its statements) has no
    // pool listener, so the same 'error' would go unheard on the client itself and end the
    // process. Heard here: the transaction's next statement fails and its caller decides, and
    // the pool drops the connection when it is released (it is no longer queryable).
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = drizzle(pool, { schema });
    // API and worker processes may start together on a fresh database: one migrates at a time.
    const lock = await pool.connect();
    try {
      await lock.query('select pg_advisory_lock(7277001)');
      await migrate(db, { migrationsFolder: MIGRATIONS });
    } finally {
      await lock.query('select pg_advisory_unlock(7277001)').catch(() => undefined);
      lock.release();
    }
    return { db: db as unknown as Db, kind: 'postgres', close: () => pool.end() };
  }
  const { EnginePGlite } = await import('./pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  let dir: string | undefined;
  if (opts.dataDir) {
    dir = path.join(opts.dataDir, 'pglite');
    fs.mkdirSync(dir, { recursive: true });
  }
  const client = dir ? new EnginePGlite(dir) : new EnginePGlite();
  await client.waitReady;
  // After start-up: PGlite sets the array types' parsers while it starts.
  client.keepAsText(TEXT_TYPES);
  reportMemory('pglite', () => client.memoryBytes());
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: MIGRATIONS });
  const maintenance = opts.maintenance?.intervalMs ? maintainEvery(client, opts.maintenance.intervalMs, opts.maintenance) : undefined;
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    close: async () => {
      await maintenance?.stop();
      await client.close();
    },
  };
}

/**
 * What drizzle's PGlite driver keeps as text: timestamp, timestamptz, interval and date
 * (1114, 1184, 1186, 1082), and arrays of numeric, timestamp, timestamptz, interval and date.
 */
const TEXT_TYPES = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182];

/** The rows of a raw statement (`db.execute(sql`…`)`): node-postgres and PGlite both answer with `rows`. */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** The cheapest round trip: whether the database answers at all. */
export async function ping(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}
