import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  log,
  proxyLocalActivities,
  proxySinks,
  setHandler,
  TemporalFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { OPERATOR_NOTE_STEP } from './activity-options';
import type { OutcomeSinks } from './outcome.types';
import { CANCELLATION_REFUSALS, cancellationStateQuery, type CancellationParkedAt, type CancellationState } from './park.types';
import { operatorDecisionSignal, type OperatorDecision } from './pay.types';
import { Stage, type StageName } from './search-attributes';
import { stepFailure, setStage } from './steps';

/** What a workflow that can park shows while it waits: its query's state. */
export interface Parkable<P extends string> {
  step: string;
  stage: string;
  lastError: string | null;
  parkedAt?: P;
  failedStep?: string;
}

/** Where an operator's decision lands: set by the signal handler while parked, taken by the waiting workflow. */
export interface OperatorInbox {
  decision: OperatorDecision | null;
}

export interface ParkOptions {
  /** The stage the workflow goes back to once an operator decided. */
  resume: StageName;
  /** Why a decision does not apply here (null when it does); a refused one leaves the workflow parked. */
  refuse: (d: OperatorDecision) => string | null;
  /** For the log lines and the operators' event: what is parked (the order; a stay's reservation when it has no order id). */
  context: { orderId: number | null; reservationId?: number } & Record<string, unknown>;
}

const notes = proxyLocalActivities<BookingActivities>(OPERATOR_NOTE_STEP);
const { outcomes } = proxySinks<OutcomeSinks>();

/** Writes the parked workflow's operator-only event; whether it was written (a failure is logged, never thrown). */
async function noteParked(at: string, state: Parkable<string>, o: ParkOptions): Promise<boolean> {
  try {
    const { orderId, reservationId } = o.context;
    await notes.recordNeedsAttention({ orderId, reservationId, workflowId: workflowInfo().workflowId, parkedAt: at, lastError: state.lastError });
    return true;
  } catch (err) {
    log.warn('the needs_attention event could not be written; the workflow is parked all the same', { ...o.context, message: stepFailure(err).message });
    return false;
  }
}

/**
 * A parked workflow writes an operator-only `order.needs_attention` event
 * (src/domain/events.ts, OPERATOR_EVENT_TYPES). When it cannot be written as it parks (a
 * workflow often parks because the database is down), it is written again while the
 * workflow stays parked: after 10 s, doubling up to 10 min between tries, for at most a
 * day. A write whose answer was lost may be written twice (the event is at least once).
 */
const NOTE_RETRY_FIRST_MS = 10_000;
const NOTE_RETRY_MAX_MS = 600_000;
const NOTE_RETRY_FOR_MS = 24 * 3600_000;

/**
 * Parks the workflow in `Stage = "needs_attention"` (its state says where and why) until an
 * operator's decision that applies arrives, then puts it back at `resume` and returns the
 * decision. Refused decisions are written into the state's last error and waited past.
 */
export async function parkUntilOperator<P extends string>(state: Parkable<P>, at: P, operator: OperatorInbox, o: ParkOptions): Promise<OperatorDecision> {
  state.step = 'needs_attention';
  state.stage = 'needs_attention';
  state.parkedAt = at;
  setStage('needs_attention');
  log.warn('workflow parked for an operator', { ...o.context, parkedAt: at, lastError: state.lastError });
  let noted = await noteParked(at, state, o);
  // Whoever waits for this run in the worker's own process answers "under way" now (src/temporal/outcomes.ts).
  if (!workflowInfo().unsafe.isReplaying) outcomes.parked();
  const parkedSince = Date.now();
  let retryInMs = NOTE_RETRY_FIRST_MS;
  for (;;) {
    const decided = () => operator.decision !== null;
    if (!noted && Date.now() - parkedSince < NOTE_RETRY_FOR_MS) {
      if (!(await condition(decided, retryInMs))) {
        noted = await noteParked(at, state, o);
        retryInMs = Math.min(retryInMs * 2, NOTE_RETRY_MAX_MS);
        continue;
      }
    } else await condition(decided);
    const d = operator.decision!;
    operator.decision = null;
    const refused = o.refuse(d);
    if (refused === null) {
      state.lastError = `${d.action} by ${d.operator}: ${d.reason}`;
      state.parkedAt = undefined;
      state.failedStep = undefined;
      state.stage = o.resume;
      setStage(o.resume);
      if (!workflowInfo().unsafe.isReplaying) outcomes.resumed();
      return d;
    }
    // The admin API refuses it before signalling; a signal sent some other way lands here.
    state.lastError = `${d.action} by ${d.operator} refused: ${refused}`;
    log.warn('operator decision refused', { ...o.context, parkedAt: at, action: d.action });
  }
}

