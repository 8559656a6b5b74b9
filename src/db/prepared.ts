import type { SQL } from 'drizzle-orm';
import { PgDialect, PgTransaction } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from './client';

interface Executable<P, R> {
  execute(params: P): Promise<R>;
}

/**
 * A query the hot paths run on every request (authentication, the wallet, an order by id),
 * built once per database handle instead of once per call: drizzle then skips assembling
 * its SQL, and on PostgreSQL each connection parses it once (a named prepared statement).
 * Inside a transaction the query is built for that transaction as before.
 */
export function preparedQuery<P extends Record<string, unknown>, R>(name: string, build: (db: DbOrTx, name: string) => Executable<P, R>) {
  const cache = new WeakMap<Db, Executable<P, R>>();
  return (db: DbOrTx, params: P): Promise<R> => {
    if (db instanceof PgTransaction) return build(db, name).execute(params);
    let query = cache.get(db);
    if (!query) {
      query = build(db, name);
      cache.set(db, query);
    }
    return query.execute(params);
  };
}

const dialect = new PgDialect();

/**
 * A statement written out in SQL (`sql.placeholder` for what each call gives) prepared as
 * `preparedQuery` prepares a built one: on PostgreSQL each connection parses and plans it
 * once, where `db.execute` has it planned again on every call. Answers the driver's result.
 */
export function preparedSql<P extends Record<string, unknown>>(name: string, statement: SQL) {
  return preparedQuery<P, unknown>(name, (db, n) => db._.session.prepareQuery(dialect.sqlToQuery(statement), undefined, n, false));
}
