import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Client as PgClient } from 'pg';
import { openDatabase } from '../../src/db/client';

/**
 * PostgreSQL ending the engine's idle connections (a restart, a failover, an operator's
 * pg_terminate_backend) must not end the process: the pool drops them and the next query
 * opens a new one. Unheard, the pool's 'error' event would throw out of the event loop.
 * Needs a real PostgreSQL (DATABASE_URL); PGlite has no connections to lose.
 */
const url = process.env.DATABASE_URL;

type Database = Awaited<ReturnType<typeof openDatabase>>;

/**
 * Runs `body` on a database of its own, opened through the engine's pool, with a superuser
 * connection (`admin`) to end its connections from outside; drops the database afterwards.
 */
async function onOwnDatabase(
  opts: { onIdleError?: (err: Error) => void },
  body: (database: Database, admin: PgClient, name: string) => Promise<void>,
): Promise<void> {
  const name = `bte_reconnect_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new PgClient({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url!);
  target.pathname = `/${name}`;
  const database = await openDatabase({ url: target.toString(), ...opts });
  try {
    await body(database, admin, name);
  } finally {
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** The pool answers a query after what happened to its connections. */
async function expectAnswers(database: Database): Promise<void> {
  const result = (await database.db.execute(sql`select 1 as one`)) as unknown as { rows: Array<{ one: number }> };
  expect(result.rows[0]!.one).toBe(1);
}

(url ? describe : describe.skip)('the engine pool when PostgreSQL ends its connections', () => {
  it('survives the idle connections being terminated and answers the next query', async () => {
    const heard: Error[] = [];
    await onOwnDatabase({ onIdleError: (err) => heard.push(err) }, async (database, admin, name) => {
      await Promise.all([1, 2, 3].map(() => database.db.execute(sql`select pg_sleep(0.05)`))); // several idle connections now
      const { rowCount } = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      expect(rowCount).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.every((e) => (e as { code?: string }).code === '57P01')).toBe(true);
      await expectAnswers(database);
    });
  });

  it('survives a connection terminated in the middle of a transaction: that transaction fails, the process goes on', async () => {
    // Checked out of the pool (between a transaction's statements), a connection has no pool
    // listener: PostgreSQL's 57P01 arrives as an 'error' event on the client itself. Unheard,
    // it ended the process (two workers in a chaos run when PostgreSQL restarted).
    const uncaught: unknown[] = [];
    const heard = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', heard);
    try {
      await onOwnDatabase({}, async (database, admin) => {
        const transaction = database.db.transaction(async (tx) => {
          const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: Array<{ pid: number }> };
          await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          await new Promise((resolve) => setTimeout(resolve, 300)); // the termination arrives while no statement runs
          await tx.execute(sql`select 1`);
        });
        await expect(transaction).rejects.toThrow();
        expect(uncaught).toEqual([]);
        await expectAnswers(database);
      });
    } finally {
      process.off('uncaughtException', heard);
    }
  });
});
