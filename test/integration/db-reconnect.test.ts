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
(url ? describe : describe.skip)('the engine pool when PostgreSQL ends its connections', () => {
  it('survives the idle connections being terminated and answers the next query', async () => {
    const name = `bte_reconnect_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new PgClient({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(url!);
    target.pathname = `/${name}`;
    const heard: Error[] = [];
    const database = await openDatabase({ url: target.toString(), onIdleError: (err) => heard.push(err) });
    try {
      await Promise.all([1, 2, 3].map(() => database.db.execute(sql`select pg_sleep(0.05)`))); // several idle connections now
      const { rowCount } = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      expect(rowCount).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.every((e) => (e as { code?: string }).code === '57P01')).toBe(true);
      const result = (await database.db.execute(sql`select 1 as one`)) as unknown as { rows: Array<{ one: number }> };
      expect(result.rows[0]!.one).toBe(1);
    } finally {
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('survives a connection terminated in the middle of a transaction: that transaction fails, the process goes on', async () => {
    // Checked out of the pool (between a transaction's statements), a connection has no pool
    // listener: PostgreSQL's 57P01 arrives as an 'error' event on the client itself. Unheard,
    // it ended the process (two workers in a chaos run when PostgreSQL restarted).
    const name = `bte_reconnect_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new PgClient({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(url!);
    target.pathname = `/${name}`;
    const database = await openDatabase({ url: target.toString() });
    const uncaught: unknown[] = [];
    const heard = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', heard);
    try {
      const transaction = database.db.transaction(async (tx) => {
        const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: Array<{ pid: number }> };
        await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 300)); // the termination arrives while no statement runs
        await tx.execute(sql`select 1`);
      });
      await expect(transaction).rejects.toThrow();
      expect(uncaught).toEqual([]);
      const result = (await database.db.execute(sql`select 1 as one`)) as unknown as { rows: Array<{ one: number }> };
      expect(result.rows[0]!.one).toBe(1);
    } finally {
      process.off('uncaughtException', heard);
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
