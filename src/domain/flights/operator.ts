import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { offlineRefundWorkflowId, refundDecisionSignal, type RefundDecision } from '../../../workflows/flight.types';
import { DomainError, notFound, workflowAnswer } from '../errors';
import { isStorableId } from '../ids';
import { formatDecimal } from '../money/money';
import { getOrder, type OrderRow } from '../orders';
import type { FlightRefundResult } from './refunds';
import { awaitWorkflow, signalWithStart } from '../../temporal/workflows';
import type { Workflows } from '../../../workflows/registry.types';

/**
 * An operator's decision on an offline refund: signals the waiting workflow (starting it
 * if the request's workflow was never started, e.g. after a crash) and waits for it.
 */
/** The decision as taken: the order, and the refund workflow's outcome (null while it is still deciding). */
export interface OfflineRefundDecision {
  order: OrderRow;
  workflowId: string;
  outcome: { approved: boolean; result: FlightRefundResult | null } | null;
}

export async function decideOfflineRefund(
  deps: { db: Db; temporal: Client; taskQueue: string; waitMs: number },
  orderId: number,
  decision: RefundDecision,
): Promise<OfflineRefundDecision> {
  const order = isStorableId(orderId) ? await getOrder(deps.db, orderId) : undefined;
  if (!order || order.service !== 'flight') throw notFound(`flight order ${orderId}`);
  if (order.status !== 'refund_requested') throw new DomainError('validation', `order ${orderId} is ${order.status}, not refund_requested`);
  if (decision.approve && (decision.amountMinor === undefined || decision.amountMinor > order.totalPrice)) {
    throw new DomainError('validation', `amount: at most what the order cost, ${formatDecimal(order.totalPrice, order.currency)}`);
  }
  const workflowId = offlineRefundWorkflowId(orderId);
  await signalWithStart(deps.temporal, 'offlineFlightRefund', {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [{ orderId }],
    signal: refundDecisionSignal,
    signalArgs: [decision],
  });
  const outcome = await awaitWorkflow(
    deps.temporal.workflow.getHandle<Workflows['offlineFlightRefund']>(workflowId),
    deps.waitMs,
    workflowAnswer('everyWorkflow'),
  );
  return { order, workflowId, outcome };
}
