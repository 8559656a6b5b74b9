import type { HeldTourSeats } from '../workflows/tour.types';
import type { Db } from '../src/db/client';
import { expirePrebookIfDue, holdTourSeats, type PrebookRequest } from '../src/domain/tours/prebooks';
import { runActivityStep } from './failures';

/** Tour seats are our allocation: holding and releasing them is a database step. */
export function tourActivities(db: Db) {
  return {
    holdTourSeats: (input: PrebookRequest) =>
      runActivityStep(async (): Promise<HeldTourSeats> => {
        const p = await holdTourSeats(db, input);
        return { prebookId: p.id, expiresAt: p.expiresAt.getTime() };
      }),
    expireTourPrebook: (prebookId: number) => runActivityStep(() => expirePrebookIfDue(db, prebookId, new Date())),
  };
}