/** A step's final failure met before it is run here (in a saga's local run): the activity it ran as, and the failure. */
export interface FailedBefore {
  activityType: string;
  failure: Error;
}

/**
 * A step that must happen and has no alternative (a completion after the supplier
 * confirmed, a reversal, a refund after the supplier cancelled): tried with its bounded
 * retries; when it still fails, the workflow parks for an operator, then tries again. It
 * never gives up by itself and never turns into another outcome. A step that already
 * failed for good (`failedBefore`) parks first.
 */
export async function untilDoneOrParked<T, P extends string>(
  at: P,
  what: string,
  step: () => Promise<T>,
  state: Parkable<P>,
  operator: OperatorInbox,
  o: ParkOptions,
  failedBefore?: FailedBefore,
): Promise<T> {
  let failed = failedBefore;
  for (;;) {
    state.step = at;
    if (!failed) {
      try {
        return await step();
      } catch (err) {
        failed = { activityType: err instanceof ActivityFailure ? err.activityType : '', failure: err as Error };
      }
    }
    state.lastError = `${what} failed: ${stepFailure(failed.failure).message}`;
    if (failed.activityType) state.failedStep = failed.activityType;
    failed = undefined;
    await parkUntilOperator(state, at, operator, o);
  }
}

/**
 * The operator's side of a cancellation: its state query and the decision signal (taken only
 * while parked). Registers no command.
 */
export function cancellationOperator(state: CancellationState): OperatorInbox {
  const operator: OperatorInbox = { decision: null };
  setHandler(cancellationStateQuery, () => state);
  setHandler(operatorDecisionSignal, (d) => {
    if (state.step === 'needs_attention') operator.decision = d;
  });
  return operator;
}

/**
 * A cancellation of an order under way: its state (queried), the operator's inbox, Stage
 * `cancelling`; and this run, which keys its steps (the supplier's client reference, the
 * refund's ledger entry).
 */
export function openCancellation(orderId: number) {
  const { workflowId, runId } = workflowInfo();
  const state: CancellationState = { orderId, step: 'cancelling', stage: 'cancelling', lastError: null };
  const operator = cancellationOperator(state);
  setStage('cancelling');
  return { state, operator, run: { workflowId, runId }, clientReference: `${workflowId}/${runId}` };
}

/**
 * A cancellation's pivot: the supplier has cancelled (or refunded), so the partner's refund
 * must be written. It is retried with its bounded policy and, when it still fails, parks
 * at `refunding` for an operator's retry (confirm and compensate do not apply).
 */
export async function refundOrPark<T>(what: string, write: () => Promise<T>, state: CancellationState, operator: OperatorInbox): Promise<T> {
  const refuse = (d: OperatorDecision) => (d.action === 'retry' ? null : CANCELLATION_REFUSALS[d.action]);
  const at: CancellationParkedAt = 'refunding';
  const result = await untilDoneOrParked(at, what, write, state, operator, {
    resume: 'cancelling',
    refuse,
    context: { orderId: state.orderId, reservationId: state.reservationId },
  });
  state.step = 'done';
  state.stage = 'done';
  return result;
}

/**
 * What a workflow that fails ends with (its interceptor, workflows/interceptors.ts): the
 * Stage becomes `failed`, so an operator finds every failed booking by Stage, and a step's
 * failure escaping the workflow (an ActivityFailure) is wrapped in one whose message names
 * the step. The wrapper has no type, so whoever reads the failure's typed cause (the API's
 * answers) finds the typed failure the step raised. Cancellation and continue-as-new pass untouched.
 */
export function failedWorkflow(err: unknown): unknown {
  // What fails a workflow (anything else fails its task, or is a cancellation).
  const fails = err instanceof TemporalFailure && !isCancellation(err);
  if (!fails) return err;
  if (workflowInfo().typedSearchAttributes.get(Stage) !== 'failed') setStage('failed');
  if (!(err instanceof ActivityFailure)) return err;
  return ApplicationFailure.create({ message: `${err.activityType} failed: ${stepFailure(err).message}`, nonRetryable: true, cause: err });
}
