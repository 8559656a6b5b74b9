import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BookedFlight, BookingActivities } from '../activities';
import type { RefundResult as FlightRefundResult } from './refund.types';
import { DATABASE_STEP, SUPPLIER_STEP } from './activity-options';
import { startAbandoned } from './children';
import { expireAtDeadline, releasing } from './deadline';
import { FailureType } from './failure-types';
import { refundDecisionSignal, refundStateQuery, timeLimitWorkflowId, type BookFlightInput, type RefundDecision, type RefundFlightInput } from './flight.types';
import { withReason } from './messages';
import { cancellationOperator, openCancellation, refundOrPark } from './park';
import { Saga } from './saga';
import type { CancellationState } from './park.types';
import { refusable, setStage as stage } from './steps';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

/** Books the PNR (the travel order is created with it), then starts the ticket-time-limit timer. */
export async function bookFlight(input: BookFlightInput): Promise<BookedFlight> {
  stage('holding');
  const booked = await refusable(() => supplier.createAirBooking(input), { type: FailureType.holdRefused });
  await startAbandoned(flightTimeLimit, timeLimitWorkflowId(input.bookingId), [{ bookingId: input.bookingId, expiresAt: booked.ticketTimeLimit }]);
  stage('done', 'pending');
  return booked;
}

/** Unpaid bookings expire at the ticket time limit: the order becomes expired and the PNR is cancelled (seats back). */
export async function flightTimeLimit(input: { bookingId: number; expiresAt: number }): Promise<{ expired: boolean }> {
  const check = releasing('pnr', () => database.expireFlightBooking(input.bookingId));
  return expireAtDeadline(input.expiresAt, check, (pnr) => supplier.cancelAirBooking(pnr));
}

/**
 * An online refund, as a saga with nothing to undo before its pivot: the airline refunds the
 * ticket; if it refuses, nothing changes. The pivot is the airline's refund: the wallet's
 * refund is then written (the order refunded) or the workflow parks for an operator.
 */
export async function refundFlight(input: RefundFlightInput): Promise<FlightRefundResult> {
  const { state, operator, run, clientReference } = openCancellation(input.orderId);
  const saga = new Saga<'begin' | 'refund_at_airline' | 'refund'>();
  const { pnr } = await saga.step('begin', () => database.beginFlightRefund(input.orderId));
  state.supplierRef = pnr;
  const quote = input.airlineQuote ? { quote: input.airlineQuote } : {};
  await saga.step('refund_at_airline', () =>
    refusable(() => supplier.refundAtAirline({ pnr, clientReference, scenario: input.scenario, ...quote }), {
      type: FailureType.refundRejected,
      message: (m) => `${withReason('the airline refused the refund', m)}; nothing was refunded and the ticket stands`,
    }),
  );
  saga.pivot();
  const refund = () =>
    database.completeFlightRefund({
      ...run,
      orderId: input.orderId,
      refundMinor: input.refundMinor,
      penaltyMinor: input.penaltyMinor,
      how: 'online',
      ...(input.airlineQuote ? { supplierRefund: input.airlineQuote.refund } : {}),
      ...(input.airlineRefundMinor !== undefined ? { supplierRefundValuedMinor: input.airlineRefundMinor } : {}),
    });
  const what = `writing the refund of flight order ${input.orderId} (the airline refunded ${pnr})`;
  const result = await saga.step('refund', () => refundOrPark(what, refund, state, operator));
  stage('done', 'refunded');
  return result;
}

/**
 * An offline refund request waits, durably, for an operator: approved, the amount the
 * operator settled with the airline is credited; rejected, the ticket stands.
 */
export async function offlineFlightRefund(input: { orderId: number }): Promise<{ approved: boolean; result: FlightRefundResult | null }> {
  const { workflowId, runId } = workflowInfo();
  let decision: RefundDecision | null = null;
  setHandler(refundDecisionSignal, (d) => {
    decision ??= d;
  });
  setHandler(refundStateQuery, () => ({ state: decision ? 'decided' : 'waiting', decision }));
  const state: CancellationState = { orderId: input.orderId, step: 'waiting', stage: 'waiting', lastError: null };
  const operator = cancellationOperator(state);
  stage('waiting', 'refund_requested');
  await condition(() => decision !== null);
  const d = decision as RefundDecision | null;
  if (!d?.approve) {
    await database.rejectOfflineRefund(input.orderId);
    stage('done', 'completed');
    return { approved: false, result: null };
  }
  // The operator settled it with the airline: the wallet's refund must be written.
  const refund = () =>
    database.completeFlightRefund({ workflowId, runId, orderId: input.orderId, refundMinor: d.amountMinor ?? 0, penaltyMinor: 0, how: 'offline' });
  const result = await refundOrPark(`writing the offline refund of flight order ${input.orderId}`, refund, state, operator);
  stage('done', 'refunded');
  return { approved: true, result };
}
