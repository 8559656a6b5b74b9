import { RetryState } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { FAST_PATH_STEP, FINALIZE_STEP, LOCAL_DATABASE_STEP, LOOKUP_STEP } from './activity-options';
import { startAbandoned } from './children';
import { FailureType, isRefusalType, OUTCOME_UNKNOWN, PayFailure } from './failure-types';
import { parkUntilOperator, type OperatorInbox } from './park';
import { mustHappen, paymentFailure, reportedAttempts, type PayStep } from './pay.steps';
import type { FastPathStop, PaidFast } from './fast-path.types';
import { operatorDecisionSignal, payStateQuery, type PayInput, type PayResult, type PayState } from './pay.types';
import type { FollowUp } from './registry.types';
import { Saga } from './saga';
import { isRefusal, stepFailure, setStage } from './steps';

/** The fast path: debit, supplier step and completion in one local activity, in the payment's first workflow task. */
const fast = proxyLocalActivities<BookingActivities>(FAST_PATH_STEP);
/** The database steps (debit, complete, reverse) one by one: local activities, run by the worker that runs the payment. */
const database = proxyLocalActivities<BookingActivities>(LOCAL_DATABASE_STEP);
/** The supplier's steps after that: activities of their own, visible in Temporal Web while they retry. */
const supplier = proxyActivities<BookingActivities>(FINALIZE_STEP);
const lookup = proxyActivities<BookingActivities>(LOOKUP_STEP);

type Run = { workflowId: string; runId: string };
/** What the supplier step gave: its reference, and work to start after the payment. */
type Finalized = { supplierRef: string; followUp?: FollowUp };
/** Why the debit is reversed, told to the reversal when it runs. */
type Reversal = { reason: string; releaseTo: 'pending' | 'failed' };

type FinalizeRequest = { orderId: number; clientReference: string; scenario?: string };
/** The payment's reference at the supplier: the same for every try of its supplier step. */
const clientReferenceOf = (run: Run) => `${run.workflowId}/${run.runId}`;

/**
 * A step of the fast path that stopped with a failure, as the step's own local activity
 * would have failed: what the saga, the park and the payment's own failure read from it.
 */
const stepFailed = (activityType: string, stop: FastPathStop) =>
  new ActivityFailure(
    `${activityType} failed`,
    activityType,
    undefined,
    stop.nonRetryable ? RetryState.NON_RETRYABLE_FAILURE : RetryState.MAXIMUM_ATTEMPTS_REACHED,
    undefined,
    ApplicationFailure.create({ message: stop.message, type: stop.type, nonRetryable: stop.nonRetryable, details: stop.details }),
  );

/** The fast path's answer; nothing known when it did not answer (a cancellation of the payment passes). */
const fastPath = (input: PayInput, run: Run): Promise<PaidFast> =>
  fast
    .payFastPath({ ...run, orderId: input.orderId, partnerId: input.partnerId, clientReference: clientReferenceOf(run), scenario: input.scenario })
    .catch((err: unknown) => {
      if (isCancellation(err)) throw err;
      return {};
    });

/**
 * The debit when the fast path did not debit: its final failure as the step's own, else the
 * step with its own retries (after a fast path that did not answer, it finds the fast path's
 * debit if that committed).
 */
function debitAfter(paid: PaidFast, input: PayInput, run: Run) {
  if (paid.debitFailed?.nonRetryable) throw stepFailed('debitForOrder', paid.debitFailed);
  return database.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId });
}

/** The supplier's answer the fast path got: the step's first round, done. */
function finalizedFast(state: PayState, finalized: NonNullable<PaidFast['finalized']>): Finalized {
  state.supplierRounds = 1;
  state.supplierAttempts += finalized.attempts;
  return finalized;
}

/**
 * One round of the supplier step when the fast path did not get the supplier's result. In
 * the first round the fast path's answer (a refusal, or its outcome counted unknown) is
 * final; anything else (no answer in time, a failure worth retrying, a fast path that stopped
 * before it) runs the step as an ordinary activity under the same client reference, its
 * attempts counted after the fast path's. Later rounds (after an operator's retry, which
 * shows Stage finalizing again) go straight to the ordinary activity.
 */
async function finalizeRound(request: FinalizeRequest, first: boolean, paid: PaidFast) {
  if (!first) return supplier.finalizeOrder(request);
  const failed = paid.finalizeFailed;
  if (failed && (isRefusalType(failed.type) || failed.type === OUTCOME_UNKNOWN)) throw stepFailed('finalizeOrder', failed);
  // Only now can the step take a while: the payment shows Stage finalizing with the activity
  // (a stage set in the fast path's workflow task would be written with its other commands, and never seen).
  setStage('finalizing');
  // The fast path tried the supplier unless its debit stopped it (when it did not answer, it may have).
  return supplier.finalizeOrder({ ...request, attemptsBefore: paid.debitFailed ? 0 : 1 });
}

/**
 * The supplier step, whose outcome may be unknown: after its retries, ask the supplier by
 * our client reference; if it cannot tell either, park in needs_attention (never refund
 * blindly: the ticket may exist) until an operator retries, confirms or compensates.
 */
