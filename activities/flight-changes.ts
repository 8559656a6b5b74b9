import { ApplicationFailure, Context } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../src/db/client';
import { scheduleChanges } from '../src/db/schema';
import { scheduleChangeWorkflowId } from '../workflows/schedule-change.types';
import {
  completeChange,
  debitChange,
  flightChangeById,
  noteSupplierChange,
  undoChange,
  type ChangedAtAirline,
  type ChangeRun,
  type FlightChangeRow,
} from '../src/domain/flights/changes';
import { flightBookingOfOrder, supplierOrderIdOf } from '../src/domain/flights/bookings';
import { bagsOn } from '../src/domain/flights/order-services';
import { DomainError } from '../src/domain/errors';
import type { FlightAfterSale } from '../src/suppliers/flight-after-sale';
import type { FlightOrder, FlightSupplier } from '../src/suppliers/flights';
import { withScenario } from '../src/sandbox/context';
import { SupplierRejectedError, SupplierUnavailableError } from '../src/suppliers/errors';
import { runActivityStep } from './failures';
import { DEFAULT_FINALIZE_ATTEMPTS } from '../workflows/activity-options';
import { OUTCOME_UNKNOWN } from '../workflows/failure-types';

/**
 * A step whose failure is no answer (a timeout, a 5xx, a read the airline refused after a
 * try that may have made the change) is retried with backoff until `attempts` are spent,
 * then handed back as unknown: the workflow parks for an operator instead of guessing.
 */
async function outcomeOpenAfter<T>(attempts: number, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const attempt = Context.current().info.attempt;
    if (err instanceof DomainError || err instanceof SupplierRejectedError || attempt < attempts) throw err;
    throw ApplicationFailure.nonRetryable(`no answer from the airline after ${attempt} attempts: ${(err as Error).message}`, OUTCOME_UNKNOWN);
  }
}

/** A flight change's steps: its debit and its undo, the change at the airline, and its completion. */
export function flightChangeActivities(
  db: Db,
  supplierOf: (name: string) => FlightSupplier,
  afterSaleOf: (name: string) => FlightAfterSale,
  /** After how many attempts without the airline's answer the outcome counts as unknown (FINALIZE_ATTEMPTS for flights): the workflow then parks. */
  attempts: number = DEFAULT_FINALIZE_ATTEMPTS,
) {
  /**
   * The change made from the offer, if one was. On any try but the very first (the first
   * attempt of the workflow's first round) a refused lookup is no answer: a try before may
   * have made and confirmed the change, so it is tried again, then parked, never credited back.
   */
  async function lookUp(airline: FlightAfterSale, changeOfferId: string, round: number) {
    try {
      return await airline.findChange(changeOfferId);
    } catch (err) {
      if (err instanceof SupplierRejectedError && (round > 1 || Context.current().info.attempt > 1))
        throw new SupplierUnavailableError(`the airline did not let the change from offer ${changeOfferId} be looked up: ${err.message}`);
      throw err;
    }
  }

  /** Makes and confirms the change from the offer, each step looked up first: the change made from it, then whether it is confirmed. */
  async function changeFlights(airline: FlightAfterSale, change: FlightChangeRow, round: number): Promise<string> {
    let made = (await lookUp(airline, change.changeOfferId!, round)) ?? (await airline.createChange(change.changeOfferId!));
    await noteSupplierChange(db, change.id, made.change_id);
    if (!made.confirmed_at) {
      made = await airline.confirmChange(made.change_id, { amount: { amount_minor: change.supplierAmount, currency: change.supplierCurrency } });
    }
    return made.change_id;
  }

  /**
   * The airline's order, read around the change. Its refusal to be read is no refusal of the
   * change, which may already be made (this try's, or a lost one's): the step is tried
   * again, then parks for an operator, and the debit is never credited back for it.
   */
  async function airlineOrder(orders: FlightSupplier, airlineOrderId: string): Promise<FlightOrder> {
    try {
      return await orders.order(airlineOrderId);
    } catch (err) {
      if (err instanceof SupplierRejectedError) throw new SupplierUnavailableError(`the airline did not let order ${airlineOrderId} be read: ${err.message}`);
      throw err;
    }
  }

  /** Adds the bags unless the order already has them: more bags than it had before by what was asked. */
  async function addBags(airline: FlightAfterSale, change: FlightChangeRow, airlineOrderId: string, order: FlightOrder): Promise<boolean> {
    const asked = change.services.reduce((n, s) => n + s.quantity, 0);
    if (bagsOn(order) >= (change.bagsBefore ?? 0) + asked) return false;
    await airline.addServices(airlineOrderId, {
      services: change.services,
      amount: { amount_minor: change.supplierAmount, currency: change.supplierCurrency },
    });
    return true;
  }

  /**
   * Makes the change at the airline: other flights, or bags. Every try asks first what
   * became of the last, so an answer lost on the way back is found, not repeated. Answers
   * the order as the airline now has it.
   */
  async function changeAtAirline(input: { changeId: number; round?: number }): Promise<ChangedAtAirline> {
    const change = await flightChangeById(db, input.changeId);
    if (change.status === 'failed') throw new DomainError('conflict', `change ${change.id} failed: ${change.failure ?? 'see its workflow'}`);
    const booking = await flightBookingOfOrder(db, change.orderId);
    const airlineOrderId = booking ? supplierOrderIdOf(booking) : null;
    if (!airlineOrderId) throw new DomainError('not_found', `no airline order for order ${change.orderId}`);
    const airline = afterSaleOf(change.supplier);
    const orders = supplierOf(change.supplier);
    let supplierChangeId: string | null = null;
    if (change.kind === 'services') await addBags(airline, change, airlineOrderId, await airlineOrder(orders, airlineOrderId));
    else supplierChangeId = await changeFlights(airline, change, input.round ?? 1);
    const order = await airlineOrder(orders, airlineOrderId);
    return { supplierChangeId, order: { legs: order.legs, tickets: order.tickets, total: order.total, services: order.services ?? [] } };
  }

  return {
    debitFlightChange: (run: ChangeRun) => runActivityStep(() => debitChange(db, run)),
    undoFlightChange: (run: ChangeRun & { reason: string }) => runActivityStep(() => undoChange(db, run)),

    /** The change at the airline, its outcome counted unknown once its attempts are spent. */
    changeAtAirline: (input: { changeId: number; round?: number; scenario?: string }) =>
      runActivityStep(() => withScenario(input.scenario, () => outcomeOpenAfter(attempts, () => changeAtAirline(input)))),

    completeFlightChange: (input: ChangeRun & ChangedAtAirline) => runActivityStep(() => completeChange(db, input)),

    /** The airline's schedule change of the order still waiting for a decision, if any: the one a change of the partner's replaces. */
    pendingScheduleChangeOf: (orderId: number) =>
      runActivityStep(async () => {
        const [row] = await db
          .select({ changeId: scheduleChanges.changeId })
          .from(scheduleChanges)
          .where(and(eq(scheduleChanges.orderId, orderId), eq(scheduleChanges.status, 'pending')));
        return row ? { workflowId: scheduleChangeWorkflowId(orderId, row.changeId) } : null;
      }),
  };
}
