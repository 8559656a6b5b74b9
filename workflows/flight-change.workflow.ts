import { ApplicationFailure, CancellationScope, getExternalWorkflowHandle, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import type { ChangedAtAirline } from './flight-change.types';
import { DATABASE_STEP, SUPPLIER_STEP } from './activity-options';
import { DOMAIN_REFUSALS, FlightChangeFailure, PayFailure } from './failure-types';
import { changeStateQuery, type ChangeFlightInput, type ChangeParkedAt, type ChangeResult, type ChangeState } from './flight-change.types';
import { withReason } from './messages';
import { parkUntilOperator, untilDoneOrParked, type OperatorInbox } from './park';
import { operatorDecisionSignal } from './pay.types';
import { Saga } from './saga';
import { scheduleChangeChangedSignal } from './schedule-change.types';
import { isRefusal, setStage, stepFailure } from './steps';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

type ChangeStep = 'debit' | 'change' | 'complete';

/**
 * The change at the airline, whose outcome may be unknown: each try looks up what the last
 * one did before doing anything again. When the tries run out without an answer, the
 * workflow parks for an operator, who retries (the lookup runs again) or compensates; a
 * refusal is the airline's answer, and the saga compensates.
 */
async function changeOrPark(input: ChangeFlightInput, state: ChangeState, operator: OperatorInbox): Promise<ChangedAtAirline> {
  for (let round = 1; ; round++) {
    state.step = 'changing';
    try {
      return await supplier.changeAtAirline({ changeId: input.changeId, round, ...(input.scenario ? { scenario: input.scenario } : {}) });
    } catch (err) {
      if (isRefusal(err)) throw err;
      state.lastError = stepFailure(err).message;
      const d = await parkUntilOperator<ChangeParkedAt>(state, 'changing', operator, {
        resume: 'finalizing',
        refuse: (d) => (d.action === 'confirm' ? 'retry looks the change up at the airline and completes it if it was made' : null),
        context: { orderId: input.orderId, changeId: input.changeId },
      });
      if (d.action === 'compensate')
        throw ApplicationFailure.nonRetryable(`compensated by operator ${d.operator}: ${d.reason}`, PayFailure.operatorCompensated);
    }
  }
}

/** How a change that was compensated fails: the partner's own refusal as it is, anything else as the airline not making it. */
function changeFailure(input: ChangeFlightInput, type: string | undefined, message: string): ApplicationFailure {
  if (type && (DOMAIN_REFUSALS as readonly string[]).includes(type)) return ApplicationFailure.nonRetryable(message, type);
  return ApplicationFailure.nonRetryable(
    `${withReason(input.kind === 'services' ? `the airline did not add the bags to order ${input.orderId}` : `the airline did not change order ${input.orderId}`, message)}; any debit was credited back`,
    FlightChangeFailure.reversed,
  );
}

/**
 * A partner's change to a ticketed flight, as a saga: debit what the change costs (its
 * credit-back registered first) → make and confirm the change at the airline (looked up,
 * or parked, when its outcome is unknown) → the pivot → complete: the order's new legs,
 * tickets and price, and the credit of a change that gives money back. A refusal before the
 * pivot credits back whatever was debited and fails the workflow; after it, the completion
 * is retried until it succeeds or parks for an operator, and is never compensated.
 */
export async function changeFlight(input: ChangeFlightInput): Promise<ChangeResult> {
  const { workflowId, runId } = workflowInfo();
  const run = { workflowId, runId, changeId: input.changeId };
  const state: ChangeState = { orderId: input.orderId, changeId: input.changeId, step: 'debiting', stage: 'debiting', lastError: null };
  const operator: OperatorInbox = { decision: null };
  setHandler(changeStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    if (state.step === 'needs_attention') operator.decision = d;
  });
  const context = { orderId: input.orderId, changeId: input.changeId };
  const saga = new Saga<ChangeStep, string>();
  let changed: ChangedAtAirline;
  try {
    await saga.step(
      'debit',
      () => database.debitFlightChange(run),
      (reason) => database.undoFlightChange({ ...run, reason }),
    );
    setStage('finalizing');
    changed = await saga.step('change', () => changeOrPark(input, state, operator));
  } catch (err) {
    const { type, message } = stepFailure(err);
    setStage('compensating');
    log.warn('flight change failed; compensating', { ...context, step: saga.failedStep, type, message });
    await saga.compensate(message, (undo) =>
      untilDoneOrParked<unknown, ChangeParkedAt>('compensating', `crediting back change ${input.changeId}`, undo, state, operator, {
        resume: 'compensating',
        refuse: (d) => (d.action === 'confirm' ? 'the change failed; its debit is being credited back' : null),
        context,
      }),
    );
    setStage('failed');
    state.step = 'failed';
    throw changeFailure(input, type, message);
  }

  // The pivot: the airline changed the order. From here nothing undoes it.
  saga.pivot();
  setStage('completing');
  const result = await saga.step('complete', () =>
    CancellationScope.nonCancellable(() =>
      untilDoneOrParked<ChangeResult, ChangeParkedAt>(
        'completing',
        `completing change ${input.changeId}`,
        () => database.completeFlightChange({ ...run, ...changed }),
        state,
        operator,
        {
          resume: 'completing',
          refuse: (d) => (d.action === 'compensate' ? 'the airline made the change; it is never compensated' : null),
          context,
        },
      ),
    ),
  );
  if (input.kind !== 'services' && changed.supplierChangeId) await endScheduleChange(input.orderId, changed.supplierChangeId);
  setStage('done');
  state.step = 'done';
  return result;
}

/**
 * A change the partner made replaces the airline's schedule change still waiting for a
 * decision: that workflow ends as `changed`. Told after the pivot, so it is never a reason to
 * fail: a schedule change not told stays for the partner or its deadline to decide.
 */
async function endScheduleChange(orderId: number, orderChangeId: string): Promise<void> {
  try {
    const pending = await database.pendingScheduleChangeOf(orderId);
    if (pending) await getExternalWorkflowHandle(pending.workflowId).signal(scheduleChangeChangedSignal, { orderChangeId });
  } catch (err) {
    log.warn('the pending schedule change was not told of the change', { orderId, message: stepFailure(err).message });
  }
}
