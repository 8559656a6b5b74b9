import type { FollowUp } from './registry.types';

/** What the payment's fast path (activities/pay-fast-path.ts) works on: the run, its order, the supplier's client reference. */
export interface FastPathInput {
  workflowId: string;
  runId: string;
  orderId: number;
  partnerId: number;
  clientReference: string;
  scenario?: string;
}

/** How a step of the fast path failed: as the step's own activity would have failed (activities/failures.ts). */
export interface FastPathStop {
  type?: string;
  message: string;
  /** Final (a refusal, a deterministic database error, an outcome counted unknown); otherwise worth another try. */
  nonRetryable: boolean;
  details?: unknown[];
}

/**
 * How far the fast path got: the debit, the supplier's answer, the completion, each done or
 * the failure that stopped it there (the steps after it did not run). Nothing is known when
 * the fast path itself did not answer.
 */
export interface PaidFast {
  debit?: DebitResult;
  debitFailed?: FastPathStop;
  finalized?: { supplierRef: string; followUp?: FollowUp; attempts: number };
  finalizeFailed?: FastPathStop;
  completed?: true;
  completeFailed?: FastPathStop;
}

export interface DebitResult {
  ledgerId: number;
  orderId: number;
  amountMinor: number;
  balanceAfterMinor: number;
  availableAfterMinor: number;
  currency: string;
}
