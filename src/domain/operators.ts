import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { ledgerEntries } from '../db/schema';
import { OPERATOR_DECISION_SIGNAL, PAY_STATE_QUERY, type OperatorDecision, type PayState } from '../../workflows/pay.types';
import { DomainError, notFound } from './errors';
import { isStorableId } from './ids';
import { formatDecimal } from './money';
import { getOrder, renderTravelOrder } from './orders';

export interface OperatorDeps {
  db: Db;
  temporal: Client;
  waitMs: number;
}

async function paymentOf(temporal: Client, workflowId: string | null) {
  if (!workflowId) return null;
  const handle = temporal.workflow.getHandle(workflowId);
  try {
    const d = await handle.describe();
    const running = d.status.name === 'RUNNING';
    const state = running ? await handle.query<PayState>(PAY_STATE_QUERY) : null;
    return { workflow_id: workflowId, run_id: d.runId, status: d.status.name, state };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { workflow_id: workflowId, run_id: null, status: 'NOT_FOUND', state: null };
    throw err;
  }
}

/** `admin order inspect`: the order, its money, and where its payment workflow stands (step, last error). */
export async function inspectOrder(deps: OperatorDeps, orderId: number) {
  const order = isStorableId(orderId) ? await getOrder(deps.db, orderId) : undefined;
  if (!order) throw notFound(`order ${orderId}`);
  const ledger = await deps.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id));
  return {
    order: { ...renderTravelOrder(order), partner_id: order.partnerId },
    ledger: ledger.map((l) => ({ id: l.id, type: l.type, direction: l.direction, amount: formatDecimal(l.amount, order.currency), step: l.step, workflow_id: l.workflowId, at: l.createdAt.toISOString() })),
    payment: await paymentOf(deps.temporal, order.paymentWorkflowId),
  };
}

/**
 * The decisions that do not apply where the payment is parked (docs/decisions.md, "Bounded
 * steps and the pivot rule"). After the supplier confirmed, the partner has what was paid
 * for: the payment is never compensated, only completed (retry, or confirm, which does the
 * same). While a failed payment's debit is being reversed, there is nothing to confirm.
 */
function refuseAfterPivot(orderId: number, state: PayState, action: OperatorDecision['action']): void {
  if (state.parkedAt === 'completing' && action === 'compensate') {
    throw new DomainError(
      'conflict',
      `order ${orderId}: the supplier confirmed this payment (${state.supplierRef ?? 'reference recorded by the workflow'}), so it is never compensated; ` +
        `retry the completion (order retry) once its cause (${state.lastError ?? 'see the last error'}) is fixed; to give the money back, cancel or refund the order through its service`,
    );
  }
  if (state.parkedAt === 'compensating' && action === 'confirm') {
    throw new DomainError('conflict', `order ${orderId}: this payment failed and its debit is being reversed, so there is nothing to confirm; retry the reversal (order retry)`);
  }
}

/**
 * `admin order retry|confirm|compensate`: only for a payment parked in needs_attention;
 * the decision is signalled to its workflow, which then finishes one way or the other.
 */
export async function decidePayment(deps: OperatorDeps, orderId: number, decision: OperatorDecision) {
  const before = await inspectOrder(deps, orderId);
  const state = before.payment?.state;
  if (state?.step !== 'needs_attention') {
    throw new DomainError('validation', `order ${orderId}: its payment is not waiting for an operator (step ${state?.step ?? 'none'}, order ${before.order.status})`);
  }
  refuseAfterPivot(orderId, state, decision.action);
  const handle = deps.temporal.workflow.getHandle(before.payment!.workflow_id);
  await handle.signal(OPERATOR_DECISION_SIGNAL, decision);
  // Wait (bounded) for the decision to take effect, then show the order as it is.
  const deadline = Date.now() + deps.waitMs;
  for (;;) {
    const now = await inspectOrder(deps, orderId);
    const settled = now.order.status !== 'processing' || now.payment?.state?.step !== 'needs_attention';
    if ((settled && now.order.status !== 'processing') || Date.now() > deadline) return { action: decision.action, ...now };
    await new Promise((r) => setTimeout(r, 200));
  }
}
