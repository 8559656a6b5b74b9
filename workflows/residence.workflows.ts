import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities, HeldDates } from '../activities';
import type { HoldDatesInput } from './residence.types';
import type { StayUndo } from './residence.types';
import { DATABASE_STEP, SUPPLIER_STEP } from './activity-options';
import { startAbandoned } from './children';
import { ResidenceFailure } from './failure-types';
import { ridingOut } from './deadline';
import {
  acceptCancelSignal,
  CANCEL_AT_HOST_REFUSALS,
  modifyStayUpdate,
  requestCancelUpdate,
  reservationStateQuery,
  reservationWorkflowId,
  STAY_UNDO_REFUSALS,
  type ReservationInput,
  type StayChange,
} from './residence.types';
import { cancellationOperator, type OperatorInbox, parkUntilOperator, refundOrPark, untilDoneOrParked } from './park';
import type { CancellationState } from './park.types';
import { stepFailure, setStage as stage } from './steps';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

const GRACE_MS = 250;
const noonUtc = (day: string) => Date.parse(`${day}T12:00:00Z`);

/**
 * A change of a paid stay is told to the host (by the confirmation number the reservation
 * keeps) and undone here if the host does not take it: dates, guests and price back, the
 * wallet movement reversed. Changes run one at a time. A change the host did not answer
 * (unreachable, or its answers lost, through all the step's tries) is not taken for a
 * refusal: the host is asked what it holds; if it holds the change, the change stands, else
 * (or if it cannot be asked either) the change is undone here. An undo that cannot be
 * written (the database down past the step's tries, or refusing it) is owed, not dropped:
 * the change fails with `undo_owed`, the undo is tried again in the background and parks the
 * reservation for an operator's retry while it fails (`parkedAt: undoing_change`); until it
 * is written, further changes and a cancellation are refused (409), and the stay does not end.
 */
/** Whether the host answered the change with a refusal (a 4xx), not merely failed to answer. */
const refusedByHost = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable;

/** What the host holds, asked after a change it did not answer: 'made', 'not_made', or 'unknown' (it could not be asked). */
async function changeAtHost(confirmationNumber: string, change: StayChange): Promise<'made' | 'not_made' | 'unknown'> {
  try {
    const held = await supplier.stayAtHost({ confirmationNumber, ...(change.scenario ? { scenario: change.scenario } : {}) });
    const made = held?.status === 'confirmed' && held.checkIn === change.checkIn && held.checkOut === change.checkOut && held.guests === change.guests;
    return made ? 'made' : 'not_made';
  } catch (err) {
    log.warn('the host could not be asked whether it made a stay change', { message: stepFailure(err).message });
    return 'unknown';
  }
}

/**
 * Tells the host of a stay change; null when the host holds it. A refusal (a 4xx) comes back
 * as it came; a change the host did not answer is asked after, and comes back as
 * `host_unanswered` when the host does not hold it or cannot be asked.
 */
async function refusedAtHost(
  confirmationNumber: string,
  change: StayChange,
  context: { reservationId: number; seq: number },
): Promise<{ reason: string; failure: unknown } | null> {
  const { scenario, ...stay } = change;
  try {
    await supplier.amendAtHost({ confirmationNumber, ...stay, ...(scenario ? { scenario } : {}) });
    return null;
  } catch (err) {
    const reason = stepFailure(err).message;
    if (refusedByHost(err)) return { reason, failure: err };
    const atHost = await changeAtHost(confirmationNumber, change);
    log.info('asked the host after a stay change it did not answer', { ...context, atHost });
    if (atHost === 'made') return null;
    const held = atHost === 'not_made' ? 'the host does not hold it' : 'the host could not be asked whether it holds it';
    return { reason, failure: ApplicationFailure.nonRetryable(`the host did not answer the change (${reason}); ${held}`, ResidenceFailure.hostUnanswered) };
  }
}

/**
 * The host's system is told of a cancellation the host accepted; when that fails through the
 * step's tries (refused, or unreachable), the reservation parks for an operator at
 * `cancelling_at_host`: `retry` tells the host again, `confirm` records that the host did
 * cancel (its portal shows it) and writes the refund; `compensate` is refused.
 */
