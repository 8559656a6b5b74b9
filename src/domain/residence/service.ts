import { catalogueToWallet, type CatalogueDeps } from '../money/markup-rules';
import crypto from 'node:crypto';
import { ActivityFailure, ApplicationFailure, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { DatabaseFailureType } from '../../../workflows/failure-types';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { properties, reservations } from '../../db/schema';
import { acceptCancelSignal, modifyStayUpdate, requestCancelUpdate, reservationWorkflowId, type StayChange } from '../../../workflows/residence.types';
import { DomainError, updateAnswer, validation, workflowAnswer } from '../errors';
import { isStorableId } from '../ids';
import type { OrderRow } from '../orders';
import type { Partner } from '../partners';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrJoin, inProcessOutcome } from '../../temporal/workflows';
import type { Workflows } from '../../../workflows/registry.types';
import { bookReservation } from './booking';
import type { ModificationResult } from './modification';
import { reservationOf, type ReservationRow } from './reservations';
import { checkStay } from './stay-rules';
import { viewReservation, type ReservationView } from './view';

export interface ResidenceDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  /** What this process's own worker tells of the runs it closes (npm start; src/temporal/outcomes.ts). */
  outcomes?: WorkflowOutcomes;
  holdTtlMs: number;
  /** Sandbox: the host accepts cancellations by itself after this long; null: an operator accepts. */
  autoAcceptCancelMs: number | null;
}

export interface ReserveInput {
  property_id: number;
  check_in: string;
  check_out: string;
  guests: number;
  lead_guest: Record<string, unknown>;
}

const changeAnswer = updateAnswer('residenceChange');

/** A refusal raised inside a workflow update (validator or activity) as the domain error the interface renders. */
export function updateFailure(err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  // The host would not take a change, or could not be reached: the workflow undid it.
  if (err.cause instanceof ActivityFailure && err.cause.activityType === 'amendAtHost') {
    // An answer of the host's (refused, unknown reference, gone) is final; anything else ran out of tries.
    const hostSaid = err.cause.cause instanceof ApplicationFailure && err.cause.cause.nonRetryable;
    const why = err.cause.cause instanceof Error ? err.cause.cause.message : 'no answer';
    return new DomainError(
      'supplier_failed',
      hostSaid
        ? `the host refused the change (${why}); it was undone: the stay and the wallet are as they were`
        : `the host could not be reached (${why}); the change was undone: the stay and the wallet are as they were, try again later`,
    );
  }
  // The workflow's own failure or a step's, the first down the chain: its answer (src/domain/errors.ts), else the request's fault.
  for (let cause: unknown = err.cause; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure) {
      const answer = changeAnswer({ type: cause.type ?? '', message: cause.message });
      if (answer) return answer;
      // A database failure of ours is not the request's fault (500).
      if (cause.type === DatabaseFailureType.error) return err;
      return new DomainError(
        'validation',
        cause.message.startsWith('reservation_id') || cause.message.includes(': ') ? cause.message : `reservation_id: ${cause.message}`,
      );
    }
  }
  return err;
}

/** POST /api/residence/reserve/: the dates are checked, then held by a workflow that starts the reservation's lifecycle. */
export async function reserve(deps: ResidenceDeps, partner: Partner, input: ReserveInput, pricing: CatalogueDeps): Promise<ReservationView> {
  const [p] = isStorableId(input.property_id) ? await deps.db.select().from(properties).where(eq(properties.id, input.property_id)) : [];
  if (!p) throw validation('property_id', `no property ${input.property_id}`);
  checkStay(p, input.check_in, input.check_out, input.guests, new Date());
  // A wallet in a currency without a current rate from the catalogue's is refused before the dates are held.
  await catalogueToWallet(pricing, new Date());
  const currency = pricing.currency;
  const holdRef = `residence-hold:${crypto.randomUUID()}`;
  const started = await startOrJoin(deps.temporal, 'reserveResidence', {
    workflowId: holdRef,
    taskQueue: deps.taskQueue,
    args: [
      {
        partnerId: partner.id,
        holdRef,
        propertyId: p.id,
        checkIn: input.check_in,
        checkOut: input.check_out,
        guests: input.guests,
        leadGuest: input.lead_guest,
        ttlMs: deps.holdTtlMs,
        currency,
        autoAcceptCancelMs: deps.autoAcceptCancelMs,
      },
    ],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, service: 'residence', stage: 'holding' }),
  });
  const held = await awaitWorkflow(started.handle, deps.waitMs, workflowAnswer('datesHold'), {
    inProcess: inProcessOutcome(deps.outcomes, started),
  });
  if (!held) throw new DomainError('supplier_failed', 'the dates could not be held in time; try again');
  return viewReservation(deps.db, await reservationOf(deps.db, partner.id, held.reservationId));
}

export async function detail(db: Db, partner: Partner, id: number): Promise<ReservationView> {
  return viewReservation(db, await reservationOf(db, partner.id, id, 'read'));
}

export async function book(db: Db, partner: Partner, id: number): Promise<{ order: OrderRow; reservation: ReservationRow }> {
  return bookReservation(db, partner.id, id);
}

/** What a cancellation request came to: released at once (an unpaid hold), or requested of the host. */
export interface CancelOutcome {
  reservation: ReservationRow;
  kind: 'released' | 'requested';
  refundMinor: number;
}

/** POST /api/residence/bookings/cancel/: an unpaid hold is released; a paid stay waits for the host. */
export async function cancel(deps: ResidenceDeps, partner: Partner, id: number): Promise<CancelOutcome> {
  const r = await reservationOf(deps.db, partner.id, id);
  try {
    const result = await deps.temporal.workflow.getHandle(reservationWorkflowId(r.id)).executeUpdate(requestCancelUpdate, { args: [] });
    return { reservation: r, ...result };
  } catch (err) {
    throw updateFailure(err);
  }
}

/** The host accepts a cancellation (operators, or the partner standing in for the host in the sandbox). */
export async function acceptCancel(deps: ResidenceDeps, reservationId: number, partnerId: number | null, operator: string): Promise<ReservationView> {
  const r = partnerId === null ? await reservationAny(deps.db, reservationId) : await reservationOf(deps.db, partnerId, reservationId);
  if (r.status !== 'cancel_requested') throw validation('reservation_id', `reservation ${r.id} is ${r.status}, not cancel_requested`);
  const handle = deps.temporal.workflow.getHandle<Workflows['residenceReservation']>(reservationWorkflowId(r.id));
  await handle.signal(acceptCancelSignal, { operator });
  await awaitWorkflow(handle, deps.waitMs, workflowAnswer('everyWorkflow'));
  return viewReservation(deps.db, await reservationAny(deps.db, r.id));
}

async function reservationAny(db: Db, id: number) {
  const [r] = isStorableId(id) ? await db.select().from(reservations).where(eq(reservations.id, id)) : [];
  if (!r) throw new DomainError('not_found', `reservation ${id} not found`);
  return r;
}

/** POST /api/residence/bookings/modify/ (extension): new dates or guests, re-priced, the difference through the wallet. */
export async function modify(
  deps: ResidenceDeps,
  partner: Partner,
  id: number,
  change: StayChange,
): Promise<{ change: ModificationResult; reservation: ReservationView }> {
  const r = await reservationOf(deps.db, partner.id, id);
  try {
    const result = await deps.temporal.workflow.getHandle(reservationWorkflowId(r.id)).executeUpdate(modifyStayUpdate, { args: [change] });
    return { change: result, reservation: await viewReservation(deps.db, await reservationOf(deps.db, partner.id, id)) };
  } catch (err) {
    throw updateFailure(err);
  }
}
