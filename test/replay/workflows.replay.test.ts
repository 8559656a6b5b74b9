import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { parseSecretKey } from '../../src/platform/secret-box';
import { EncryptionCodec } from '../../src/temporal/payload-codec';
import { HISTORIES_DIR, REPLAY_PAYLOAD_KEY } from '../support/histories';

/**
 * Replays committed histories of real runs (recorded with RECORD_HISTORIES=1 by the
 * integration tests) against today's workflow code: a change that would break a
 * workflow already in flight in production fails here.
 */
describe('workflow replay', () => {
  // The engine's codec, as its workers have it: plain payloads pass through, encrypted ones decrypt.
  const codec = new EncryptionCodec(parseSecretKey(REPLAY_PAYLOAD_KEY)!);
  const files = fs.readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));

  it('has one history per outcome of every workflow', () => {
    expect([...files].sort()).toEqual(
      [
        // The payment: completed, compensated (A's order pending again; B's failed with it), decided by an operator, parked and retried.
        'pay-completed.json',
        'pay-compensated.json',
        'pay-fails-order-compensated.json',
        'pay-needs-attention-confirmed.json',
        'pay-needs-attention-compensated.json',
        'pay-parked-after-pivot-retried.json',
        'pay-parked-note-retried.json',
        'pay-reversal-parked-retried.json',
        'hotel-hold-place.json',
        // Recorded with the payload codec on: its payloads are ciphertext under the replay's test key.
        'hotel-hold-guests-encrypted.json',
        'hotel-hold-expiry.json',
        'hotel-hold-expiry-ridden-out.json',
        'hotel-cancel.json',
        'hotel-cancel-parked-retried.json',
        'hotel-cancel-failed.json',
        'flight-book.json',
        'flight-pay-ticketing.json',
        'flight-time-limit.json',
        'flight-refund.json',
        'flight-refund-parked-retried.json',
        'flight-refund-offline.json',
        'flight-refund-offline-parked-retried.json',
        'flight-change.json',
        'flight-change-refused.json',
        'flight-change-parked-compensated.json',
        'flight-bags.json',
        'tour-pay.json',
        'tour-prebook.json',
        'tour-prebook-expiry.json',
        'visa-pay.json',
        'visa-application.json',
        'visa-application-ridden-out.json',
        'residence-reserve.json',
        'residence-reservation.json',
        'residence-reservation-host-refused.json',
        'residence-reservation-host-unanswered.json',
        'residence-reservation-undo-owed-retried.json',
        'residence-cancel-at-host-parked-retried.json',
        'residence-cancel-parked-retried.json',
        'agency-hotel-booking.json',
        'agency-hotel-booking-compensated.json',
        'agency-product-order.json',
        'agency-product-order-failed.json',
        'agency-product-order-compensated.json',
        'webhook-delivered-after-retry.json',
        'webhook-endpoint-disabled.json',
        // An airline's schedule change: accepted, cancelled with its refund (a child), the default applied and an operator's look, reminded first.
        'schedule-change-accepted.json',
        'schedule-change-cancelled.json',
        'schedule-change-default-applied.json',
        'schedule-change-reminded.json',
      ].sort(),
    );
  });

  it.each(files)('replays %s deterministically', async (file) => {
    // fromObject, not the SDK's JSON loader: it accepts the history as the client fetched it.
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, dataConverter: { payloadCodecs: [codec] } },
      history,
      file.replace(/\.json$/, ''),
    );
  });
});
