import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import type { FlightAfterSale } from '../../suppliers/flight-after-sale';
import { logError, logInfo } from '../../platform/log';
import { awaitWorkflow, bookingAttributes, startOrJoin } from '../../temporal/workflows';
import {
  decideScheduleChangeUpdate,
  scheduleChangeStateQuery,
  scheduleChangeWorkflowId,
  type ScheduleChangeDecision,
  type ScheduleChangeResult,
} from '../../../workflows/schedule-change.types';
import { ScheduleChangeId } from '../../../workflows/search-attributes';
import { DomainError, workflowAnswer } from '../errors';
import { flightOrderOf } from './bookings';
import { knownScheduleChange, ordersToFly, pendingScheduleChange, type ScheduleChangeRow } from './schedule-changes';

/** Where schedule-change workflows are started. */
export interface ScheduleChangeStarter {
  temporal: Client;
  taskQueue: string;
}

/**
 * Starts the workflow of an airline's change to an order, or joins it: its id is the order
 * and the change, so a change announced twice and found by the poll is one workflow. A
 * workflow of that id that has ended is not run again (`keep_outcome`).
 */
export async function startScheduleChange(deps: ScheduleChangeStarter, run: { orderId: number; partnerId: number; changeId: string }): Promise<void> {
  await startOrJoin(
    deps.temporal,
    'scheduleChange',
    {
      workflowId: scheduleChangeWorkflowId(run.orderId, run.changeId),
      taskQueue: deps.taskQueue,
      args: [{ orderId: run.orderId, changeId: run.changeId }],
      typedSearchAttributes: [
        ...bookingAttributes({ partnerId: run.partnerId, orderId: run.orderId, service: 'flight', stage: 'waiting' }),
        { key: ScheduleChangeId, value: run.changeId },
      ],
    },
    'keep_outcome',
  );
}

/** What the poll asks: the orders, and the supplier that holds each. */
export interface ScheduleChangePollDeps extends ScheduleChangeStarter {
  db: Db;
  afterSaleOf(supplier: string): FlightAfterSale;
}

/**
 * One round of the poll: every issued flight order still to fly is asked for the airline's
 * changes, and each change the engine does not know yet, and that nobody has acted on at the
 * airline, gets its workflow. An order whose supplier cannot be asked is logged and skipped
 * (the next round asks again). Answers the workflows it started or joined.
 */
export async function pollScheduleChanges(deps: ScheduleChangePollDeps, now = new Date()): Promise<string[]> {
  const started: string[] = [];
  let after = 0;
  for (;;) {
    const page = await ordersToFly(deps.db, now, after, 200);
    if (page.length === 0) return started;
    for (const o of page) {
      after = o.orderId;
      const supplierOrderId = o.supplierOrderId ?? o.pnr;
      if (!supplierOrderId) continue;
      try {
        const changes = await deps.afterSaleOf(o.supplier).scheduleChanges(supplierOrderId);
        for (const change of changes) {
          if (change.action_taken !== null || (await knownScheduleChange(deps.db, o.orderId, change.change_id))) continue;
          await startScheduleChange(deps, { orderId: o.orderId, partnerId: o.partnerId, changeId: change.change_id });
          logInfo('airline schedule change found by the poll', { orderId: o.orderId, changeId: change.change_id });
          started.push(scheduleChangeWorkflowId(o.orderId, change.change_id));
        }
      } catch (err) {
        logError('asking the airline for schedule changes failed; the next round asks again', err, { orderId: o.orderId });
      }
    }
  }
}

/**
 * Waits, up to `waitMs`, until each of these schedule-change workflows has recorded its change
 * and told the partner (its step is past `recording`): what an operator who asked for a poll
 * round reads next is then there.
 */
export async function untilRecorded(temporal: Client, workflowIds: string[], waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (const id of workflowIds) {
    for (;;) {
      const state = await temporal.workflow
        .getHandle(id)
        .query(scheduleChangeStateQuery)
        .catch(() => null);
      if ((state && state.step !== 'recording') || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The partner's decision, signalled to the change's workflow and awaited up to `waitMs`: the outcome, or null while it is under way. */
export async function decideScheduleChange(
  deps: ScheduleChangeStarter & { db: Db; waitMs: number },
  partnerId: number,
  input: ScheduleChangeDecision & { order_id: number },
): Promise<{ row: ScheduleChangeRow; workflowId: string; result: ScheduleChangeResult | null }> {
  await flightOrderOf(deps.db, partnerId, input.order_id);
  const row = await pendingScheduleChange(deps.db, input.order_id);
  const workflowId = scheduleChangeWorkflowId(row.orderId, row.changeId);
  const handle = deps.temporal.workflow.getHandle(workflowId);
  try {
    await handle.executeUpdate(decideScheduleChangeUpdate, {
      args: [{ decision: input.decision, actor: input.actor ?? null, ...(input.scenario ? { scenario: input.scenario } : {}) }],
    });
  } catch (err) {
    // The validator's refusal (already decided, or an action the airline does not offer) is the partner's to read.
    const cause = (err as { cause?: { message?: string } }).cause;
    if ((err as Error).name === 'WorkflowUpdateFailedError')
      throw new DomainError('validation', `decision: ${cause?.message ?? (err as Error).message}`, 'decision');
    throw err;
  }
  const result = await awaitWorkflow(deps.temporal.workflow.getHandle(workflowId), deps.waitMs, workflowAnswer('flightRefund'));
  return { row, workflowId, result: result as ScheduleChangeResult | null };
}
