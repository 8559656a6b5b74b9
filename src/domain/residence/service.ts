import crypto from 'node:crypto';
import { ApplicationFailure, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { properties, reservations } from '../../db/schema';
import { acceptCancelSignal, modifyStayUpdate, requestCancelUpdate, reservationWorkflowId, type StayChange } from '../../../workflows/residence.types';
import { DomainError, validation } from '../errors';
import { isStorableId } from '../ids';
import { formatDecimal } from '../money';
import { renderTravelOrder } from '../orders';
import type { Partner } from '../partners';
import { awaitWorkflow, bookingAttributes, startOrJoin } from '../../temporal/workflows';
import type { Workflows } from '../../../workflows/registry.types';
import { bookReservation } from './booking';
import { reservationOf } from './reservations';
import { checkStay } from './stay-rules';
import { renderReservation } from './view';

export interface ResidenceDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
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

/** A refusal raised inside a workflow update (validator or activity) as the domain error the interface renders. */
function updateFailure(err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  for (let cause: unknown = err.cause; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure) {
      if (cause.type === 'insufficient_credit') return new DomainError('insufficient_credit', cause.message);
      if (cause.type === 'not_found') return new DomainError('not_found', cause.message);
      return new DomainError(
        'validation',
        cause.message.startsWith('reservation_id') || cause.message.includes(': ') ? cause.message : `reservation_id: ${cause.message}`,
      );
    }
  }
  return err;
}

/** POST /api/residence/reserve/: the dates are checked, then held by a workflow that starts the reservation's lifecycle. */
export async function reserve(deps: ResidenceDeps, partner: Partner, input: ReserveInput, currency: string) {
  const [p] = isStorableId(input.property_id) ? await deps.db.select().from(properties).where(eq(properties.id, input.property_id)) : [];
  if (!p) throw validation('property_id', `no property ${input.property_id}`);
  checkStay(p, input.check_in, input.check_out, input.guests, new Date());
  const holdRef = `residence-hold:${crypto.randomUUID()}`;
  const handle = await startOrJoin(deps.temporal, 'reserveResidence', {
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
  const held = await awaitWorkflow(handle, deps.waitMs, (f) => (f.type === 'validation' ? new DomainError('validation', f.message) : null));
  if (!held) throw new DomainError('supplier_failed', 'the dates could not be held in time; try again');
  return renderReservation(deps.db, await reservationOf(deps.db, partner.id, held.reservationId), new Date());
}

export async function detail(db: Db, partner: Partner, id: number) {
  return renderReservation(db, await reservationOf(db, partner.id, id), new Date());
}

export async function book(db: Db, partner: Partner, id: number) {
  const { order, reservation } = await bookReservation(db, partner.id, id);
  return { ...renderTravelOrder(order), reservation_id: reservation.id, hold_expires_at: reservation.expiresAt.toISOString() };
}

/** POST /api/residence/bookings/cancel/: an unpaid hold is released; a paid stay waits for the host. */
export async function cancel(deps: ResidenceDeps, partner: Partner, id: number) {
  const r = await reservationOf(deps.db, partner.id, id);
  try {
    const result = await deps.temporal.workflow.getHandle(reservationWorkflowId(r.id)).executeUpdate(requestCancelUpdate, { args: [] });
    return {
      reservation_id: r.id,
      status: result.kind === 'released' ? 'cancelled' : 'cancel_requested',
      refund_amount: formatDecimal(result.refundMinor, r.currency),
      currency: r.currency,
    };
  } catch (err) {
    throw updateFailure(err);
  }
}

/** The host accepts a cancellation (operators, or the partner standing in for the host in the sandbox). */
export async function acceptCancel(deps: ResidenceDeps, reservationId: number, partnerId: number | null, operator: string) {
  const r = partnerId === null ? await reservationAny(deps.db, reservationId) : await reservationOf(deps.db, partnerId, reservationId);
  if (r.status !== 'cancel_requested') throw validation('reservation_id', `reservation ${r.id} is ${r.status}, not cancel_requested`);
  const handle = deps.temporal.workflow.getHandle<Workflows['residenceReservation']>(reservationWorkflowId(r.id));
  await handle.signal(acceptCancelSignal, { operator });
  await awaitWorkflow(handle, deps.waitMs, () => null);
  return renderReservation(deps.db, await reservationAny(deps.db, r.id), new Date());
}

async function reservationAny(db: Db, id: number) {
  const [r] = isStorableId(id) ? await db.select().from(reservations).where(eq(reservations.id, id)) : [];
  if (!r) throw new DomainError('not_found', `reservation ${id} not found`);
  return r;
}

/** POST /api/residence/bookings/modify/ (extension): new dates or guests, re-priced, the difference through the wallet. */
export async function modify(deps: ResidenceDeps, partner: Partner, id: number, change: StayChange) {
  const r = await reservationOf(deps.db, partner.id, id);
  try {
    const result = await deps.temporal.workflow.getHandle(reservationWorkflowId(r.id)).executeUpdate(modifyStayUpdate, { args: [change] });
    const c = result.currency;
    return {
      reservation_id: r.id,
      previous_total: formatDecimal(result.previousTotalMinor, c),
      new_total: formatDecimal(result.newTotalMinor, c),
      difference: formatDecimal(result.differenceMinor, c),
      currency: c,
      ledger_id: result.ledgerId,
      reservation: await renderReservation(deps.db, await reservationOf(deps.db, partner.id, id), new Date()),
    };
  } catch (err) {
    throw updateFailure(err);
  }
}
