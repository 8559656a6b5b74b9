import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  log,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { PayFailure, type PayInput, type PayResult } from './pay.types';
import { OrderStatus, Stage, type StageName } from './search-attributes';

// Database steps: quick, retried until the database answers; business refusals are final.
const LEDGER: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: {
    initialInterval: '200ms',
    maximumInterval: '10s',
    nonRetryableErrorTypes: [PayFailure.insufficientCredit, PayFailure.notPayable, 'conflict', 'validation', 'not_found'],
  },
};

// The supplier: transient errors (5xx, timeouts) are retried with backoff; a rejection is final.
const SUPPLIER: ActivityOptions = {
  startToCloseTimeout: '2m',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['supplier_rejected'],
  },
};

const ledger = proxyActivities<PaymentActivities>(LEDGER);
const supplier = proxyActivities<PaymentActivities>(SUPPLIER);

function stage(name: StageName, status?: string): void {
  upsertSearchAttributes([{ key: Stage, value: name }, ...(status ? [{ key: OrderStatus, value: status }] : [])]);
}

const businessType = (err: unknown): string | undefined =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;

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

  try {
    stage('debiting', 'processing');
    // Registered before the step: a debit that committed but whose answer was lost must still be undone.
    compensations.push(() => ledger.reversePayment({ ...run, orderId: input.orderId, reason }));
    const debit = await ledger.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId });

    stage('finalizing');
    const finalized = await supplier.finalizeOrder({
      orderId: input.orderId,
      clientReference: `${workflowId}/${runId}`,
      scenario: input.scenario,
    });

    stage('completing');
    await ledger.completeOrder({ ...run, orderId: input.orderId, supplierRef: finalized.supplierRef });
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
