import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  defineQuery,
  defineSignal,
  setHandler,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { FINALIZE_STEP, LEDGER_STEP, LOCAL_LEDGER_STEP, LOOKUP_STEP } from './activity-options';
import { startAbandoned } from './children';
import { FailureType } from './failure-types';
import {
  OPERATOR_DECISION_SIGNAL,
  PAY_STATE_QUERY,
  PayFailure,
  type FollowUp,
  type OperatorDecision,
  type ParkedAt,
  type PayInput,
  type PayResult,
  type PayState,
} from './pay.types';
import { OrderStatus, Stage, type StageName } from './search-attributes';

const remoteLedger = proxyActivities<BookingActivities>(LEDGER_STEP);
const localLedger = proxyLocalActivities<BookingActivities>(LOCAL_LEDGER_STEP);
const lookup = proxyActivities<BookingActivities>(LOOKUP_STEP);
const supplier = proxyActivities<BookingActivities>(FINALIZE_STEP);

export const operatorDecisionSignal = defineSignal<[OperatorDecision]>(OPERATOR_DECISION_SIGNAL);
export const payStateQuery = defineQuery<PayState>(PAY_STATE_QUERY);

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
  operator: { decision: OperatorDecision | null },
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
      state.step = 'needs_attention';
      state.stage = 'needs_attention';
      state.parkedAt = 'finalizing';
      stage('needs_attention');
      log.warn('payment needs an operator', { orderId: input.orderId, lastError: state.lastError });
      await condition(() => operator.decision !== null);
      const d = operator.decision!;
      operator.decision = null;
      state.parkedAt = undefined;
      state.lastError = `${d.action} by ${d.operator}: ${d.reason}`;
      stage('finalizing');
      state.stage = 'finalizing';
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

/**
 * A step that must happen and has no alternative: the completion after the supplier
 * confirmed (the pivot), or the reversal of a debit. Tried with its bounded retries; when
 * it still fails, the payment parks in needs_attention and waits for an operator, then
 * tries again. It never gives up by itself and never turns into another outcome, so a
 * decision that would (compensate after the pivot, confirm during a reversal) is refused
 * and the payment stays parked.
 */
async function untilDoneOrParked(
  at: Exclude<ParkedAt, 'finalizing'>,
  step: () => Promise<unknown>,
  orderId: number,
  state: PayState,
  operator: { decision: OperatorDecision | null },
): Promise<void> {
  const refused: OperatorDecision['action'] = at === 'completing' ? 'compensate' : 'confirm';
  for (;;) {
    state.step = at;
    try {
      await step();
      return;
    } catch (err) {
      state.lastError = `${STEP_NAMES[at](orderId)} failed: ${failureOf(err).message}`;
      state.step = 'needs_attention';
      state.stage = 'needs_attention';
      state.parkedAt = at;
      stage('needs_attention');
      log.warn('payment needs an operator', { orderId, parkedAt: at, lastError: state.lastError });
      for (;;) {
        await condition(() => operator.decision !== null);
        const d = operator.decision!;
        operator.decision = null;
        if (d.action !== refused) {
          state.lastError = `${d.action} by ${d.operator}: ${d.reason}`;
          break;
        }
        // The admin API refuses it before signalling; a signal sent some other way lands here.
        state.lastError = `${d.action} by ${d.operator} refused: ${at === 'completing' ? 'the supplier confirmed; the payment is never compensated' : 'the payment failed; its debit is being reversed'}`;
        log.warn('operator decision refused', { orderId, parkedAt: at, action: d.action });
      }
      state.parkedAt = undefined;
      state.stage = at;
      stage(at);
    }
  }
}

function stage(name: StageName, status?: string): void {
  upsertSearchAttributes([{ key: Stage, value: name }, ...(status ? [{ key: OrderStatus, value: status }] : [])]);
}

/**
 * What a step failed with: an activity's failure arrives wrapped in an ActivityFailure; a
 * local activity's (the ledger steps by default) and the workflow's own arrive bare.
 */
const failureOf = (err: unknown): { type?: string; message: string } => {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { type: cause.type ?? undefined, message: cause.message };
  return { message: cause instanceof Error ? cause.message : String(cause) };
};
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
  const operator: { decision: OperatorDecision | null } = { decision: null };
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
    stage('debiting', 'processing');
    state.step = 'debiting';
    // Registered before the step: a debit that committed but whose answer was lost must still be undone.
    compensations.push((why) => ledger.reversePayment({ ...run, orderId: input.orderId, ...why }));
    debit = await ledger.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId });

    failedStep = 'finalize';
    stage('finalizing');
    finalized = await finalizeOrPark(input, `${workflowId}/${runId}`, state, operator);

    if (!pivotRule) {
      // Runs started before the pivot rule: a failed completion was compensated like any other step.
      failedStep = 'complete';
      stage('completing');
      await complete(finalized.supplierRef, finalized.followUp);
    }
  } catch (err) {
    const type = businessType(err);
    const { message } = failureOf(err);
    const why = { reason: message, releaseTo: type === FailureType.supplierGone ? ('failed' as const) : ('pending' as const) };
    stage('compensating');
    state.step = 'compensating';
    log.warn('payment failed; compensating', { orderId: input.orderId, step: failedStep, type, message });
    await CancellationScope.nonCancellable(async () => {
      for (const undo of compensations.reverse()) {
        if (pivotRule) await untilDoneOrParked('compensating', () => undo(why), input.orderId, state, operator);
        else await undo(why);
      }
    });
    stage('failed');
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
    stage('completing');
    await CancellationScope.nonCancellable(() =>
      untilDoneOrParked('completing', () => complete(finalized.supplierRef, finalized.followUp), input.orderId, state, operator),
    );
  }
  stage('done', 'completed');
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
