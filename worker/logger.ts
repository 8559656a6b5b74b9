import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import { logger } from '../src/platform/log';

const LEVELS = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The Temporal SDK's logger (Runtime.logger) writing through pino: the worker's own lines,
 * activities' lifecycle ("Activity failed", with `requestId` from worker/interceptors.ts),
 * workflows' `log` and Core's forwarded warnings become JSON lines like the API's, at
 * LOG_LEVEL. The SDK's metadata (sdkComponent, workflowId, activityType, …) are fields; an
 * `error` becomes pino's `err`, with message and stack.
 */
export class PinoTemporalLogger implements Logger {
  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const method = LEVELS[level];
    if (!logger.isLevelEnabled(method)) return;
    // Symbol keys (the SDK's LogTimestamp) are not written: pino stamps its own time.
    const { error, ...fields } = meta ?? {};
    logger[method](error === undefined ? fields : { ...fields, err: error }, message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/**
 * With Core's logs forwarded, the runtime's logger is the SDK's collector: it takes every
 * line of the SDK, down to TRACE (each workflow activation, each activity), stamps and
 * buffers it, and hands it on in time order a moment later, where PinoTemporalLogger drops
 * what is below LOG_LEVEL. This drops those lines before they are buffered.
 */
export function dropBelowLogLevel(runtimeLogger: Logger): void {
  const collect = runtimeLogger.log.bind(runtimeLogger);
  runtimeLogger.log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    if (logger.isLevelEnabled(LEVELS[level])) collect(level, message, meta);
  };
}
