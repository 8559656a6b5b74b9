import { ActivityFailure, ApplicationFailure, setHandler } from '@temporalio/workflow';
import { PayFailure, type FinalizeAttemptsDetail } from './failure-types';
import { withReason } from './messages';
import { untilDoneOrParked, type FailedBefore, type OperatorInbox } from './park';
import type { PAY_STEPS } from './pay-saga.types';
import { operatorDecisionSignal, payStateQuery, type OperatorDecision, type ParkedAt, type PayState } from './pay.types';

/** The payment's steps (PAY_STEPS, workflows/pay-saga.types.ts), named in its failure. */
export type PayStep = keyof typeof PAY_STEPS;

/** A payment's state (queried) and its operator's inbox, which takes a decision only while the payment is parked. Registers no command. */
export function openPayment(orderId: number): { state: PayState; operator: OperatorInbox } {
  const state: PayState = { orderId, stage: 'debiting', step: 'debiting', lastError: null, supplierRounds: 0, supplierAttempts: 0 };
  const operator: OperatorInbox = { decision: null };
  setHandler(payStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    // Anything else is ignored (and the admin API refuses it).
    if (state.step === 'needs_attention') operator.decision = d;
  });
  return { state, operator };
}

/** The attempts a failed supplier step reports (an outcome_unknown failure's details); 0 when it reports none. */
export function reportedAttempts(err: unknown): number {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const detail = cause instanceof ApplicationFailure ? (cause.details?.[0] as Partial<FinalizeAttemptsDetail> | undefined) : undefined;
  return typeof detail?.attempts === 'number' ? detail.attempts : 0;
}

/** How a payment that was compensated fails: by the partner's answer, else by the step that failed. */
export function paymentFailure(orderId: number, step: PayStep | undefined, type: string | undefined, message: string): ApplicationFailure {
  if (type === PayFailure.insufficientCredit || type === PayFailure.notPayable) return ApplicationFailure.nonRetryable(message, type);
  if (step === 'finalize') {
    return ApplicationFailure.nonRetryable(
      `${withReason(`the supplier could not finalize order ${orderId}`, message)}; the debit was reversed`,
      PayFailure.reversed,
    );
  }
  return ApplicationFailure.nonRetryable(`${withReason(`the debit for order ${orderId} failed`, message)}; nothing was charged`, PayFailure.debitFailed);
}

type MustHappenAt = Exclude<ParkedAt, 'finalizing'>;

const STEP_NAMES: Record<MustHappenAt, (orderId: number) => string> = {
  completing: (orderId) => `completing order ${orderId}`,
  compensating: (orderId) => `reversing the debit of order ${orderId}`,
};

/** The decision that does not apply where a payment is parked, and why. */
const REFUSED: Record<MustHappenAt, { action: OperatorDecision['action']; why: string }> = {
  completing: { action: 'compensate', why: 'the supplier confirmed; the payment is never compensated' },
  compensating: { action: 'confirm', why: 'the payment failed; its debit is being reversed' },
};

/**
 * A step that must happen and has no alternative: the completion after the supplier
 * confirmed (the pivot), or the reversal of a debit. Retried, then parked for an operator
 * (workflows/park.ts); a decision that would turn it into another outcome (compensate after
 * the pivot, confirm during a reversal) is refused and the payment stays parked.
 */
export function mustHappen(
  at: MustHappenAt,
  step: () => Promise<unknown>,
  orderId: number,
  state: PayState,
  operator: OperatorInbox,
  failedBefore?: FailedBefore,
) {
  const refused = REFUSED[at];
  const o = { resume: at, refuse: (d: OperatorDecision) => (d.action === refused.action ? refused.why : null), context: { orderId } };
  return untilDoneOrParked(at, STEP_NAMES[at](orderId), step, state, operator, o, failedBefore);
}
