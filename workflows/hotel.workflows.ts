import { proxyActivities } from '@temporalio/workflow';
import type { BookingActivities, PlacedHold, PlaceHoldInput } from '../activities';
import type { RefundResult as CancellationResult } from './refund.types';
import { DATABASE_STEP, SUPPLIER_STEP } from './activity-options';
import { startAbandoned } from './children';
import { expireAtDeadline, releasing } from './deadline';
import { FailureType } from './failure-types';
import { holdExpiryWorkflowId, type CancelHotelInput } from './hotel.types';
import { withReason } from './messages';
import { openCancellation, refundOrPark } from './park';
import { Saga } from './saga';
import { refusable, setStage as stage } from './steps';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);
const supplier = proxyActivities<BookingActivities>(SUPPLIER_STEP);

/**
 * Places a hotel hold (or gives it its guests), then makes sure a durable timer will
 * expire it if nobody pays: the timer is a workflow of its own that outlives this one.
 */
export async function placeHotelHold(input: PlaceHoldInput): Promise<PlacedHold> {
  stage('holding');
  const placed = await refusable(() => supplier.placeHotelHold(input), { type: FailureType.holdRefused });
  // Adding guests to a prebooked hold: its timer already runs and will read the new deadline.
  await startAbandoned(hotelHoldExpiry, holdExpiryWorkflowId(input.bookingId), [{ bookingId: input.bookingId, expiresAt: placed.expiresAt }]);
  stage('done', placed.status);
  return placed;
}

/**
 * The durable hold timer: expires the unpaid hold at its deadline and gives the rooms
 * back; a deadline moved later (guests added) is slept again.
 */
export async function hotelHoldExpiry(input: { bookingId: number; expiresAt: number }): Promise<{ expired: boolean }> {
  const check = releasing('supplierHoldId', () => database.expireHotelHold(input.bookingId));
  return expireAtDeadline(input.expiresAt, check, (holdId) => supplier.releaseHotelHold(holdId));
}

/**
 * Cancels a hotel order, as a saga with nothing to undo before its pivot: a paid
 * reservation is cancelled at the hotel, an unpaid hold is released with no money moving.
 * If the hotel refuses, nothing changes and the workflow fails so that the cancellation can
 * be asked again. The pivot is the hotel's cancellation: the refund is then written or the
 * workflow parks for an operator.
 */
export async function cancelHotelOrder(input: CancelHotelInput): Promise<CancellationResult> {
  const { state, operator, run, clientReference } = openCancellation(input.orderId);
  const saga = new Saga<'begin' | 'cancel' | 'refund'>();
  const start = await saga.step('begin', () => database.beginHotelCancellation(input.orderId));
  state.supplierRef = start.confirmationNumber ?? start.supplierHoldId ?? undefined;
  await saga.step('cancel', async () => {
    if (start.kind === 'paid' && start.confirmationNumber) {
      const cancel = { confirmationNumber: start.confirmationNumber, clientReference, scenario: input.scenario };
      await refusable(() => supplier.cancelAtSupplier(cancel), {
        type: FailureType.cancelRejected,
        message: (m) => `${withReason('the hotel refused the cancellation', m)}; nothing was refunded and the booking stands`,
      });
    } else if (start.supplierHoldId) {
      await supplier.releaseHotelHold(start.supplierHoldId);
    }
  });
  saga.pivot();
  const paid = start.kind === 'paid';
  const refund = () =>
    database.completeHotelCancellation({
      ...run,
      orderId: input.orderId,
      kind: start.kind,
      refundMinor: paid ? input.refundMinor : 0,
      penaltyMinor: paid ? input.penaltyMinor : 0,
    });
  const result = await saga.step('refund', () => refundOrPark(`writing the refund of cancelled hotel order ${input.orderId}`, refund, state, operator));
  stage('done', 'cancelled');
  return result;
}
