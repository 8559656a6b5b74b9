import { getTableColumns, sql, type Column, type SQL, type Table } from 'drizzle-orm';
import { memoizePerObject } from '../platform/memoize-per-object';

/**
 * Every column of `table` under the alias `alias`, each named `prefix.column`: a whole row of
 * a table inside a hand-written statement (a CTE's `returning *`, an outer join), read back
 * with `rowFrom`. Column names come from the schema, never from input.
 */
export function columnsAs(table: Table, alias: string, prefix: string): SQL {
  return sql.raw(
    columnsOf(table)
      .map(([, name]) => `${alias}."${name}" as "${prefix}.${name}"`)
      .join(', '),
  );
}

/**
 * The row of `table` that `columnsAs` selected into `raw`, each value mapped as drizzle's own
 * select maps it (the same driver answers both); undefined when the row is absent (its primary
 * key `id` is null: an outer join that found none).
 */
export function rowFrom<T extends Table>(table: T, raw: Record<string, unknown>, prefix: string): T['$inferSelect'] | undefined {
  if (raw[`${prefix}.id`] === null || raw[`${prefix}.id`] === undefined) return undefined;
  const row: Record<string, unknown> = {};
  for (const [key, name, column] of columnsOf(table)) {
    const value = raw[`${prefix}.${name}`];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T['$inferSelect'];
}

/** Each column of a table as [property, column name, column], listed once per table. */
const columnsOf = memoizePerObject((table: Table) =>
  Object.entries(getTableColumns(table)).map(([key, column]): [string, string, Column] => [key, column.name, column]),
);
