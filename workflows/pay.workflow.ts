import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  defineQuery,
  defineSignal,
  setHandler,
  log,
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
      stage('needs_attention');
      log.warn('payment needs an operator', { orderId: input.orderId, lastError: state.lastError });
      await condition(() => operator.decision !== null);
      const d = operator.decision!;
      operator.decision = null;
      state.lastError = `${d.action} by ${d.operator}: ${d.reason}`;
      stage('finalizing');
      state.stage = 'finalizing';
      if (d.action === 'confirm') return { supplierRef: d.supplierRef ?? `confirmed-by-operator:${d.operator}` };
      if (d.action === 'compensate') throw ApplicationFailure.nonRetryable(`compensated by operator ${d.operator}: ${d.reason}`, 'operator_compensated');
      // retry: go round again.
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
 * The payment saga: debit the wallet → finalize with the supplier → complete the order.
 * If any step fails for good, the compensations run (last in, first out) and the
 * workflow fails, so its id (derived from the idempotency key) can be used again.
 */
export async function payOrder(input: PayInput): Promise<PayResult> {
  const { workflowId, runId } = workflowInfo();
  const ledger = input.localLedgerSteps ? localLedger : remoteLedger;
  const run = { workflowId, runId };
  const compensations: Array<() => Promise<unknown>> = [];
  let reason = 'payment failed';
  // A hold that is gone (expired at the hotel) cannot be paid again: the order fails instead of returning to pending.
  let releaseTo: 'pending' | 'failed' = 'pending';
  const state: PayState = { orderId: input.orderId, stage: 'debiting', step: 'debiting', lastError: null, attempts: 0 };
  const operator: { decision: OperatorDecision | null } = { decision: null };
  setHandler(payStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    // Only a payment waiting for one takes a decision; anything else is ignored (and the admin API refuses it).
    if (state.step === 'needs_attention') operator.decision = d;
  });

  try {
    stage('debiting', 'processing');
    state.step = 'debiting';
    // Registered before the step: a debit that committed but whose answer was lost must still be undone.
    compensations.push(() => ledger.reversePayment({ ...run, orderId: input.orderId, reason, releaseTo }));
    const debit = await ledger.debitForOrder({ ...run, orderId: input.orderId, partnerId: input.partnerId });

    stage('finalizing');
    const finalized = await finalizeOrPark(input, `${workflowId}/${runId}`, state, operator);

    stage('completing');
    await ledger.completeOrder({ ...run, orderId: input.orderId, supplierRef: finalized.supplierRef });
    if (finalized.followUp) await startAbandoned(finalized.followUp.workflowType, finalized.followUp.workflowId, finalized.followUp.args);
    stage('done', 'completed');
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
  } catch (err) {
    const type = businessType(err);
    const { message } = failureOf(err);
    reason = message;
    if (type === FailureType.supplierGone) releaseTo = 'failed';
    stage('compensating');
    log.warn('payment failed; compensating', { orderId: input.orderId, type, message });
    await CancellationScope.nonCancellable(async () => {
      for (const undo of compensations.reverse()) await undo();
    });
    stage('failed');
    if (type === PayFailure.insufficientCredit || type === PayFailure.notPayable) {
      throw ApplicationFailure.nonRetryable(message, type);
    }
    throw ApplicationFailure.nonRetryable(`the supplier could not finalize order ${input.orderId} (${message}); the debit was reversed`, PayFailure.reversed);
  }
}
