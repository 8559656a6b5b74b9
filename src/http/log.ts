import pino from 'pino';
import { logContext } from '../request-context';

const LEVEL = (process.env.LOG_LEVEL || 'info') as pino.LevelWithSilent;

// stdout at LOG_LEVEL, plus whatever addLogDestination adds (a test reading the records).
const streams = pino.multistream([{ level: LEVEL, stream: pino.destination(1) }]);

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
  },
  streams,
);

/**
 * Also sends every record at `level` or above to `destination` (one JSON line per write),
 * until the returned function is called. stdout keeps LOG_LEVEL.
 */
export function addLogDestination(destination: pino.DestinationStream, level: pino.Level = 'debug'): () => void {
  streams.add({ level, stream: destination });
  const id = (streams as unknown as { lastId: number }).lastId; // the entry just added (not in pino's types)
  const before = logger.level;
  if (logger.levels.values[level]! < logger.levelVal) logger.level = level;
  return () => {
    streams.remove(id);
    logger.level = before;
  };
}

export function logError(message: string, err: unknown, fields: Record<string, unknown> = {}): void {
  logger.error({ ...fields, err }, message);
}

export function logInfo(message: string, fields: Record<string, unknown> = {}): void {
  logger.info(fields, message);
}
