/**
 * What a database error means for whoever retries the step that raised it, and how to
 * describe it without the data it was about.
 *
 * drizzle wraps the driver's error in a DrizzleQueryError whose message carries the query's
 * parameters (guest names, passport numbers, e-mails), and PostgreSQL's own messages and
 * `detail` quote values ("Failing row contains (…)", `invalid input syntax … "Sara"`).
 * Neither may reach a log line or a Temporal failure (which lands in the workflow history).
 */

/** Retrying can help: the database was unreachable, restarting, or the transaction lost a race. */
const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57014', // query_canceled (statement timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '23505', // unique_violation: a concurrent writer won; the retried step finds its row and answers from it
]);
const TRANSIENT_CLASSES = ['08', '53']; // connection_exception, insufficient_resources

/** Node's socket errors: the connection could not be made, or broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** PostgreSQL's connection exceptions (class 08), shutdowns (57P01–57P03), too many connections (53300). */
const CONNECTION_SQLSTATES = /^(08...|57P0[123]|53300)$/;
/** node-postgres reports a lost or never-made connection by message only. */
const CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout)/;

/**
 * This one error (not its causes) says the database could not be reached or the connection
 * broke: no answer about the query itself. The API answers 503 for it (src/health/model.ts),
 * an activity retries it.
 */
export function isDatabaseConnectionError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || CONNECTION_SQLSTATES.test(code))) return true;
  return CONNECTION_MESSAGES.test(e.message);
}

/**
 * The failure type a database error is raised with (workflows/failure-types.ts,
 * DatabaseFailureType): `database_unavailable`, retry with backoff (bounded); `invalid_data`,
 * classes 22 and 23, the same input fails again; `database_error`, anything else deterministic.
 */
export type DatabaseFailureTypeName = 'database_unavailable' | 'invalid_data' | 'database_error';

export interface DatabaseFailure {
  /** PostgreSQL's SQLSTATE, when it answered. */
  sqlstate?: string;
  type: DatabaseFailureTypeName;
  /** Safe to log and to store: codes, the constraint/table/column names, no values. */
  message: string;
}

interface PgLike {
  code?: string;
  message?: string;
  constraint?: string;
  table?: string;
  column?: string;
  schema?: string;
  dataType?: string;
  routine?: string;
  cause?: unknown;
}

const isSqlstate = (code: unknown): code is string => typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);

/** The first error in the cause chain that carries a SQLSTATE or a socket error code. */
function rootOf(err: unknown): PgLike | undefined {
  let current: unknown = err;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const e = current as PgLike;
    if (isSqlstate(e.code) || (e.code && SOCKET_CODES.has(e.code))) return e;
    current = e.cause;
  }
  return undefined;
}

const isDrizzleQueryError = (err: unknown) => err instanceof Error && typeof (err as { query?: unknown }).query === 'string' && 'params' in err;

/** PostgreSQL's message with every quoted value replaced; schema names (table, column, constraint, type) stay. */
function scrub(message: string, e: PgLike): string {
  const names = new Set([e.table, e.column, e.constraint, e.schema, e.dataType].filter(Boolean));
  return message.replace(/"([^"]*)"/g, (quoted, inner: string) => (names.has(inner) ? quoted : '"…"'));
}

/** Classifies a database error, or undefined when `err` did not come from the database. */
export function databaseFailure(err: unknown): DatabaseFailure | undefined {
  const root = rootOf(err);
  if (!root) {
    // No SQLSTATE anywhere below: the connection went away (node-postgres says so in its message only).
    const lost = isDatabaseConnectionError(err) || (err instanceof Error && isDatabaseConnectionError(err.cause));
    if (lost) return { type: 'database_unavailable', message: 'the database connection failed' };
    return isDrizzleQueryError(err) ? { type: 'database_error', message: 'a database query failed' } : undefined;
  }
  const code = root.code!;
  if (!isSqlstate(code)) return { type: 'database_unavailable', message: `the database is unreachable (${code})` };
  const where = [root.table && `table ${root.table}`, root.column && `column ${root.column}`, root.constraint && `constraint ${root.constraint}`]
    .filter(Boolean)
    .join(', ');
  const message = `database error ${code}: ${scrub(root.message ?? '', root)}${where ? ` (${where})` : ''}`;
  if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_CLASSES.includes(code.slice(0, 2))) return { sqlstate: code, type: 'database_unavailable', message };
  if (code.startsWith('22') || code.startsWith('23')) return { sqlstate: code, type: 'invalid_data', message };
  return { sqlstate: code, type: 'database_error', message };
}