async function cancelAtHostOrPark(reservationId: number, tell: () => Promise<void>, state: CancellationState, operator: OperatorInbox): Promise<void> {
  for (;;) {
    state.step = 'cancelling_at_host';
    try {
      await tell();
      return;
    } catch (err) {
      state.lastError = `cancelling residence reservation ${reservationId} at the host failed: ${stepFailure(err).message}`;
      if (err instanceof ActivityFailure) state.failedStep = err.activityType;
      const decided = await parkUntilOperator(state, 'cancelling_at_host', operator, {
        resume: 'cancelling',
        refuse: (d) => (d.action === 'compensate' ? CANCEL_AT_HOST_REFUSALS.compensate : null),
        context: { orderId: null, reservationId },
      });
      if (decided.action === 'confirm') return;
    }
  }
}

/** Holds the dates (a database step under the property lock), then starts the reservation's lifecycle. */
export async function reserveResidence(input: HoldDatesInput & { autoAcceptCancelMs: number | null }): Promise<HeldDates> {
  const held = await database.holdResidenceDates(input);
  await startAbandoned(residenceReservation, reservationWorkflowId(held.reservationId), [
    { reservationId: held.reservationId, expiresAt: held.expiresAt, autoAcceptCancelMs: input.autoAcceptCancelMs },
  ]);
  return held;
}

/**
 * One reservation's life: held until paid (or expired at its deadline), then the stay —
 * which the partner may change (re-priced; the difference charged or refunded) or cancel
 * (the host accepts; the refund fixed by the policy at the request is credited) — until
 * check-out.
 */
