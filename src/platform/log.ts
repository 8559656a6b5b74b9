import pino from 'pino';
import { databaseFailure } from './database-errors';
import { logContext } from './request-context';

const LEVEL = (process.env.LOG_LEVEL || 'info') as pino.LevelWithSilent;

// stdout at LOG_LEVEL, plus whatever addLogDestination adds (a test reading the records).
const stdout = pino.destination(1);
const streams = pino.multistream([{ level: LEVEL, stream: stdout }]);

/**
 * Calls `listener` when the log's stdout fails (EPIPE: its reader went away; pino then drops
 * every further line without a word), so that a process can decide to stop.
 */
export function onLogOutputError(listener: (err: Error) => void): void {
  stdout.on('error', listener);
}

/**
 * Fields that hold personal data or secrets, in either interface's spelling or the
 * domain's: whatever object carries them, at the top or up to three levels down, is logged
 * with the value replaced. Free text cannot be redacted by name: errors go through
 * `safeError` instead.
 */
const PERSONAL_OR_SECRET = [
  'first_name',
  'last_name',
  'firstName',
  'lastName',
  'guest_name',
  'guestName',
  'guest_email',
  'guestEmail',
  'email',
  'phone_number',
  'phoneNumber',
  'phone',
  'national_id',
  'nationalId',
  'passport_number',
  'passportNumber',
  'birth_date',
  'birthDate',
  'lead_guest',
  'leadGuest',
  'applicant',
  'guests',
  'air_travelers',
  'travelers',
  'contact',
  'delivery_address',
  'deliveryAddress',
  'address',
  'api_key',
  'api_secret',
  'apiKey',
  'apiSecret',
  'agency_key',
  'agencyKey',
  'authorization',
  'x-api-key',
  'x-api-secret',
  'password',
  'secret',
  'token',
  'adminToken',
  'admin_token',
  'ADMIN_TOKEN',
  'WEBHOOK_SECRETS_KEY',
  'WEBHOOK_SECRETS_PREVIOUS_KEYS',
];

/**
 * Structured JSON logs (pino) on stdout. Whatever is logged while serving a request carries
 * its request id, the one the partner got back in X-Request-Id, and so does whatever an
 * activity working for that request logs (with its workflowId and activityType). Nothing
 * secret goes in here.
 */
export const logger = pino(
  {
    level: LEVEL,
    base: { service: 'booking-engine' },
    mixin: logContext,
    redact: { paths: redactPaths(), censor: '[redacted]' },
    serializers: { err: safeError, error: safeError },
  },
  streams,
);

/**
 * The access log: one line per request, of fixed fields that carry nothing personal (the
 * method, the route's pattern rather than its path, the status, the time taken), so it
 * skips the redaction walk, which cost about a third of a millisecond per request.
 */
const accessLogger = pino({ level: LEVEL, base: { service: 'booking-engine' }, mixin: logContext }, streams);

export function logRequest(fields: { method: string; route: string; status: number; ms: number }): void {
  accessLogger.info(fields, 'request');
}

function redactPaths(): string[] {
  return PERSONAL_OR_SECRET.flatMap((key) => {
    const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    const dot = k.startsWith('[') ? '' : '.';
    return [k, `*${dot}${k}`, `*.*${dot}${k}`, `*.*.*${dot}${k}`];
  });
}

/** E-mail addresses, and runs of 9 or more digits (phone numbers, national ids, passport numbers' digits). */
const scrubText = (text: string | undefined) =>
  text?.replace(/[^\s@"'<>(),]+@[^\s@"'<>(),]+\.[A-Za-z]{2,}/g, '[redacted]').replace(/\+?\d[\d -]{7,}\d/g, '[redacted]');

/**
 * pino's error serializer, made safe: a database error is described by its SQLSTATE and
 * schema names only (drizzle's message lists the query's parameters; PostgreSQL's detail
 * quotes the failing row), and any other error's message and stack lose e-mail addresses
 * and long digit runs.
 */
export function safeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const db = databaseFailure(err);
  if (db) return { type: 'DatabaseError', kind: db.type, sqlstate: db.sqlstate, message: db.message };
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  out.message = scrubText(out.message as string);
  out.stack = scrubText(out.stack as string);
  return out;
}

/**
 * Also sends every record at `level` or above to `destination` (one JSON line per write),
 * until the returned function is called. stdout keeps LOG_LEVEL.
 */
export function addLogDestination(destination: pino.DestinationStream, level: pino.Level = 'debug'): () => void {
  streams.add({ level, stream: destination });
  const id = (streams as unknown as { lastId: number }).lastId; // the entry just added (not in pino's types)
  const before = logger.level;
  if (logger.levels.values[level]! < logger.levelVal) logger.level = accessLogger.level = level;
  return () => {
    streams.remove(id);
    logger.level = accessLogger.level = before;
  };
}

export function logError(message: string, err: unknown, fields: Record<string, unknown> = {}): void {
  logger.error({ ...fields, err }, message);
}

export function logWarn(message: string, fields: Record<string, unknown> = {}): void {
  logger.warn(fields, message);
}

export function logInfo(message: string, fields: Record<string, unknown> = {}): void {
  logger.info(fields, message);
}
