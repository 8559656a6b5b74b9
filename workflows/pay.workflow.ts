import { ApplicationFailure, CancellationScope, log, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { FAST_PATH_STEP, FINALIZE_STEP, LOCAL_DATABASE_STEP, LOOKUP_STEP } from './activity-options';
import { startAbandoned } from './children';
import { FailureType, PayFailure } from './failure-types';
import { parkUntilOperator, type OperatorInbox } from './park';
import { mustHappen, openPayment, paymentFailure, reportedAttempts, type PayStep } from './pay.steps';
import { PAY_STEPS, type PayStepResults, type PayStepsInput } from './pay-saga.types';
import type { PayInput, PayResult, PayState } from './pay.types';
import { Saga, type LocalAttempt } from './saga';
import { isRefusal, stepFailure, setStage } from './steps';

/** The debit, the supplier step and the completion together, in the payment's first workflow task (the fast path). */
const fast = proxyLocalActivities<BookingActivities>(FAST_PATH_STEP);
/** The database steps (debit, complete, reverse) one by one: local activities, run by the worker that runs the payment. */
const database = proxyLocalActivities<BookingActivities>(LOCAL_DATABASE_STEP);
/** The supplier's steps after that: activities of their own, visible in Temporal Web while they retry. */
const supplier = proxyActivities<BookingActivities>(FINALIZE_STEP);
const lookup = proxyActivities<BookingActivities>(LOOKUP_STEP);

type Finalized = PayStepResults['finalize'];
/** Why the debit is reversed, told to the reversal when it runs. */
type Reversal = { reason: string; releaseTo: 'pending' | 'failed' };

/**
 * One round of the supplier step. The first follows the fast path: a final failure it met
 * (a refusal, an outcome it counted unknown) is the answer; otherwise the step runs as an
 * ordinary activity under the same client reference, its attempts counted after the fast
 * path's, and only now can it take a while, so the payment shows Stage finalizing. Later
 * rounds (after an operator's retry, which shows Stage finalizing again) run the activity.
 */
function finalizeRound(request: ReturnType<typeof PAY_STEPS.finalize.args>, local?: LocalAttempt): Promise<Finalized> {
  if (!local) return supplier.finalizeOrder(request);
  return local.orRun(() => {
    setStage('finalizing');
    return supplier.finalizeOrder({ ...request, attemptsBefore: local.tried ? 1 : 0 });
  });
}

/**
 * The supplier step, whose outcome may be unknown: after its retries, ask the supplier by
 * our client reference; if it cannot tell either, park in needs_attention (never refund
 * blindly: the ticket may exist) until an operator retries, confirms or compensates.
 */
async function finalizeOrPark(steps: PayStepsInput, local: LocalAttempt, state: PayState, operator: OperatorInbox): Promise<Finalized> {
  const request = PAY_STEPS.finalize.args(steps);
  for (;;) {
    state.step = 'finalizing';
    state.supplierRounds += 1;
    try {
      const done = await finalizeRound(request, state.supplierRounds === 1 ? local : undefined);
      state.supplierAttempts += done.attempts ?? 0;
      return done;
    } catch (err) {
      state.supplierAttempts += reportedAttempts(err);
      if (isRefusal(err)) throw err;
      state.lastError = stepFailure(err).message;
      state.step = 'looking_up';
      const found = await lookup.lookupFinalization(request).catch(() => ({ state: 'unknown' as const }));
      if (found.state === 'done') return { supplierRef: found.supplierRef, followUp: found.followUp };
      if (found.state === 'absent') throw err;
      const d = await parkUntilOperator(state, 'finalizing', operator, { resume: 'finalizing', refuse: () => null, context: { orderId: steps.orderId } });
      if (d.action === 'confirm') return { supplierRef: d.supplierRef ?? `confirmed-by-operator:${d.operator}` };
      if (d.action === 'compensate')
        throw ApplicationFailure.nonRetryable(`compensated by operator ${d.operator}: ${d.reason}`, PayFailure.operatorCompensated);
      // retry: go round again.
    }
  }
}

/**
 * The payment saga: debit the wallet (its reversal registered first) → the supplier step
 * (ship, confirm, ticket, submit; looked up, or parked, when its outcome is unknown) → the
 * pivot → complete the order. The three run first together as the fast path, one local
 * activity; whatever it did not finish runs step by step from where it stopped, or from the
 * debit when it did not answer (each step is idempotent: the debit per run, the supplier
 * step by client reference, the completion per order). If the debit or the supplier step
 * fails for good, the debit is reversed and the workflow fails naming the step, so that its
 * id (derived from the idempotency key) can be used again. Once the supplier confirmed, the
 * payment is never compensated: the completion is retried until it succeeds or parks for an
 * operator.
 */
export async function payOrder(input: PayInput): Promise<PayResult> {
  const { workflowId, runId } = workflowInfo();
  const { orderId, partnerId, scenario } = input;
  const steps: PayStepsInput = { workflowId, runId, orderId, partnerId, clientReference: `${workflowId}/${runId}`, scenario };
  const { state, operator } = openPayment(orderId);
  const saga = new Saga<PayStep, Reversal>();
  saga.runLocally(PAY_STEPS, () => fast.payFastPath(steps));
  // The order's status as the reversal left it (what the OrderStatus search attribute ends with).
  let orderStatusAfterReversal: string | undefined;
  let debit: PayStepResults['debit'];
  let finalized: Finalized;
  try {
    // Stage debiting and OrderStatus processing came with the start (PAY_START_ATTRIBUTES).
    debit = await saga.step(
      'debit',
      (local) => local.orRun(() => database.debitForOrder(PAY_STEPS.debit.args(steps))),
      async (why) => {
        const reversed = await database.reversePayment({ workflowId, runId, orderId, ...why, ...(input.failsOrder ? { failsOrder: true } : {}) });
        orderStatusAfterReversal = reversed.orderStatus;
      },
    );
    finalized = await saga.step('finalize', (local) => finalizeOrPark(steps, local, state, operator));
    // Finished by the fast path: the step's first round, done.
    if (state.supplierRounds === 0) [state.supplierRounds, state.supplierAttempts] = [1, finalized.attempts ?? 0];
  } catch (err) {
    const { type, message } = stepFailure(err);
    setStage('compensating');
    state.step = 'compensating';
    log.warn('payment failed; compensating', { orderId, step: saga.failedStep, type, message });
    const why: Reversal = { reason: message, releaseTo: type === FailureType.supplierGone ? 'failed' : 'pending' };
    await saga.compensate(why, (undo) => mustHappen('compensating', undo, orderId, state, operator));
    setStage('failed', orderStatusAfterReversal ?? why.releaseTo);
    state.step = 'failed';
    throw paymentFailure(orderId, saga.failedStep, type, message);
  }

  // The pivot: the supplier has confirmed, so the partner has what was paid for. From here
  // the debit stands whatever happens; nothing (not even cancelling this workflow) undoes it.
  saga.pivot();
  state.supplierRef = finalized.supplierRef;
  await saga.step('complete', (local) => {
    // Shown only when the completion is still to run (set with the fast path's other commands, it would never be seen).
    setStage('completing');
    const complete = () => database.completeOrder(PAY_STEPS.complete.args(steps, { finalize: finalized }));
    return CancellationScope.nonCancellable(() => mustHappen('completing', complete, orderId, state, operator, local.failedBefore));
  });
  const followUp = finalized.followUp;
  if (followUp) {
    const start = () => startAbandoned(followUp.workflowType, followUp.workflowId, followUp.args);
    await CancellationScope.nonCancellable(() => mustHappen('completing', start, orderId, state, operator));
  }
  setStage('done', 'completed');
  state.step = 'done';
  return { ...debit, orderStatus: 'completed', supplierRef: finalized.supplierRef };
}
