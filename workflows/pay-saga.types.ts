import type { DebitResult } from './pay.types';
import type { FollowUp } from './registry.types';
import type { StepDefinitions } from './saga.types';

/** What the payment's steps work on: its run, its order, its reference at the supplier (the same for every try). */
export interface PayStepsInput {
  workflowId: string;
  runId: string;
  orderId: number;
  partnerId: number;
  clientReference: string;
  scenario?: string;
}

/** What each of the payment's steps returns: the supplier step its reference, its attempts and any work to start after the payment. */
export interface PayStepResults {
  debit: DebitResult;
  finalize: { supplierRef: string; followUp?: FollowUp; attempts?: number };
  complete: unknown;
}

/**
 * The payment's steps as activities: debit the wallet, the supplier step (ship, confirm,
 * ticket, submit), complete the order. The workflow (workflows/pay.workflow.ts) runs them as
 * a saga; the worker runs them first together, as the local activity `payFastPath`.
 */
export const PAY_STEPS = {
  debit: {
    activity: 'debitForOrder',
    args: ({ workflowId, runId, orderId, partnerId }: PayStepsInput) => ({ workflowId, runId, orderId, partnerId }),
  },
  finalize: {
    activity: 'finalizeOrder',
    args: ({ orderId, clientReference, scenario }: PayStepsInput) => ({ orderId, clientReference, scenario }),
  },
  complete: {
    activity: 'completeOrder',
    args: ({ workflowId, runId, orderId }: PayStepsInput, done: Partial<PayStepResults>) => ({
      workflowId,
      runId,
      orderId,
      supplierRef: done.finalize!.supplierRef,
    }),
  },
} as const satisfies StepDefinitions<PayStepsInput, PayStepResults>;
