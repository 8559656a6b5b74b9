import type { VersioningBehavior } from '@temporalio/common';
import type { WorkflowType } from './registry.types';

/**
 * How each workflow type moves between worker versions (Worker Deployment Versioning;
 * docs/decisions/workflow-versioning.md). Every registered type is named here (tsc checks it).
 *
 * - PINNED: a short workflow (a payment, a saga, a cancellation, the placing of a hold) runs
 *   to its end on the version that started it; a new build takes only new runs, so a change
 *   to its code needs no patch.
 * - AUTO_UPGRADE: a long-lived workflow (a visa application, a villa stay, a hold's expiry
 *   timer, webhook delivery) moves to the current version at its next workflow task, so a
 *   change to its commands is a branch on a patch (`patched` of the workflow API), and its old
 *   histories keep replaying.
 */
export const VERSIONING_BEHAVIOR = {
  payOrder: 'PINNED',
  placeHotelHold: 'PINNED',
  cancelHotelOrder: 'PINNED',
  bookFlight: 'PINNED',
  refundFlight: 'PINNED',
  changeFlight: 'PINNED',
  prebookTour: 'PINNED',
  reserveResidence: 'PINNED',
  agencyHotelBooking: 'PINNED',
  agencyProductOrder: 'PINNED',
  hotelHoldExpiry: 'AUTO_UPGRADE',
  flightTimeLimit: 'AUTO_UPGRADE',
  offlineFlightRefund: 'AUTO_UPGRADE',
  tourPrebookExpiry: 'AUTO_UPGRADE',
  visaApplication: 'AUTO_UPGRADE',
  residenceReservation: 'AUTO_UPGRADE',
  deliverWebhooks: 'AUTO_UPGRADE',
  scheduleChange: 'AUTO_UPGRADE',
} as const satisfies Record<WorkflowType, VersioningBehavior>;

/** What a worker does with a workflow type this table does not name (none: tsc checks the table). */
export const DEFAULT_VERSIONING_BEHAVIOR: VersioningBehavior = 'AUTO_UPGRADE';
