import { catalogueToWallet, type CatalogueDeps } from '../money/markup-rules';
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import type { Traveler } from '../../suppliers/flights';
import { DomainError, workflowAnswer } from '../errors';
import type { OrderRow } from '../orders';
import type { Partner } from '../partners';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrJoin, inProcessOutcome } from '../../temporal/workflows';
import { checkPrebook, finalizePrebook, prebookOf, withDeparture, type PrebookView, type TourPrebookRow } from './prebooks';

export interface TourDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  /** What this process's own worker tells of the runs it closes (npm start; src/temporal/outcomes.ts). */
  outcomes?: WorkflowOutcomes;
  prebookTtlMs: number;
}

/** POST /api/tours/prebook/: checked here, then the prebook workflow holds the seats and starts its timer. */
export async function prebook(
  deps: TourDeps,
  partner: Partner,
  input: { tour_id: number; departure_id: number; passengers: Traveler[] },
  pricing: CatalogueDeps,
): Promise<PrebookView> {
  await checkPrebook(deps.db, { tourId: input.tour_id, departureId: input.departure_id, passengers: input.passengers });
  // A wallet in a currency without a current rate from the catalogue's is refused before seats are taken.
  await catalogueToWallet(pricing, new Date());
  const currency = pricing.currency;
  const holdRef = `tour-prebook:${crypto.randomUUID()}`;
  const started = await startOrJoin(deps.temporal, 'prebookTour', {
    workflowId: holdRef,
    taskQueue: deps.taskQueue,
    args: [
      {
        partnerId: partner.id,
        holdRef,
        tourId: input.tour_id,
        departureId: input.departure_id,
        passengers: input.passengers,
        ttlMs: deps.prebookTtlMs,
        currency,
      },
    ],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, service: 'tour', stage: 'holding' }),
  });
  const held = await awaitWorkflow(started.handle, deps.waitMs, workflowAnswer('datesHold'), {
    inProcess: inProcessOutcome(deps.outcomes, started),
  });
  if (!held) throw new DomainError('supplier_failed', 'the seats could not be held in time; try again');
  return withDeparture(deps.db, await prebookOf(deps.db, partner.id, held.prebookId));
}

/** POST /api/tours/finalize/. */
export async function finalize(db: Db, partner: Partner, prebookId: number): Promise<{ order: OrderRow; prebook: TourPrebookRow }> {
  return finalizePrebook(db, partner.id, prebookId);
}
