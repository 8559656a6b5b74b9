import type { DbOrTx } from '../../db/client';
import { DomainError, validation } from '../errors';
import { statementPeriod, type StatementPeriod } from '../money/statements';
import { marginsCsv, suppliersCsv } from './books';
import { exposureCsv } from './exposure';
import { fxDifferencesCsv } from './fx-differences';
import { trialBalanceCsv } from './trial-balance';

/** What an operator report is asked for: its period where it has one (`--from --to`, YYYY-MM-DD, UTC days). */
export interface ReportQuery {
  from?: string;
  to?: string;
}

interface Report {
  /** Whether the report covers a period (then `from` and `to` are both required). */
  period: boolean;
  csv(db: DbOrTx, period: StatementPeriod | null): Promise<string>;
}

/**
 * The operators' CSV reports by name: `GET /admin/reports/<name>` and `admin report <name>`.
 * Exposure is a snapshot of now, so it takes no period; margins (by month, service, partner
 * and supplier), what is owed to suppliers, the trial balance and the exchange differences
 * cover one.
 */
const REPORTS: Record<string, Report> = {
  exposure: { period: false, csv: (db) => exposureCsv(db) },
  margins: { period: true, csv: (db, period) => marginsCsv(db, period!) },
  suppliers: { period: true, csv: (db, period) => suppliersCsv(db, period!) },
  'trial-balance': { period: true, csv: (db, period) => trialBalanceCsv(db, period!) },
  'fx-differences': { period: true, csv: (db, period) => fxDifferencesCsv(db, period!) },
};

export const REPORT_NAMES = Object.keys(REPORTS);

/** A report's CSV and the file name to offer it under. */
export async function runReport(db: DbOrTx, name: string, query: ReportQuery, now = new Date()): Promise<{ filename: string; csv: string }> {
  const report = Object.hasOwn(REPORTS, name) ? REPORTS[name] : undefined;
  if (!report) throw new DomainError('not_found', `no report named "${name}"; the reports: ${REPORT_NAMES.join(', ')}`);
  if (!report.period) {
    if (query.from !== undefined || query.to !== undefined) throw validation('from', `the ${name} report is a snapshot of now and takes no period`);
    return { filename: `${name}-${now.toISOString().slice(0, 10)}.csv`, csv: await report.csv(db, null) };
  }
  if (query.from === undefined) throw validation('from', 'is required (YYYY-MM-DD)');
  if (query.to === undefined) throw validation('to', 'is required (YYYY-MM-DD)');
  const period = statementPeriod(query.from, query.to);
  return { filename: `${name}-${period.from}-to-${period.to}.csv`, csv: await report.csv(db, period) };
}
