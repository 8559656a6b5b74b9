import pino from 'pino';
import { logContext } from '../request-context';

/**
 * Structured JSON logs (pino) on stdout. Whatever is logged while serving a request carries
 * its request id, the one the partner got back in X-Request-Id, and so does whatever an
 * activity working for that request logs (with its workflowId and activityType). Nothing
 * secret goes in here.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL || 'info',
  base: { service: 'booking-engine' },
  mixin: logContext,
});

export function logError(message: string, err: unknown, fields: Record<string, unknown> = {}): void {
  logger.error({ ...fields, err }, message);
}

export function logInfo(message: string, fields: Record<string, unknown> = {}): void {
  logger.info(fields, message);
}
