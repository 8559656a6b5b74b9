import type { HeldTourSeats } from '../workflows/tour.types';
import type { Db } from '../src/db/client';
import type { CatalogueSettings } from '../src/domain/money/markup-rules';
import { expirePrebookIfDue, holdTourSeats, type PrebookRequest } from '../src/domain/tours/prebooks';
import { runActivityStep } from './failures';

/** Tour seats are our allocation: holding and releasing them is a database step. */
export function tourActivities(db: Db, catalogue: CatalogueSettings) {
  return {
    holdTourSeats: (input: PrebookRequest) =>
      runActivityStep(async (): Promise<HeldTourSeats> => {
        const p = await holdTourSeats(db, input, catalogue);
        return { prebookId: p.id, expiresAt: p.expiresAt.getTime() };
      }),
    expireTourPrebook: (prebookId: number) => runActivityStep(() => expirePrebookIfDue(db, prebookId, new Date())),
  };
}
