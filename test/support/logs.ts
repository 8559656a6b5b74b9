import type { Level } from 'pino';
import { addLogDestination } from '../../src/platform/log';

export type LogRecord = Record<string, unknown> & { msg?: string };

/**
 * Collects what the engine logs through pino from here on — the API's lines and the
 * in-process worker's activities' — at `level` and above (stdout stays at LOG_LEVEL);
 * `stop()` ends the capture.
 */
export function captureLogs(level: Level = 'info'): { records: LogRecord[]; stop: () => void } {
  const records: LogRecord[] = [];
  const stop = addLogDestination({ write: (line: string) => void records.push(JSON.parse(line) as LogRecord) }, level);
  return { records, stop };
}
