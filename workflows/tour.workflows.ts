import { proxyActivities } from '@temporalio/workflow';
import type { BookingActivities, HeldTourSeats } from '../activities';
import type { PrebookRequest } from './tour.types';
import { DATABASE_STEP } from './activity-options';
import { startAbandoned } from './children';
import { expireAtDeadline } from './deadline';
import { setStage } from './steps';
import { tourPrebookExpiryWorkflowId } from './tour.types';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);

/** Holds tour seats for a prebook, then starts the timer that gives them back if nobody pays. */
export async function prebookTour(input: PrebookRequest): Promise<HeldTourSeats> {
  setStage('holding');
  const held = await database.holdTourSeats(input);
  await startAbandoned(tourPrebookExpiry, tourPrebookExpiryWorkflowId(held.prebookId), [{ prebookId: held.prebookId, expiresAt: held.expiresAt }]);
  setStage('done');
  return held;
}

/** Unpaid prebooks expire at their deadline; the seats go back in the same transaction. */
export async function tourPrebookExpiry(input: { prebookId: number; expiresAt: number }): Promise<{ expired: boolean }> {
  return expireAtDeadline(
    input.expiresAt,
    () => database.expireTourPrebook(input.prebookId),
    async () => undefined,
  );
}
