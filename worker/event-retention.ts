import type { Db } from '../src/db/client';
import { pruneEvents } from '../src/domain/retention';
import { logError, logInfo } from '../src/platform/log';
import { repeat } from './repeat';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Events are at most about this much older than the retention when they go. */
const ROUND_MS = 60 * 60 * 1000;
/** The first round waits this long after the worker starts, so that starting stays quick. */
const FIRST_ROUND_MS = 60 * 1000;

/**
 * Every worker prunes events older than `days` (with their deliveries and attempts) once an
 * hour, in batches; a database lock lets one worker prune at a time. A round that fails is
 * logged and tried again at the next.
 */
export function startEventRetention(opts: { db: Db; days: number }): { stop(): Promise<void> } {
  return repeat({ firstMs: FIRST_ROUND_MS, everyMs: ROUND_MS }, () =>
    pruneEvents(opts.db, { before: new Date(Date.now() - opts.days * DAY_MS), batch: 1000 }).then(
      (n) => {
        if (n > 0) logInfo('events past their retention pruned', { events: n, days: opts.days });
      },
      (err: unknown) => logError('event retention round failed; trying again in an hour', err),
    ),
  );
}
