import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  log,
  ParentClosePolicy,
  startChild,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { BookingActivities } from '../activities';
import { LEDGER_STEP, SUPPLIER_STEP } from './activity-options';
import { FailureType } from './failure-types';
import { PayFailure, type FollowUp, type PayInput, type PayResult } from './pay.types';
import { OrderStatus, Stage, type StageName } from './search-attributes';

const ledger = proxyActivities<BookingActivities>(LEDGER_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

function stage(name: StageName, status?: string): void {
  upsertSearchAttributes([{ key: Stage, value: name }, ...(status ? [{ key: OrderStatus, value: status }] : [])]);
}

const businessType = (err: unknown): string | undefined =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;

async function startFollowUp(f: FollowUp): Promise<void> {
  try {
    await startChild(f.workflowType, { workflowId: f.workflowId, args: f.args, parentClosePolicy: ParentClosePolicy.ABANDON });
  } catch (err) {
    // A retried payment run finds it already started.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * The payment saga: debit the wallet → finalize with the supplier → complete the order.
 * If any step fails for good, the compensations run (last in, first out) and the
 * workflow fails, so its id (derived from the idempotency key) can be used again.
 */
export async function payOrder(input: PayInput): Promise<PayResult> {
  const { workflowId, runId } = workflowInfo();
  const run = { workflowId, runId };
  const compensations: Array<() => Promise<unknown>> = [];
  let reason = 'payment failed';
  // A hold that is gone (expired at the hotel) cannot be paid again: the order fails instead of returning to pending.
  let releaseTo: 'pending' | 'failed' = 'pending';

  try {
    stage('debiting', 'processing');
    // Registered before the step: a debit that committed but whose answer was lost must still be undone.
    compensations.push(() => ledger.reversePayment({ ...run, orderId: input.orderId, reason, releaseTo }));
    const debit = await ledger.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId });

    stage('finalizing');
    const finalized = await supplier.finalizeOrder({
      orderId: input.orderId,
      clientReference: `${workflowId}/${runId}`,
      scenario: input.scenario,
    });

    stage('completing');
    await ledger.completeOrder({ ...run, orderId: input.orderId, supplierRef: finalized.supplierRef });
    if (finalized.followUp) await startFollowUp(finalized.followUp);
    stage('done', 'completed');
    return {
      orderId: debit.orderId,
      orderStatus: 'completed',
      ledgerId: debit.ledgerId,
      amountMinor: debit.amountMinor,
      balanceAfterMinor: debit.balanceAfterMinor,
      availableAfterMinor: debit.availableAfterMinor,
      currency: debit.currency,
      supplierRef: finalized.supplierRef,
    };
  } catch (err) {
    const type = businessType(err);
    const message = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    reason = message;
    if (type === FailureType.supplierGone) releaseTo = 'failed';
    stage('compensating');
    log.warn('payment failed; compensating', { orderId: input.orderId, type, message });
    await CancellationScope.nonCancellable(async () => {
      for (const undo of compensations.reverse()) await undo();
    });
    stage('failed');
    if (type === PayFailure.insufficientCredit || type === PayFailure.notPayable) {
      throw ApplicationFailure.nonRetryable(message, type);
    }
    throw ApplicationFailure.nonRetryable(`the supplier could not finalize order ${input.orderId} (${message}); the debit was reversed`, PayFailure.reversed);
  }
}
