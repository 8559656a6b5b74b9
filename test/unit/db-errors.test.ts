import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/client';
import { databaseFailure } from '../../src/platform/database-errors';

/**
 * Real errors from a real PostgreSQL (PGlite, with the engine's migrations) through drizzle,
 * as activities see them: classified for retrying, and described without their values.
 */
let database: Database;
beforeAll(async () => {
  database = await openDatabase({});
  await database.db.execute(sql`create table probe (id int primary key, name text not null, born date)`);
});
afterAll(async () => {
  await database.close();
});

async function failureOf(query: ReturnType<typeof sql>) {
  try {
    await database.db.execute(query);
  } catch (err) {
    return { err, failure: databaseFailure(err) };
  }
  throw new Error('the query did not fail');
}

describe('databaseFailure', () => {
  it('an impossible calendar date is invalid data (class 22), and the message keeps no value', async () => {
    const { err, failure } = await failureOf(sql`insert into probe values (1, ${'Sara Ahmadi'}, ${'2027-02-30'})`);
    expect(String((err as Error).message)).toContain('Sara Ahmadi'); // drizzle puts the parameters in its message
    expect(failure).toMatchObject({ type: 'invalid_data', sqlstate: expect.stringMatching(/^22/) });
    expect(failure!.message).not.toMatch(/Sara|Ahmadi|2027-02-30/);
  });

  it('a NUL character and a NOT NULL violation are invalid data; a unique violation is a retryable race', async () => {
    expect((await failureOf(sql`insert into probe values (2, ${'A\u0000li'}, null)`)).failure).toMatchObject({ type: 'invalid_data' });
    expect((await failureOf(sql`insert into probe values (3, null, null)`)).failure).toMatchObject({ type: 'invalid_data', sqlstate: '23502' });
    await database.db.execute(sql`insert into probe values (4, 'x', null)`);
    const dup = await failureOf(sql`insert into probe values (4, ${'Reza Karimi'}, null)`);
    expect(dup.failure).toMatchObject({ type: 'database_unavailable', sqlstate: '23505' });
    expect(dup.failure!.message).not.toContain('Reza');
    expect(dup.failure!.message).toContain('probe_pkey'); // schema names stay
  });

  it('an integer beyond the column type is invalid data; a bug in the query is a deterministic database error', async () => {
    expect((await failureOf(sql`insert into probe values (${2147483648}, 'x', null)`)).failure).toMatchObject({ type: 'invalid_data', sqlstate: '22003' });
    expect((await failureOf(sql`select no_such_column from probe`)).failure).toMatchObject({ type: 'database_error', sqlstate: '42703' });
  });

  it('connection failures are transient; errors that are not the database are not classified', () => {
    expect(databaseFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toMatchObject({
      type: 'database_unavailable',
    });
    expect(databaseFailure(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toMatchObject({
      type: 'database_unavailable',
    });
    expect(databaseFailure(new Error('Connection terminated unexpectedly'))).toMatchObject({ type: 'database_unavailable' });
    expect(databaseFailure(new TypeError('x is undefined'))).toBeUndefined();
  });
});
