import type { Client } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { orders } from '../../db/schema';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrJoin, inProcessOutcome } from '../../temporal/workflows';
import { workflowAnswer } from '../errors';
import { recordChange, type ChangeDeps, type FlightChangeRow } from './changes';
import type { SecretBox } from '../../platform/secret-box';

/** A change as the partner is answered: where it stands, and the order's price once it is made. */
export interface ChangeAnswer {
  changeId: number;
  orderId: number;
  status: FlightChangeRow['status'];
  totalMinor: number;
  orderTotalMinor: number | null;
  currency: string;
}

const answerOf = (change: FlightChangeRow, orderTotalMinor: number | null): ChangeAnswer => ({
  changeId: change.id,
  orderId: change.orderId,
  status: change.status,
  totalMinor: change.totalMinor,
  orderTotalMinor,
  currency: change.currency,
});

/** What running a change needs: Temporal, its task queue, and how long a request waits for it. */
export interface RunDeps {
  db: DbOrTx;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  outcomes?: WorkflowOutcomes | undefined;
}

/**
 * A recorded change made: its workflow started (or joined, for the same key) and awaited up
 * to the bound: made, or still with the airline. A change already made answers from its row;
 * one that failed answers its workflow's failure, and is never run again for the same key.
 */
export async function runChange(deps: RunDeps, change: FlightChangeRow, scenario?: string): Promise<{ done: boolean; change: ChangeAnswer }> {
  if (change.status === 'confirmed') {
    const [order] = await deps.db.select({ total: orders.totalPrice }).from(orders).where(eq(orders.id, change.orderId));
    return { done: true, change: answerOf(change, order?.total ?? null) };
  }
  const started = await startOrJoin(
    deps.temporal,
    'changeFlight',
    {
      workflowId: change.workflowId,
      taskQueue: deps.taskQueue,
      args: [{ changeId: change.id, orderId: change.orderId, kind: change.kind, ...(scenario ? { scenario } : {}) }],
      typedSearchAttributes: bookingAttributes({ partnerId: change.partnerId, orderId: change.orderId, service: 'flight', stage: 'debiting' }),
    },
    'keep_outcome',
  );
  const result = await awaitWorkflow(started.handle, deps.waitMs, workflowAnswer('flightChange'), { inProcess: inProcessOutcome(deps.outcomes, started) });
  if (!result) return { done: false, change: answerOf(change, null) };
  return { done: true, change: { ...answerOf(change, result.orderTotalMinor), status: result.status } };
}

/** POST /api/flights/air_change_confirm/: the change the partner chose, recorded at the price it was shown, then made. */
export const confirmChange = async (
  deps: RunDeps & ChangeDeps & { codes: SecretBox },
  partnerId: number,
  input: { order_id: number; change_offer_id: string; idempotency_key: string },
  now: Date,
  scenario?: string,
) => runChange(deps, await recordChange(deps, partnerId, input, now), scenario);
