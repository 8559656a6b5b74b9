import type { Client } from '@temporalio/client';
import type { Db } from '../src/db/client';
import { pollScheduleChanges } from '../src/domain/flights/schedule-change-runs';
import { logError, logInfo } from '../src/platform/log';
import type { FlightAfterSale } from '../src/suppliers/flight-after-sale';
import { repeat } from './repeat';

/** The first round waits this long after the worker starts, so that starting stays quick. */
const FIRST_ROUND_MS = 2 * 60 * 1000;

/**
 * Every `minutes`, a worker asks the airlines for the schedule changes of the issued flight
 * orders still to fly, and starts the workflow of each one not yet known: what a lost webhook
 * missed is found within a round. Workers poll side by side; the workflow's id (order and
 * change) makes them start one workflow per change. A round that fails is logged and the next
 * one asks again.
 */
export function startScheduleChangePoll(opts: { db: Db; client: Client; taskQueue: string; afterSaleOf(supplier: string): FlightAfterSale; minutes: number }): {
  stop(): Promise<void>;
} {
  if (opts.minutes <= 0) return { stop: async () => undefined };
  const everyMs = opts.minutes * 60_000;
  return repeat({ firstMs: Math.min(FIRST_ROUND_MS, everyMs), everyMs }, () =>
    pollScheduleChanges({ db: opts.db, temporal: opts.client, taskQueue: opts.taskQueue, afterSaleOf: opts.afterSaleOf }).then(
      (started) => {
        if (started.length > 0) logInfo('schedule changes found by the poll', { started: started.length });
      },
      (err: unknown) => logError('the schedule change poll failed; trying again at the next round', err),
    ),
  );
}
