import { jest } from '@jest/globals';
import { PGlite } from '@electric-sql/pglite';
import { EnginePGlite } from '../../src/db/pglite';

/**
 * The engine's PGlite runs a text it sees a second time as a named statement (parsed once,
 * then one round trip a run). What a query answers must not change: rows, types, nulls,
 * errors, transactions, and the order of queries against an open transaction. What drizzle
 * reads through it, first run and later runs: pglite-parsers.test.ts.
 */
let pg: EnginePGlite;
const execProtocol = jest.spyOn(PGlite.prototype, 'execProtocol');
const pgliteQuery = jest.spyOn(PGlite.prototype, 'query');
beforeAll(async () => {
  pg = new EnginePGlite();
  await pg.waitReady;
  await pg.exec(`create table t (id int primary key, n numeric(14,2), label text, at timestamptz, doc jsonb, tags text[])`);
});
afterAll(async () => {
  execProtocol.mockRestore();
  pgliteQuery.mockRestore();
  await pg.close();
});

const runs = 3;

describe('named statements in PGlite', () => {
  it('answers the same on every run, rows as objects and as arrays, nulls and all', async () => {
    const insert = 'insert into t values ($1, $2, $3, $4, $5, $6) returning *';
    const answers = [];
    for (let i = 1; i <= runs; i++) {
      answers.push((await pg.query(insert, [i, '12.50', i === 2 ? null : `row ${i}`, new Date('2026-11-24T04:05:06.789Z'), { k: [i] }, ['a', 'b']])).rows);
    }
    expect(answers).toEqual(
      [1, 2, 3].map((i) => [
        { id: i, n: '12.50', label: i === 2 ? null : `row ${i}`, at: new Date('2026-11-24T04:05:06.789Z'), doc: { k: [i] }, tags: ['a', 'b'] },
      ]),
    );
    const select = 'select id, label, doc from t where id = any($1::int[]) order by id';
    const asArrays = [];
    for (let i = 0; i < runs; i++) asArrays.push(await pg.query(select, [[2, 3]], { rowMode: 'array' }));
    for (const result of asArrays) {
      expect(result.rows).toEqual([
        [2, null, { k: [2] }],
        [3, 'row 3', { k: [3] }],
      ]);
      expect(result.fields.map((f) => f.name)).toEqual(['id', 'label', 'doc']);
    }
    const update = 'update t set label = $2 where id = $1';
    for (let i = 0; i < runs; i++) expect((await pg.query(update, [1, `label ${i}`])).affectedRows).toBe(1);
    expect((await pg.query('select label from t where id = 1')).rows).toEqual([{ label: 'label 2' }]);
  });

  it('runs a text from its second use on as one round trip, without PGlite parsing it again', async () => {
    const text = 'select count(*)::int as c from t where id > $1';
    await pg.query(text, [0]);
    await pg.query(text, [0]);
    execProtocol.mockClear();
    pgliteQuery.mockClear();
    expect((await pg.query(text, [1])).rows).toEqual([{ c: 2 }]);
    expect(execProtocol).toHaveBeenCalledTimes(1);
    expect(pgliteQuery).not.toHaveBeenCalled();
  });

  it('fails as PGlite fails, with the error code and the query, and the next query runs', async () => {
    const insert = 'insert into t (id) values ($1)';
    await pg.query(insert, [10]);
    await pg.query(insert, [11]);
    const err = (await pg.query(insert, [10]).catch((e: unknown) => e)) as { code?: string; query?: string; params?: unknown[] };
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('23505');
    expect(err.query).toBe(insert);
    expect(err.params).toEqual([10]);
    expect((await pg.query('select count(*)::int as c from t where id >= $1', [10])).rows).toEqual([{ c: 2 }]);
    await expect(pg.query('select count(*)::int as c from t where id >= $1', [10])).resolves.toMatchObject({ rows: [{ c: 2 }] });
  });

  it('keeps a transaction whole: a query from outside waits for its end, and a rollback undoes its named statements’ writes', async () => {
    const read = 'select label from t where id = $1';
    const write = 'update t set label = $2 where id = $1';
    await pg.query(read, [3]);
    await pg.query(read, [3]);
    let outside: Promise<unknown> | undefined;
    let settledInside = false;
    await pg
      .transaction(async (tx) => {
        for (let i = 0; i < runs; i++) await tx.query(write, [3, `in tx ${i}`]);
        expect((await tx.query(read, [3])).rows).toEqual([{ label: 'in tx 2' }]);
        outside = pg.query(read, [3]).then((r) => {
          settledInside = true;
          return r.rows;
        });
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(settledInside).toBe(false);
        throw new Error('roll back');
      })
      .catch((e: Error) => expect(e.message).toBe('roll back'));
    await expect(outside).resolves.toEqual([{ label: 'row 3' }]);
    await expect(pg.query(write, [3, 'after'])).resolves.toMatchObject({ affectedRows: 1 });
    expect((await pg.query(read, [3])).rows).toEqual([{ label: 'after' }]);
  });

  it('keeps at most 256 named statements, and one closed answers again when it comes back', async () => {
    const text = (i: number) => `select $1::int + ${i} as v`;
    for (let i = 0; i < 300; i++) {
      await pg.query(text(i), [1]);
      await pg.query(text(i), [1]);
    }
    const named = await pg.query<{ c: number }>(`select count(*)::int as c from pg_prepared_statements where name like 'engine_%'`);
    expect(named.rows[0]!.c).toBeLessThanOrEqual(256);
    expect(named.rows[0]!.c).toBeGreaterThan(200);
    expect((await pg.query(text(0), [1])).rows).toEqual([{ v: 1 }]);
    expect((await pg.query(text(299), [1])).rows).toEqual([{ v: 300 }]);
  });
});
