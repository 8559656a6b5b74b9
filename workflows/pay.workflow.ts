import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  setHandler,
  log,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { FINALIZE_STEP, DATABASE_STEP, LOCAL_FINALIZE_STEP, LOCAL_DATABASE_STEP, LOOKUP_STEP } from './activity-options';
import { startAbandoned } from './children';
import { FailureType, type FinalizeAttemptsDetail } from './failure-types';
import { withReason } from './messages';
import { parkUntilOperator, untilDoneOrParked, type OperatorInbox } from './park';
import {
  operatorDecisionSignal,
  PayFailure,
  payStateQuery,
  type FollowUp,
  type OperatorDecision,
  type ParkedAt,
  type PayInput,
  type PayResult,
  type PayState,
} from './pay.types';
import { Saga } from './saga';
import { stepFailure, setStage } from './steps';

const remoteLedger = proxyActivities<BookingActivities>(DATABASE_STEP);
const localLedger = proxyLocalActivities<BookingActivities>(LOCAL_DATABASE_STEP);
const lookup = proxyActivities<BookingActivities>(LOOKUP_STEP);
const supplier = proxyActivities<BookingActivities>(FINALIZE_STEP);
const localSupplier = proxyLocalActivities<BookingActivities>(LOCAL_FINALIZE_STEP);

/** Failure types that are an answer (the supplier or the database said no), as opposed to an unknown outcome. */
const ANSWERS = new Set<string>([...Object.values(FailureType), 'insufficient_credit', 'not_payable', 'conflict', 'validation', 'not_found']);

/** What the supplier step gave: its reference, work to start after, and whether the order was completed with it. */
type Finalized = { supplierRef: string; followUp?: FollowUp; completed?: boolean };

/**
 * Finalization whose outcome may be unknown: after the retries, ask the supplier by our
 * client reference; if it cannot tell either, park in needs_attention (never refund
 * blindly: the ticket may exist) until an operator retries, confirms or compensates.
 */
async function finalizeOrPark(input: PayInput, run: { workflowId: string; runId: string }, state: PayState, operator: OperatorInbox): Promise<Finalized> {
  const clientReference = `${run.workflowId}/${run.runId}`;
  for (;;) {
    state.step = 'finalizing';
    state.supplierRounds += 1;
    try {
      const finalizer = input.shape === 'lean' ? localSupplier : supplier;
      const done = await finalizer.finalizeOrder({
        orderId: input.orderId,
        clientReference,
        scenario: input.scenario,
        ...(input.completeInSupplierStep ? { complete: run } : {}),
      });
      // Runs recorded before the step reported its attempts have none to add.
      state.supplierAttempts += done.attempts ?? 0;
      if (done.completionError) state.lastError = `completing order ${input.orderId} in the supplier step failed: ${done.completionError}`;
      return done;
    } catch (err) {
      state.supplierAttempts += reportedAttempts(err);
      const type = businessType(err);
      if (type && ANSWERS.has(type)) throw err;
      state.lastError = stepFailure(err).message;
      state.step = 'looking_up';
      const found = await lookup
        .lookupFinalization({ orderId: input.orderId, clientReference, scenario: input.scenario })
        .catch(() => ({ state: 'unknown' as const }));
      if (found.state === 'done') return { supplierRef: found.supplierRef, followUp: found.followUp };
      if (found.state === 'absent') throw err;
      const d = await parkUntilOperator(state, 'finalizing', operator, { resume: 'finalizing', refuse: () => null, context: { orderId: input.orderId } });
      if (d.action === 'confirm') return { supplierRef: d.supplierRef ?? `confirmed-by-operator:${d.operator}` };
      if (d.action === 'compensate') throw ApplicationFailure.nonRetryable(`compensated by operator ${d.operator}: ${d.reason}`, 'operator_compensated');
      // retry: go round again.
    }
  }
}

const STEP_NAMES: Record<Exclude<ParkedAt, 'finalizing'>, (orderId: number) => string> = {
  completing: (orderId) => `completing order ${orderId}`,
  compensating: (orderId) => `reversing the debit of order ${orderId}`,
};

/** The decision that does not apply where a payment is parked, and why. */
const REFUSED: Record<Exclude<ParkedAt, 'finalizing'>, { action: OperatorDecision['action']; why: string }> = {
  completing: { action: 'compensate', why: 'the supplier confirmed; the payment is never compensated' },
  compensating: { action: 'confirm', why: 'the payment failed; its debit is being reversed' },
};

/**
 * A step that must happen and has no alternative: the completion after the supplier
 * confirmed (the pivot), or the reversal of a debit. Retried, then parked for an operator
 * (workflows/park.ts); a decision that would turn it into another outcome (compensate after
 * the pivot, confirm during a reversal) is refused and the payment stays parked.
 */
function mustHappen(at: Exclude<ParkedAt, 'finalizing'>, step: () => Promise<unknown>, orderId: number, state: PayState, operator: OperatorInbox) {
  const refused = REFUSED[at];
  return untilDoneOrParked(at, STEP_NAMES[at](orderId), step, state, operator, {
    resume: at,
    refuse: (d) => (d.action === refused.action ? refused.why : null),
    context: { orderId },
  });
}

