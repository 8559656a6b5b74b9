import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { HISTORIES_DIR } from '../support/histories';

/**
 * Replays committed histories of real runs (recorded with RECORD_HISTORIES=1 by the
 * integration tests) against today's workflow code: a change that would break a
 * workflow already in flight in production fails here.
 */
describe('workflow replay', () => {
  const files = fs.readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));

  it('has the histories of every workflow', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'pay-completed.json',
        'pay-compensated.json',
        'pay-needs-attention-confirmed.json',
        'pay-needs-attention-compensated.json',
        'pay-local-ledger.json',
        'pay-lean-completed.json',
        'pay-lean-compensated.json',
        // Lean payments whose supplier step completes the order (PayInput.completeInSupplierStep).
        'pay-lean-folded-completed.json',
        'pay-lean-folded-compensated.json',
        'pay-lean-folded-completion-parked-retried.json',
        'pay-parked-after-pivot-retried.json',
        // Parked workflows that write their operator-only order.needs_attention event (NEEDS_ATTENTION_EVENT_PATCH).
        'pay-parked-after-pivot-retried-noted.json',
        'pay-parked-note-retried.json',
        'pay-reversal-parked-retried-noted.json',
        'residence-cancel-parked-retried-noted.json',
        'pay-reversal-parked-retried.json',
        'hotel-hold-place.json',
        'hotel-hold-expiry.json',
        // A deadline check that failed past its tries, ridden out (DEADLINE_RIDES_OUT_PATCH).
        'hotel-hold-expiry-ridden-out.json',
        'hotel-cancel.json',
        'hotel-cancel-parked-retried.json',
        'hotel-cancel-failed.json',
        'flight-book.json',
        'flight-pay-ticketing.json',
        'flight-time-limit.json',
        'flight-refund.json',
        'flight-refund-parked-retried.json',
        'flight-refund-offline-parked-retried.json',
        'flight-refund-offline.json',
        'tour-pay.json',
        'tour-prebook.json',
        'visa-pay.json',
        'visa-application.json',
        'visa-application-ridden-out.json',
        'residence-reserve.json',
        'residence-reservation.json',
        // A stay whose changes are told to the host, and undone when it refuses (AMEND_AT_HOST_PATCH).
        'residence-reservation-host-refused.json',
        // A change the host did not answer, asked after: kept when made, undone when not (AMEND_INQUIRY_PATCH).
        'residence-reservation-host-unanswered.json',
        // A refused change whose undo could not be written: owed, parked, retried by an operator (UNDO_OWED_PATCH).
        'residence-reservation-undo-owed-retried.json',
        // A cancellation the host accepted whose host system refused it: parked, retried (CANCEL_AT_HOST_PARKS_PATCH).
        'residence-cancel-at-host-parked-retried.json',
        'residence-cancel-parked-retried.json',
        'agency-hotel-booking.json',
        'agency-product-order.json',
        // Interface B's parents that tell their stage and order status (AGENCY_STAGES_PATCH).
        'agency-hotel-booking-stages.json',
        'agency-hotel-booking-compensated.json',
        'agency-product-order-stages.json',
        'agency-product-order-failed.json',
        'tour-prebook-expiry.json',
        'webhook-delivered-after-retry.json',
        'webhook-endpoint-disabled.json',
        // Recorded again once the delivery workflow's last two command-neutral edits had landed
        // (the count of deliveries made, the disable step's input); the first recordings stay.
        'webhook-delivered-after-retry-v2.json',
        'webhook-endpoint-disabled-v2.json',
        // The benchmarks' floor workflow (bench:pay --floor).
        'bench-floor.json',
      ]),
    );
  });

  it.each(files)('replays %s deterministically', async (file) => {
    // fromObject, not the SDK's JSON loader: it accepts the history as the client fetched it.
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, file.replace(/\.json$/, ''));
  });
});