async function finalizeOrPark(input: PayInput, run: Run, state: PayState, operator: OperatorInbox, paid: PaidFast): Promise<Finalized> {
  const request: FinalizeRequest = { orderId: input.orderId, clientReference: clientReferenceOf(run), scenario: input.scenario };
  for (;;) {
    state.step = 'finalizing';
    state.supplierRounds += 1;
    try {
      const done = await finalizeRound(request, state.supplierRounds === 1, paid);
      state.supplierAttempts += done.attempts;
      return done;
    } catch (err) {
      state.supplierAttempts += reportedAttempts(err);
      if (isRefusal(err)) throw err;
      state.lastError = stepFailure(err).message;
      state.step = 'looking_up';
      const found = await lookup.lookupFinalization(request).catch(() => ({ state: 'unknown' as const }));
      if (found.state === 'done') return { supplierRef: found.supplierRef, followUp: found.followUp };
      if (found.state === 'absent') throw err;
      const d = await parkUntilOperator(state, 'finalizing', operator, { resume: 'finalizing', refuse: () => null, context: { orderId: input.orderId } });
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
 * pivot → complete the order. The three run first as one local activity, the fast path;
 * whatever it did not finish runs step by step from where it stopped, or from the debit
 * when it did not answer (each step is idempotent: the debit per run, the supplier step by
 * client reference, the completion per order). If the debit or the supplier step fails for
 * good, the debit is reversed and the workflow fails naming the step, so that its id
 * (derived from the idempotency key) can be used again. Once the supplier confirmed, the
 * payment is never compensated: the completion is retried until it succeeds or parks for an
 * operator.
 */
export async function payOrder(input: PayInput): Promise<PayResult> {
  const run: Run = { workflowId: workflowInfo().workflowId, runId: workflowInfo().runId };
  const saga = new Saga<PayStep, Reversal>();
  const state: PayState = { orderId: input.orderId, stage: 'debiting', step: 'debiting', lastError: null, supplierRounds: 0, supplierAttempts: 0 };
  const operator: OperatorInbox = { decision: null };
  setHandler(payStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    // Only a payment waiting for one takes a decision; anything else is ignored (and the admin API refuses it).
    if (state.step === 'needs_attention') operator.decision = d;
  });

  let debit: Awaited<ReturnType<BookingActivities['debitForOrder']>>;
  let finalized: Finalized;
  // What the fast path did (nothing known until it answers, or when it does not).
  let paid: PaidFast = {};
  // The order's status as the reversal left it (what the OrderStatus search attribute ends with).
  let orderStatusAfterReversal: string | undefined;
  try {
    // Stage debiting and OrderStatus processing came with the start (PAY_START_ATTRIBUTES).
    // The reversal is registered before the fast path (and its debit) runs: a debit that committed but whose answer was lost must still be undone.
    paid = await saga.step(
      'debit',
      () => fastPath(input, run),
      async (why) => {
        const reversed = await database.reversePayment({ ...run, orderId: input.orderId, ...why, ...(input.failsOrder ? { failsOrder: true } : {}) });
        orderStatusAfterReversal = reversed.orderStatus;
      },
    );
    // What the fast path did not finish, step by step from where it stopped (straight on when it finished).
    debit = paid.debit ?? (await debitAfter(paid, input, run));
    finalized = paid.finalized ? finalizedFast(state, paid.finalized) : await saga.step('finalize', () => finalizeOrPark(input, run, state, operator, paid));
  } catch (err) {
    const { type, message } = stepFailure(err);
    setStage('compensating');
    state.step = 'compensating';
    log.warn('payment failed; compensating', { orderId: input.orderId, step: saga.failedStep, type, message });
    const why: Reversal = { reason: message, releaseTo: type === FailureType.supplierGone ? 'failed' : 'pending' };
    await saga.compensate(why, (undo) => mustHappen('compensating', undo, input.orderId, state, operator));
    setStage('failed', orderStatusAfterReversal ?? why.releaseTo);
    state.step = 'failed';
    throw paymentFailure(input.orderId, saga.failedStep, type, message);
  }

  // The pivot: the supplier has confirmed, so the partner has what was paid for. From here
  // the debit stands whatever happens; nothing (not even cancelling this workflow) undoes it.
  state.supplierRef = finalized.supplierRef;
  // The fast path's completion: done, or the failure its one try met (a final one parks at once, as the step's own would).
  let fastCompletion: true | FastPathStop | undefined = paid.completed ?? paid.completeFailed;
  // Shown only when the completion is still to run (set with the fast path's other commands, it would never be seen).
  if (fastCompletion !== true) setStage('completing');
  if (fastCompletion !== true || finalized.followUp) {
    await CancellationScope.nonCancellable(() =>
      mustHappen(
        'completing',
        async () => {
          const tried = fastCompletion;
          fastCompletion = undefined;
          if (tried !== true && tried?.nonRetryable) throw stepFailed('completeOrder', tried);
          if (tried !== true) await database.completeOrder({ ...run, orderId: input.orderId, supplierRef: finalized.supplierRef });
          if (finalized.followUp) await startAbandoned(finalized.followUp.workflowType, finalized.followUp.workflowId, finalized.followUp.args);
        },
        input.orderId,
        state,
        operator,
      ),
    );
  }
  setStage('done', 'completed');
  state.step = 'done';
  return { ...debit, orderStatus: 'completed', supplierRef: finalized.supplierRef };
}
