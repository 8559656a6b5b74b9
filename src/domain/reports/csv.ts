import { stringify } from 'csv-stringify/sync';

/** A CSV cell: text as it is, a number as JS writes it, null as an empty cell. */
export type Cell = string | number | null;

/** A cell a spreadsheet would read as a formula (OWASP, "CSV injection"): it starts with one of these. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** An amount or a count as the engine writes it: a spreadsheet reads it as the number it is. */
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * A cell as written: text that a spreadsheet would take for a formula (a user's name, a note,
 * a supplier's reference beginning with `=`, `+`, `-`, `@`, a tab or a carriage return) gets
 * a leading apostrophe, which spreadsheets show as text; a negative amount stays a number.
 */
const safeCell = (c: Cell): string | number => {
  if (c === null) return '';
  if (typeof c === 'string' && FORMULA_START.test(c) && !NUMBER.test(c)) return `'${c}`;
  return c;
};

/**
 * A CSV document (RFC 4180: comma-separated, CRLF line ends, fields quoted where they hold a
 * comma, a quote or a line break) with a header row. Amounts go in as decimal strings of the
 * currency (formatDecimal), never as floats. No cell is read as a formula (`safeCell`).
 */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly Cell[]>): string {
  return stringify([header as string[], ...rows.map((r) => r.map(safeCell))], { record_delimiter: 'windows' });
}

/** A `Content-Disposition` that offers the body as a file of that name. */
export const attachment = (filename: string) => `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`;