const businessType = (err: unknown): string | undefined => stepFailure(err).type;

/** The attempts a failed supplier step reports (an outcome_unknown failure's details); 0 when it reports none. */
function reportedAttempts(err: unknown): number {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const detail = cause instanceof ApplicationFailure ? (cause.details?.[0] as Partial<FinalizeAttemptsDetail> | undefined) : undefined;
  return typeof detail?.attempts === 'number' ? detail.attempts : 0;
}

/** The payment's steps before its pivot, named in its failure. */
type PayStep = 'debit' | 'finalize' | 'complete';
/** Why the debit is reversed, told to the reversal when it runs. */
type Reversal = { reason: string; releaseTo: 'pending' | 'failed' };

/** How a payment that was compensated fails: by the partner's answer, else by the step that failed. */
function paymentFailure(orderId: number, step: PayStep | undefined, type: string | undefined, message: string): ApplicationFailure {
  if (type === PayFailure.insufficientCredit || type === PayFailure.notPayable) return ApplicationFailure.nonRetryable(message, type);
  switch (step) {
    case undefined:
    case 'debit':
      return ApplicationFailure.nonRetryable(`${withReason(`the debit for order ${orderId} failed`, message)}; nothing was charged`, PayFailure.debitFailed);
    case 'complete':
      return ApplicationFailure.nonRetryable(`${withReason(`completing order ${orderId} failed`, message)}; the debit was reversed`, PayFailure.reversed);
    default:
      return ApplicationFailure.nonRetryable(
        `${withReason(`the supplier could not finalize order ${orderId}`, message)}; the debit was reversed`,
        PayFailure.reversed,
      );
  }
}

/**
 * The payment saga: debit the wallet (undo: reverse it) → finalize with the supplier (the
 * pivot) → complete the order. If the debit or the supplier step fails for good, the
 * compensation runs and the workflow fails naming the step, so its id (derived from the
 * idempotency key) can be used again. Once the supplier confirmed, the payment is never
 * compensated: the completion is retried until it succeeds or parks for an operator. A lean
 * payment's supplier step completes the order itself when it can (completeInSupplierStep).
 */
export async function payOrder(input: PayInput): Promise<PayResult> {
  const { workflowId, runId } = workflowInfo();
  const lean = input.shape === 'lean';
  const ledger = lean || input.localLedgerSteps ? localLedger : remoteLedger;
  const run = { workflowId, runId };
  const saga = new Saga<PayStep, Reversal>();
  const state: PayState = { orderId: input.orderId, stage: 'debiting', step: 'debiting', lastError: null, supplierRounds: 0, supplierAttempts: 0 };
  const operator: OperatorInbox = { decision: null };
  setHandler(payStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    // Only a payment waiting for one takes a decision; anything else is ignored (and the admin API refuses it).
    if (state.step === 'needs_attention') operator.decision = d;
  });

  const startFollowUp = async (followUp?: FollowUp) => {
    if (followUp) await startAbandoned(followUp.workflowType, followUp.workflowId, followUp.args);
  };
  const complete = async (supplierRef: string, followUp?: FollowUp) => {
    await ledger.completeOrder({ ...run, orderId: input.orderId, supplierRef });
    await startFollowUp(followUp);
  };
  let debit: Awaited<ReturnType<BookingActivities['debitForOrder']>>;
  let finalized: Finalized;
  // The order's status as the reversal left it (what the OrderStatus search attribute ends with).
  let releasedAs: string | undefined;
  try {
    // A lean payment started with Stage debiting and OrderStatus processing (src/domain/pay-request.ts).
    if (!lean) setStage('debiting', 'processing');
    state.step = 'debiting';
    // The reversal is registered before the debit runs: a debit that committed but whose answer was lost must still be undone.
    debit = await saga.step(
      'debit',
      () => ledger.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId }),
      async (why) => {
        const reversed = await ledger.reversePayment({ ...run, orderId: input.orderId, ...why });
        // Reversals recorded before it reported the order's status have none.
        releasedAs = reversed.orderStatus;
        return reversed;
      },
    );

    setStage('finalizing');
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

  {
    // The pivot: the supplier has confirmed, so the partner has what was paid for. From here
    // the debit stands whatever happens; nothing (not even cancelling this workflow) undoes it.
    state.supplierRef = finalized.supplierRef;
    // A lean payment shows completing only if its completion has to wait (untilDoneOrParked parks it with a Stage of its own).
    if (!lean) setStage('completing');
    // Completed in the supplier step (completeInSupplierStep), or else as a step of its own; either way what follows starts under the same rule.
    // An order completed in the supplier step with nothing to start after has nothing left
    // to do: no scope is opened for it (it would schedule nothing; the workflow thread pays
    // for every promise it makes, docs/performance.md).
    if (!finalized.completed || finalized.followUp) {
      const completion = () => (finalized.completed ? startFollowUp(finalized.followUp) : complete(finalized.supplierRef, finalized.followUp));
      await CancellationScope.nonCancellable(() => mustHappen('completing', completion, input.orderId, state, operator));
    }
  }
  setStage('done', 'completed');
  state.step = 'done';
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
}
