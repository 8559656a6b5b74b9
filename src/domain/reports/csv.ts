import { stringify } from 'csv-stringify/sync';

/** A CSV cell: text as it is, a number as JS writes it, null as an empty cell. */
export type Cell = string | number | null;

/**
 * A CSV document (RFC 4180: comma-separated, CRLF line ends, fields quoted where they hold a
 * comma, a quote or a line break) with a header row. Amounts go in as decimal strings of the
 * currency (formatDecimal), never as floats.
 */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly Cell[]>): string {
  return stringify([header as string[], ...rows.map((r) => r.map((c) => (c === null ? '' : c)))], { record_delimiter: 'windows' });
}

/** A `Content-Disposition` that offers the body as a file of that name. */
export const attachment = (filename: string) => `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`;
