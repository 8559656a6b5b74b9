import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookedFlight, BookingActivities } from '../activities';
import type { FlightRefundResult } from '../src/domain/flights/refunds';
import { LEDGER_STEP, SUPPLIER_STEP } from './activity-options';
import { startAbandoned } from './children';
import { expireAtDeadline } from './deadline';
import { FailureType } from './failure-types';
import { FlightFailure, timeLimitWorkflowId, type RefundDecision, type RefundFlightInput } from './flight.types';
import { OrderStatus, Stage, type StageName } from './search-attributes';

const ledger = proxyActivities<BookingActivities>(LEDGER_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

export const refundDecisionSignal = defineSignal<[RefundDecision]>('refundDecision');
export const refundStateQuery = defineQuery<{ state: 'waiting' | 'decided'; decision: RefundDecision | null }>('refundState');

function stage(name: StageName, status?: string): void {
  upsertSearchAttributes([{ key: Stage, value: name }, ...(status ? [{ key: OrderStatus, value: status }] : [])]);
}

const failureType = (err: unknown) => (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : null);

/** Books the PNR (the travel order is created with it), then starts the ticket-time-limit timer. */
export async function bookFlight(input: { bookingId: number; clientReference: string }): Promise<BookedFlight> {
  stage('holding');
  let booked: BookedFlight;
  try {
    booked = await supplier.createAirBooking(input);
  } catch (err) {
    const f = failureType(err);
    stage('failed');
    if (f?.type === FailureType.holdRefused) throw ApplicationFailure.nonRetryable(f.message, FlightFailure.bookingRefused);
    throw err;
  }
  await startAbandoned(flightTimeLimit, timeLimitWorkflowId(input.bookingId), [{ bookingId: input.bookingId, expiresAt: booked.ticketTimeLimit }]);
  stage('done', 'pending');
  return booked;
}

/** Unpaid bookings expire at the ticket time limit: the order becomes expired and the PNR is cancelled (seats back). */
export async function flightTimeLimit(input: { bookingId: number; expiresAt: number }): Promise<{ expired: boolean }> {
  return expireAtDeadline(
    input.expiresAt,
    async () => {
      const check = await ledger.expireFlightBooking(input.bookingId);
      return check.done ? { done: true, release: check.pnr } : check;
    },
    (pnr) => supplier.cancelAirBooking(pnr),
  );
}

/**
 * An online refund: the airline refunds the ticket, then the refund is credited to the
 * wallet and the order is refunded. If the airline refuses, nothing changes.
 */
export async function refundFlight(input: RefundFlightInput): Promise<FlightRefundResult> {
  const { workflowId, runId } = workflowInfo();
  stage('cancelling');
  const { pnr } = await ledger.beginFlightRefund(input.orderId);
  try {
    await supplier.refundAtAirline({ pnr, clientReference: `${workflowId}/${runId}`, scenario: input.scenario });
  } catch (err) {
    const f = failureType(err);
    stage('failed');
    if (f?.type === FailureType.refundRejected) {
      throw ApplicationFailure.nonRetryable(`the airline refused the refund (${f.message}); nothing was refunded and the ticket stands`, FlightFailure.refundRejected);
    }
    throw err;
  }
  const result = await ledger.completeFlightRefund({
    workflowId,
    runId,
    orderId: input.orderId,
    refundMinor: input.refundMinor,
    penaltyMinor: input.penaltyMinor,
    how: 'online',
  });
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
  stage('waiting', 'refund_requested');
  await condition(() => decision !== null);
  const d = decision as RefundDecision | null;
  if (!d?.approve) {
    await ledger.rejectOfflineRefund(input.orderId);
    stage('done', 'completed');
    return { approved: false, result: null };
  }
  const result = await ledger.completeFlightRefund({
    workflowId,
    runId,
    orderId: input.orderId,
    refundMinor: d.amountMinor ?? 0,
    penaltyMinor: 0,
    how: 'offline',
  });
  stage('done', 'refunded');
  return { approved: true, result };
}
