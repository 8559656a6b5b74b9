import { allHandlersFinished, ApplicationFailure, condition, executeChild, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import type { RecordedScheduleChange } from '../activities/schedule-changes';
import type { RefundResult as FlightRefundResult } from './refund.types';
import { DATABASE_STEP, SUPPLIER_STEP } from './activity-options';
import { ridingOut } from './deadline';
import { refundWorkflowId } from './flight.types';
import { refundFlight } from './flight.workflows';
import { parkUntilOperator, untilDoneOrParked, type OperatorInbox, type ParkOptions } from './park';
import { cancellationStateQuery, type CancellationState } from './park.types';
import { operatorDecisionSignal } from './pay.types';
import {
  decideScheduleChangeUpdate,
  scheduleChangeChangedSignal,
  scheduleChangeStateQuery,
  type ScheduleChangeDecision,
  type ScheduleChangeInput,
  type ScheduleChangeResult,
  type ScheduleChangeState,
} from './schedule-change.types';
import { OrderId, PartnerId, Service, Stage } from './search-attributes';
import { setStage } from './steps';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

/** Past a deadline by this much before acting on it, so that the worker's and the database's clocks agree it is over. */
const GRACE_MS = 250;

/**
 * An airline's change to an issued flight order, from the moment it is known to its end:
 * recorded and told to the partner (`order.schedule_changed`), then a durable wait for the
 * partner's decision (the update `decideScheduleChange`), with a reminder before the
 * deadline (`order.schedule_changed` again, `reminded_at` set). Accepted, the airline is
 * told and the order takes its new legs; cancelled, the order is refunded in full through
 * the flight refund (`refundFlight`, as a child). A change the partner made instead
 * (`scheduleChangeChanged`) ends it as `changed`. Past the deadline the configured default
 * is applied, and the workflow waits in `needs_attention` for an operator to look (retry or
 * confirm ends it). Applying a decision that fails through its step's tries parks for an
 * operator's retry. It ends with `order.schedule_change_resolved`.
 */
export async function scheduleChange(input: ScheduleChangeInput): Promise<ScheduleChangeResult> {
  const { orderId, changeId } = input;
  const state: ScheduleChangeState = {
    orderId,
    changeId,
    step: 'recording',
    stage: 'waiting',
    lastError: null,
    decideBy: null,
    decision: null,
    resolvedBy: null,
  };
  let decision: ScheduleChangeDecision | null = null;
  let changedBy: string | null = null;
  let recorded: RecordedScheduleChange | null = null;
  const operator: OperatorInbox = { decision: null };

  setHandler(scheduleChangeStateQuery, () => state);
  // What operators' tools ask of any parked workflow (admin needs-attention, order inspect).
  setHandler(cancellationStateQuery, () => state as unknown as CancellationState);
  setHandler(operatorDecisionSignal, (d) => {
    if (state.step === 'needs_attention') operator.decision = d;
  });
  const open = () => decision === null && changedBy === null && (state.step === 'recording' || state.step === 'waiting');
  setHandler(
    decideScheduleChangeUpdate,
    async (d) => {
      await condition(() => recorded !== null || !open());
      if (!open()) throw ApplicationFailure.nonRetryable('this schedule change is already decided', 'conflict');
      if (!recorded!.availableActions.includes(d.decision)) {
        throw ApplicationFailure.nonRetryable(
          `the airline does not offer to ${d.decision} this change (it offers: ${recorded!.availableActions.join(', ')})`,
          'validation',
        );
      }
      decision = d;
      return { decision: d.decision };
    },
    {
      validator: (d) => {
        if (d.decision !== 'accept' && d.decision !== 'cancel') throw new Error('decision must be accept or cancel');
        if (!open()) throw new Error('this schedule change is already decided');
      },
    },
  );
  setHandler(scheduleChangeChangedSignal, ({ orderChangeId }) => {
    if (open()) changedBy = orderChangeId;
  });

  recorded = await ridingOut('recording the schedule change', () => database.recordScheduleChange(input));
  state.decideBy = recorded.decideBy;
  if (recorded.status !== 'pending') {
    // Recorded and resolved by an earlier run of this id (its history since gone): nothing is left to do.
    state.step = 'done';
    setStage('done');
    return { orderId, changeId, status: recorded.status, resolvedBy: recorded.resolvedBy ?? 'partner', refund: null };
  }
  state.step = 'waiting';
  setStage('waiting');
  const decided = () => decision !== null || changedBy !== null;
  const until = (at: number) => Math.max(0, at - Date.now()) + GRACE_MS;
  if (recorded.remindAt !== null && !(await condition(decided, until(recorded.remindAt)))) {
    await ridingOut('reminding the partner', () => database.remindScheduleChange(input));
  }
  const byPartner = await condition(decided, until(recorded.decideBy));
  const resolvedBy: ScheduleChangeResult['resolvedBy'] = changedBy !== null ? 'change' : byPartner ? 'partner' : 'default';
  const partners = decision as ScheduleChangeDecision | null;
  const chosen = resolvedBy === 'change' ? null : (partners?.decision ?? recorded.defaultDecision);
  state.decision = chosen;
  state.resolvedBy = resolvedBy;

  const park: ParkOptions = {
    resume: 'completing',
    refuse: (d) => (d.action === 'compensate' ? 'the airline has been told the decision, which is not undone here: retry applies it again' : null),
    context: { orderId, changeId },
  };
  const orDone = <T>(what: string, step: () => Promise<T>) =>
    untilDoneOrParked<T, NonNullable<ScheduleChangeState['parkedAt']>>('applying_decision', what, step, state, operator, park);
  let refund: FlightRefundResult | null = null;
  let status: ScheduleChangeResult['status'];
  if (chosen === 'accept') {
    state.step = 'accepting';
    setStage('completing');
    const scenario = partners?.scenario;
    const { legs } = await orDone(`accepting schedule change ${changeId} of order ${orderId}`, () =>
      supplier.acceptScheduleChangeAtAirline({ ...input, ...(scenario ? { scenario } : {}) }),
    );
    await orDone(`recording the accepted schedule change ${changeId}`, () =>
      database.resolveScheduleChange({ orderId, changeId, status: 'accepted', resolvedBy, legs }),
    );
    status = 'accepted';
  } else if (chosen === 'cancel') {
    state.step = 'cancelling';
    setStage('cancelling');
    const terms = await orDone(`quoting the refund of order ${orderId}`, () => supplier.scheduleChangeRefund(orderId));
    const { partnerId, ...args } = terms;
    refund = await orDone(`refunding order ${orderId} after schedule change ${changeId}`, () =>
      executeChild(refundFlight, {
        workflowId: refundWorkflowId(partnerId, orderId),
        args: [args],
        typedSearchAttributes: [
          { key: PartnerId, value: partnerId },
          { key: OrderId, value: orderId },
          { key: Service, value: 'flight' },
          { key: Stage, value: 'cancelling' },
        ],
      }),
    );
    await orDone(`recording the cancelled schedule change ${changeId}`, () =>
      database.resolveScheduleChange({ orderId, changeId, status: 'cancelled', resolvedBy }),
    );
    status = 'cancelled';
  } else {
    await ridingOut('recording the change that replaced the schedule change', () =>
      database.resolveScheduleChange({ orderId, changeId, status: 'changed', resolvedBy }),
    );
    status = 'changed';
  }

  if (resolvedBy === 'default') {
    // The partner did not decide: an operator looks at what the default did (and tells the partner).
    state.lastError = `the partner did not decide by the deadline; the default (${chosen}) was applied`;
    await parkUntilOperator(state, 'default_applied', operator, { ...park, resume: 'done' });
  }
  state.step = 'done';
  setStage('done');
  await condition(allHandlersFinished);
  return { orderId, changeId, status, resolvedBy, refund };
}
