import type { Db } from '../src/db/client';
import { eraseEndedTrips, sealPersonalData } from '../src/domain/privacy';
import { logError, logInfo, logWarn } from '../src/platform/log';
import { repeat } from './repeat';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Personal data is erased at most about this long after its day comes. */
const ROUND_MS = 60 * 60 * 1000;
/** The first round waits this long after the worker starts, so that starting stays quick. */
const FIRST_ROUND_MS = 60 * 1000;

/** One round: what is not sealed under the current key is sealed again, then the trips ended `days` ago are erased. */
export async function personalDataRound(db: Db, days: number, now = Date.now()): Promise<void> {
  const { sealed, underOtherKeys } = await sealPersonalData(db);
  if (sealed > 0) logInfo('travellers’ personal data sealed under the current key', { values: sealed });
  if (underOtherKeys > 0) {
    logWarn(
      'travellers’ personal data sealed under a key this process does not have: it is not read until PERSONAL_DATA_KEY or PERSONAL_DATA_PREVIOUS_KEYS has it',
      {
        values: underOtherKeys,
      },
    );
  }
  const before = new Date(now - days * DAY_MS).toISOString().slice(0, 10);
  const erased = await eraseEndedTrips(db, before);
  const total = Object.values(erased).reduce((a, b) => a + b, 0);
  if (total > 0) logInfo('travellers’ personal data erased after their trips', { ...erased, trips_ended_before: before });
}

/**
 * Every worker keeps travellers' personal data once an hour (src/domain/privacy.ts): sealed
 * under the current key, and erased PERSONAL_DATA_RETENTION_DAYS after each trip. Two
 * workers doing it at once do no harm: each row is written only if it is still as read. A
 * round that fails is logged and tried again at the next.
 */
export function startPersonalDataUpkeep(opts: { db: Db; days: number }): { stop(): Promise<void> } {
  return repeat({ firstMs: FIRST_ROUND_MS, everyMs: ROUND_MS }, () =>
    personalDataRound(opts.db, opts.days).catch((err: unknown) => logError('personal data upkeep failed; trying again in an hour', err)),
  );
}
