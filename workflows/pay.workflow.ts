import { ApplicationFailure, CancellationScope, log, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { FINALIZE_STEP, LOCAL_DATABASE_STEP, LOOKUP_STEP, QUICK_FINALIZE_STEP } from './activity-options';
import { startAbandoned } from './children';
import { FailureType, OUTCOME_UNKNOWN, PayFailure } from './failure-types';
import { parkUntilOperator, type OperatorInbox } from './park';
import { mustHappen, paymentFailure, reportedAttempts, type PayStep } from './pay.steps';
import { operatorDecisionSignal, payStateQuery, type PayInput, type PayResult, type PayState } from './pay.types';
import type { FollowUp } from './registry.types';
import { Saga } from './saga';
import { isAnswer, stepFailure, setStage } from './steps';

/** The database steps (debit, complete, reverse): local activities, run by the worker that runs the payment. */
const database = proxyLocalActivities<BookingActivities>(LOCAL_DATABASE_STEP);
/** The supplier step's first, quick try: a local activity in the workflow task that ran the debit. */
const quickSupplier = proxyLocalActivities<BookingActivities>(QUICK_FINALIZE_STEP);
/** The supplier's steps after that: activities of their own, visible in Temporal Web while they retry. */
const supplier = proxyActivities<BookingActivities>(FINALIZE_STEP);
const lookup = proxyActivities<BookingActivities>(LOOKUP_STEP);

type Run = { workflowId: string; runId: string };
/** What the supplier step gave: its reference, and work to start after the payment. */
type Finalized = { supplierRef: string; followUp?: FollowUp };
/** Why the debit is reversed, told to the reversal when it runs. */
type Reversal = { reason: string; releaseTo: 'pending' | 'failed' };

type FinalizeRequest = { orderId: number; clientReference: string; scenario?: string };

/**
 * One round of the supplier step. The first round tries it once as a local activity, which
 * a supplier answering within seconds completes inside the workflow task that ran the
 * debit; an answer (a refusal, or its outcome counted unknown) is final, anything else (no
 * answer in time, a failure worth retrying) runs the step again as an ordinary activity
 * under the same client reference, its attempts counted after the local one. Later rounds
 * (after an operator's retry, which shows Stage finalizing again) go straight to the
 * ordinary activity.
 */
async function finalizeRound(request: FinalizeRequest, first: boolean) {
  if (!first) return supplier.finalizeOrder(request);
  try {
    return await quickSupplier.finalizeOrder(request);
  } catch (err) {
    if (isAnswer(err) || stepFailure(err).type === OUTCOME_UNKNOWN) throw err;
  }
  // Only now can the step take a while: the payment shows Stage finalizing with the activity
  // (a quick try's stage would be written with the workflow task's other commands, and never seen).
  setStage('finalizing');
  return supplier.finalizeOrder({ ...request, attemptsBefore: 1 });
}

/**
 * The supplier step, whose outcome may be unknown: after its retries, ask the supplier by
 * our client reference; if it cannot tell either, park in needs_attention (never refund
 * blindly: the ticket may exist) until an operator retries, confirms or compensates.
 */
async function finalizeOrPark(input: PayInput, run: Run, state: PayState, operator: OperatorInbox): Promise<Finalized> {
  const request: FinalizeRequest = { orderId: input.orderId, clientReference: `${run.workflowId}/${run.runId}`, scenario: input.scenario };
  for (;;) {
    state.step = 'finalizing';
    state.supplierRounds += 1;
    try {
      const done = await finalizeRound(request, state.supplierRounds === 1);
      state.supplierAttempts += done.attempts;
      return done;
    } catch (err) {
      state.supplierAttempts += reportedAttempts(err);
      if (isAnswer(err)) throw err;
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
 * pivot → complete the order. If the debit or the supplier step fails for good, the debit is
 * reversed and the workflow fails naming the step, so that its id (derived from the
 * idempotency key) can be used again. Once the supplier confirmed, the payment is never
 * compensated: the completion is retried until it succeeds or parks for an operator.
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
  // The order's status as the reversal left it (what the OrderStatus search attribute ends with).
  let releasedAs: string | undefined;
  try {
    // Stage debiting and OrderStatus processing came with the start (PAY_OPENS_AT).
    // The reversal is registered before the debit runs: a debit that committed but whose answer was lost must still be undone.
    debit = await saga.step(
      'debit',
      () => database.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId }),
      async (why) => {
        const reversed = await database.reversePayment({ ...run, orderId: input.orderId, ...why, ...(input.failsOrder ? { failsOrder: true } : {}) });
        releasedAs = reversed.orderStatus;
      },
    );
    finalized = await saga.step('finalize', () => finalizeOrPark(input, run, state, operator));
  } catch (err) {
    const { type, message } = stepFailure(err);
    setStage('compensating');
    state.step = 'compensating';
    log.warn('payment failed; compensating', { orderId: input.orderId, step: saga.failedStep, type, message });
    const why: Reversal = { reason: message, releaseTo: type === FailureType.supplierGone ? 'failed' : 'pending' };
    await saga.compensate(why, (undo) => mustHappen('compensating', undo, input.orderId, state, operator));
    setStage('failed', releasedAs ?? why.releaseTo);
    state.step = 'failed';
    throw paymentFailure(input.orderId, saga.failedStep, type, message);
  }

  // The pivot: the supplier has confirmed, so the partner has what was paid for. From here
  // the debit stands whatever happens; nothing (not even cancelling this workflow) undoes it.
  state.supplierRef = finalized.supplierRef;
  setStage('completing');
  await CancellationScope.nonCancellable(() =>
    mustHappen(
      'completing',
      async () => {
        await database.completeOrder({ ...run, orderId: input.orderId, supplierRef: finalized.supplierRef });
        if (finalized.followUp) await startAbandoned(finalized.followUp.workflowType, finalized.followUp.workflowId, finalized.followUp.args);
      },
      input.orderId,
      state,
      operator,
    ),
  );
  setStage('done', 'completed');
  state.step = 'done';
  return { ...debit, orderStatus: 'completed', supplierRef: finalized.supplierRef };
}
