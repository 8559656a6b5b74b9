import {
  ApplicationFailure,
  CancellationScope,
  setHandler,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { FINALIZE_STEP, LEDGER_STEP, LOCAL_LEDGER_STEP, LOOKUP_STEP } from './activity-options';
import { startAbandoned } from './children';
import { FailureType } from './failure-types';
import { failureOf, parkUntilOperator, setStage, untilDoneOrParked, type OperatorInbox } from './park';
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

const remoteLedger = proxyActivities<BookingActivities>(LEDGER_STEP);
const localLedger = proxyLocalActivities<BookingActivities>(LOCAL_LEDGER_STEP);
const lookup = proxyActivities<BookingActivities>(LOOKUP_STEP);
const supplier = proxyActivities<BookingActivities>(FINALIZE_STEP);

/**
 * Runs started from here on follow the pivot rule: once the supplier confirmed, a step
 * that fails parks the payment for an operator instead of compensating it, and a reversal
 * that cannot be written parks too. Runs started before it replay the way they were made.
 */
export const PIVOT_RULE_PATCH = 'pay-pivot-rule';

/** Failure types that are an answer (the supplier or the database said no), as opposed to an unknown outcome. */
const ANSWERS = new Set<string>([...Object.values(FailureType), 'insufficient_credit', 'not_payable', 'conflict', 'validation', 'not_found']);

/**
 * Finalization whose outcome may be unknown: after the retries, ask the supplier by our
 * client reference; if it cannot tell either, park in needs_attention (never refund
 * blindly: the ticket may exist) until an operator retries, confirms or compensates.
 */
async function finalizeOrPark(
  input: PayInput,
  clientReference: string,
  state: PayState,
  operator: OperatorInbox,
): Promise<{ supplierRef: string; followUp?: FollowUp }> {
  for (;;) {
    state.step = 'finalizing';
    state.attempts += 1;
    try {
      return await supplier.finalizeOrder({ orderId: input.orderId, clientReference, scenario: input.scenario });
    } catch (err) {
      const type = businessType(err);
      if (type && ANSWERS.has(type)) throw err;
      state.lastError = failureOf(err).message;
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

const businessType = (err: unknown): string | undefined => failureOf(err).type;

/**
 * The payment saga: debit the wallet → finalize with the supplier (the pivot) → complete
 * the order. If the debit or the supplier step fails for good, the compensation runs and
 * the workflow fails naming the step, so its id (derived from the idempotency key) can be
 * used again. Once the supplier confirmed, the payment is never compensated: the
 * completion is retried until it succeeds or parks for an operator.
 */
export async function payOrder(input: PayInput): Promise<PayResult> {
  const { workflowId, runId } = workflowInfo();
  const ledger = input.localLedgerSteps ? localLedger : remoteLedger;
  const run = { workflowId, runId };
  // Decided once, at the start: a run started before the rule keeps the old path throughout.
  const pivotRule = patched(PIVOT_RULE_PATCH);
  // Each undo gets why it runs when it runs, not what was known when it was registered.
  const compensations: Array<(why: { reason: string; releaseTo: 'pending' | 'failed' }) => Promise<unknown>> = [];
  const state: PayState = { orderId: input.orderId, stage: 'debiting', step: 'debiting', lastError: null, attempts: 0 };
  const operator: OperatorInbox = { decision: null };
  setHandler(payStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    // Only a payment waiting for one takes a decision; anything else is ignored (and the admin API refuses it).
    if (state.step === 'needs_attention') operator.decision = d;
  });

  let failedStep: 'debit' | 'finalize' | 'complete' = 'debit';
  const complete = async (supplierRef: string, followUp?: FollowUp) => {
    await ledger.completeOrder({ ...run, orderId: input.orderId, supplierRef });
    if (followUp) await startAbandoned(followUp.workflowType, followUp.workflowId, followUp.args);
  };
  let debit: Awaited<ReturnType<BookingActivities['debitForOrder']>>;
  let finalized: { supplierRef: string; followUp?: FollowUp };
  try {
    setStage('debiting', 'processing');
    state.step = 'debiting';
    // Registered before the step: a debit that committed but whose answer was lost must still be undone.
    compensations.push((why) => ledger.reversePayment({ ...run, orderId: input.orderId, ...why }));
    debit = await ledger.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId });

    failedStep = 'finalize';
    setStage('finalizing');
    finalized = await finalizeOrPark(input, `${workflowId}/${runId}`, state, operator);

    if (!pivotRule) {
      // Runs started before the pivot rule: a failed completion was compensated like any other step.
      failedStep = 'complete';
      setStage('completing');
      await complete(finalized.supplierRef, finalized.followUp);
    }
  } catch (err) {
    const type = businessType(err);
    const { message } = failureOf(err);
    const why = { reason: message, releaseTo: type === FailureType.supplierGone ? ('failed' as const) : ('pending' as const) };
    setStage('compensating');
    state.step = 'compensating';
    log.warn('payment failed; compensating', { orderId: input.orderId, step: failedStep, type, message });
    await CancellationScope.nonCancellable(async () => {
      for (const undo of compensations.reverse()) {
        if (pivotRule) await mustHappen('compensating', () => undo(why), input.orderId, state, operator);
        else await undo(why);
      }
    });
    setStage('failed');
    state.step = 'failed';
    if (type === PayFailure.insufficientCredit || type === PayFailure.notPayable) {
      throw ApplicationFailure.nonRetryable(message, type);
    }
    if (failedStep === 'debit') {
      throw ApplicationFailure.nonRetryable(`the debit for order ${input.orderId} failed (${message}); nothing was charged`, PayFailure.debitFailed);
    }
    if (failedStep === 'complete') {
      throw ApplicationFailure.nonRetryable(`completing order ${input.orderId} failed (${message}); the debit was reversed`, PayFailure.reversed);
    }
    throw ApplicationFailure.nonRetryable(`the supplier could not finalize order ${input.orderId} (${message}); the debit was reversed`, PayFailure.reversed);
  }

  if (pivotRule) {
    // The pivot: the supplier has confirmed, so the partner has what was paid for. From here
    // the debit stands whatever happens; nothing (not even cancelling this workflow) undoes it.
    state.supplierRef = finalized.supplierRef;
    setStage('completing');
    await CancellationScope.nonCancellable(() =>
      mustHappen('completing', () => complete(finalized.supplierRef, finalized.followUp), input.orderId, state, operator),
    );
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
