import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { CONFIG_SETTINGS } from '../../src/config';

/**
 * docs/configuration.md is the operator's list of settings: one row per setting of the
 * schema in src/config.ts, with the schema's own default.
 */
const TABLE = path.join(__dirname, '../../docs/configuration.md');

/** The rows of the table: setting name → default cell, as written. */
function tableRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of fs.readFileSync(TABLE, 'utf8').split('\n')) {
    const cells = /^\|(.*)\|$/
      .exec(line.trim())?.[1]!
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!cells || cells[0] === 'Setting' || /^-+$/.test(cells[0] ?? '')) continue;
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0]!)?.[1];
    if (!name) throw new Error(`a row that names no setting in backticks: ${line}`);
    if (rows.has(name)) throw new Error(`${name} has two rows`);
    rows.set(name, cells[1]!);
  }
  return rows;
}

/** A setting's default as the environment would spell it; undefined when it has none. */
function schemaDefault(schema: z.ZodType): string | undefined {
  const def = (schema as unknown as { _zod: { def: { type: string; defaultValue?: unknown; in?: z.ZodType } } })._zod.def;
  if (def.type === 'default') return def.defaultValue === '' ? undefined : String(def.defaultValue);
  if (def.type === 'pipe') return schemaDefault(def.in!);
  return undefined;
}

/** The table's default cell as the environment would spell it: `value`, or "unset". */
function tableDefault(cell: string): string | undefined {
  if (cell === 'unset') return undefined;
  const value = /^`([^`]*)`$/.exec(cell)?.[1];
  if (value === undefined) throw new Error(`a default cell is \`value\` or unset, not ${cell}`);
  return value;
}

describe('docs/configuration.md', () => {
  const rows = tableRows();
  const settings = Object.keys(CONFIG_SETTINGS);

  it('has a row for every setting', () => {
    expect(settings.filter((name) => !rows.has(name))).toEqual([]);
  });

  it('has no row for a setting the engine does not read', () => {
    expect([...rows.keys()].filter((name) => !settings.includes(name))).toEqual([]);
  });

  it("gives every setting the schema's default", () => {
    const differing = settings
      .filter((name) => rows.has(name))
      .map((name) => ({ name, schema: schemaDefault(CONFIG_SETTINGS[name as keyof typeof CONFIG_SETTINGS]), table: tableDefault(rows.get(name)!) }))
      .filter((d) => d.schema !== d.table);
    expect(differing).toEqual([]);
  });

  it('reads the defaults it checks (a number, a word, none)', () => {
    expect(schemaDefault(CONFIG_SETTINGS.PORT)).toBe('8080');
    expect(schemaDefault(CONFIG_SETTINGS.TEMPORAL_TASK_QUEUE)).toBe('booking-engine');
    expect(schemaDefault(CONFIG_SETTINGS.DATABASE_URL)).toBeUndefined();
    expect(schemaDefault(CONFIG_SETTINGS.FINALIZE_ATTEMPTS_BY_SERVICE)).toBeUndefined();
    expect(rows.size).toBeGreaterThan(40);
  });
});
