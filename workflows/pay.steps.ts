import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { PayFailure, type FinalizeAttemptsDetail } from './failure-types';
import { withReason } from './messages';
import { untilDoneOrParked, type OperatorInbox } from './park';
import type { OperatorDecision, ParkedAt, PayState } from './pay.types';

/** The payment's steps before its pivot, named in its failure. */
export type PayStep = 'debit' | 'finalize';

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
export function mustHappen(at: MustHappenAt, step: () => Promise<unknown>, orderId: number, state: PayState, operator: OperatorInbox) {
  const refused = REFUSED[at];
  return untilDoneOrParked(at, STEP_NAMES[at](orderId), step, state, operator, {
    resume: at,
    refuse: (d) => (d.action === refused.action ? refused.why : null),
    context: { orderId },
  });
}
