import type { Db } from '../src/db/client';
import { recordNeedsAttention, type ParkedNote } from '../src/domain/events';
import { runActivityStep } from './failures';

/** What a workflow tells operators through the outbox (operator-only events, never sent to partners). */
export function operatorActivities(db: Db) {
  return {
    /** A workflow parked for an operator: the order.needs_attention event, with where it parked and why. */
    recordNeedsAttention: (input: ParkedNote) => runActivityStep(() => recordNeedsAttention(db, input)),
  };
}