export async function residenceReservation(input: ReservationInput): Promise<{ outcome: 'expired' | 'released' | 'cancelled' | 'completed' }> {
  const { workflowId, runId } = workflowInfo();
  const id = input.reservationId;
  let phase: 'held' | 'paid' | 'cancel_requested' | 'done' = 'held';
  let released = false;
  let cancelRequested = false;
  let cancelAccepted = false;
  let changes = 0;
  let confirmationNumber: string | null = null;

  setHandler(reservationStateQuery, () => phase);
  const cancellation: CancellationState = { orderId: null, reservationId: id, step: 'cancelling', stage: 'cancelling', lastError: null };
  const operator = cancellationOperator(cancellation);
  let changing = false;
  /** The undo of a refused change that could not be written at once, while it is written. */
  let owedUndo: Promise<void> | null = null;

  /** Puts a change the host did not take back, then fails the change with `refusal`; an undo that fails is owed, not dropped. */
  const undoOrOwe = async (undo: StayUndo, refusal: unknown): Promise<never> => {
    try {
      await database.undoResidenceStayChange(undo);
    } catch (err) {
      owedUndo = writeOwedUndo(undo);
      const said = refusal instanceof ActivityFailure ? `the host refused the change (${undo.reason})` : stepFailure(refusal).message;
      throw ApplicationFailure.nonRetryable(`${said}; it could not be undone here yet (${stepFailure(err).message})`, ResidenceFailure.undoOwed);
    }
    throw refusal;
  };

  /** The owed undo, tried again with its bounded retries and parked for an operator's retry while it fails. */
  const writeOwedUndo = async (undo: StayUndo) => {
    log.warn('a refused stay change could not be undone; it is owed', { reservationId: id, seq: undo.seq });
    const { step, stage: stageWas } = cancellation;
    await untilDoneOrParked(
      'undoing_change',
      `undoing change ${undo.seq} of residence reservation ${id}`,
      () => database.undoResidenceStayChange(undo),
      cancellation,
      operator,
      {
        resume: 'waiting',
        refuse: (d) => (d.action === 'retry' ? null : STAY_UNDO_REFUSALS[d.action]),
        context: { orderId: null, reservationId: id },
      },
    );
    Object.assign(cancellation, { step, stage: stageWas, lastError: null });
    owedUndo = null;
  };
  const undoUnderWay = () =>
    ApplicationFailure.nonRetryable('an earlier change of this stay was refused and is being undone; try again once it is', 'conflict');
  setHandler(
    modifyStayUpdate,
    async (change) => {
      await condition(() => !changing);
      // Admitted while an earlier change was refused: its undo is owed and comes first.
      if (owedUndo) throw undoUnderWay();
      changing = true;
      try {
        const seq = (changes += 1);
        const { scenario: _scenario, ...stay } = change;
        const before = await database.residenceStay(id);
        const result = await database.modifyResidenceStay({ workflowId, runId, reservationId: id, seq, ...stay });
        // A stay that can change is confirmed: the host knows it by the confirmation number the reservation keeps.
        if (before.confirmationNumber) {
          const refused = await refusedAtHost(before.confirmationNumber, change, { reservationId: id, seq });
          if (refused) await undoOrOwe({ workflowId, runId, reservationId: id, seq, previous: before, reason: refused.reason }, refused.failure);
        }
        return result;
      } finally {
        changing = false;
      }
    },
    {
      // Whether the stay can change is the database's call (paid? confirmed?), made inside the activity.
      validator: (_change: StayChange) => {
        if (phase === 'done') throw new Error('the reservation has ended');
        if (owedUndo) throw undoUnderWay();
      },
    },
  );
  setHandler(
    requestCancelUpdate,
    async () => {
      // Admitted while a refused change was being undone: the refund is fixed on the stay as it was.
      if (owedUndo) throw undoUnderWay();
      const r = await database.requestResidenceCancel(id);
      if (r.kind === 'released') {
        released = true;
        return { kind: 'released' as const, refundMinor: 0 };
      }
      confirmationNumber = r.confirmationNumber ?? confirmationNumber;
      cancelRequested = true;
      phase = 'cancel_requested';
      return { kind: 'requested' as const, refundMinor: r.refundMinor };
    },
    {
      validator: () => {
        if (phase === 'done') throw new Error('the reservation has ended');
        if (owedUndo) throw undoUnderWay();
      },
    },
  );
  setHandler(acceptCancelSignal, () => {
    cancelAccepted = true;
  });

  const finish = async <T>(outcome: T) => {
    phase = 'done';
    await condition(allHandlersFinished);
    return outcome;
  };

  // The hold: until it is paid, released, or past its deadline.
  stage('waiting', 'held');
  let deadline = input.expiresAt;
  let checkOut = '';
  for (;;) {
    // A cancellation request wakes the hold early: the stay may have been paid meanwhile.
    await condition(() => released || cancelRequested, Math.max(0, deadline - Date.now()) + GRACE_MS);
    if (released) return finish({ outcome: 'released' as const });
    const state = await ridingOut('the hold check', () => database.expireResidenceHold(id));
    if (state.state === 'expired' || state.state === 'gone') {
      stage('done', 'expired');
      return finish({ outcome: 'expired' as const });
    }
    if (state.state === 'held') {
      deadline = state.expiresAt;
      continue;
    }
    checkOut = state.checkOut;
    break;
  }

  // The stay: until check-out, unless it is cancelled.
  if (!cancelRequested) phase = 'paid';
  stage('waiting', 'confirmed');
  for (;;) {
    const untilCheckOut = Math.max(0, noonUtc(checkOut) - Date.now());
    await condition(() => cancelRequested, untilCheckOut);
    if (!cancelRequested) {
      // A stay ends as it was paid for: an undo still owed is written first.
      if (owedUndo) await owedUndo;
      await ridingOut('the stay end', () => database.completeResidenceStay(id));
      stage('done', 'completed');
      return finish({ outcome: 'completed' as const });
    }
    stage('cancelling', 'cancel_requested');
    if (input.autoAcceptCancelMs !== null) await condition(() => cancelAccepted, input.autoAcceptCancelMs);
    else await condition(() => cancelAccepted);
    if (confirmationNumber) {
      const tell = () => supplier.cancelAtHost({ confirmationNumber: confirmationNumber! });
      await cancelAtHostOrPark(id, tell, cancellation, operator);
    }
    // The pivot: the host has cancelled; the refund must be written.
    cancellation.supplierRef = confirmationNumber ?? undefined;
    const settle = () => database.settleResidenceCancel({ workflowId, runId, reservationId: id });
    await refundOrPark(`writing the refund of cancelled residence reservation ${id}`, settle, cancellation, operator);
    stage('done', 'cancelled');
    return finish({ outcome: 'cancelled' as const });
  }
}
