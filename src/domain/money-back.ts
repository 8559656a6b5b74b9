/** Money back on a paid travel order, run: the workflow that gives it, started and awaited. */
import type { Client } from '@temporalio/client';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrJoin, inProcessOutcome } from '../temporal/workflows';
import type { Workflows } from '../../workflows/registry.types';
import type { MoneyBackOutcome, RefundResult } from './refund-terms';

/** The workflows that give money back on an order: each answers a RefundResult (checked here). */
type MoneyBackWorkflow = 'refundFlight' | 'cancelHotelOrder';
const answersRefundResult: ReturnType<Workflows[MoneyBackWorkflow]> extends Promise<RefundResult> ? true : never = true;
void answersRefundResult;

/**
 * Starts (or joins) an order's money-back workflow and waits for it up to `waitMs`: credited,
 * or still with the supplier. `refusal` turns the workflow's business failures into the
 * partner's answer.
 */
export async function giveMoneyBack<K extends MoneyBackWorkflow>(
  deps: { temporal: Client; taskQueue: string; waitMs: number; outcomes?: WorkflowOutcomes | undefined },
  run: {
    workflowType: K;
    workflowId: string;
    args: Parameters<Workflows[K]>;
    partnerId: number;
    orderId: number;
    service: 'flight' | 'hotel';
    refusal: (f: { type: string; message: string }) => Error | null;
  },
): Promise<MoneyBackOutcome> {
  const started = await startOrJoin(deps.temporal, run.workflowType, {
    workflowId: run.workflowId,
    taskQueue: deps.taskQueue,
    args: run.args,
    typedSearchAttributes: bookingAttributes({ partnerId: run.partnerId, orderId: run.orderId, service: run.service, stage: 'cancelling' }),
  } as Parameters<typeof startOrJoin<K>>[2]);
  const result = (await awaitWorkflow(started.handle, deps.waitMs, run.refusal, {
    inProcess: inProcessOutcome(deps.outcomes, started),
  })) as RefundResult | null;
  return result ? { done: true, result } : { done: false, orderId: run.orderId, workflowId: run.workflowId };
}
