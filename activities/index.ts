import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Db } from '../src/db/client';
import type { PricingDeps } from '../src/domain/money/pricing';
import type { Suppliers } from '../src/suppliers';
import { agencyActivities } from './agency';
import { finalizeActivities, type FinalizeAttempts } from './finalize';
import { flightActivities } from './flights';
import { flightChangeActivities } from './flight-changes';
import { hotelActivities } from './hotels';
import { operatorActivities } from './operators';
import { payFastPathActivity } from './pay-fast-path';
import { paymentActivities } from './payments';
import { residenceActivities } from './residence';
import { scheduleChangeActivities } from './schedule-changes';
import type { ScheduleChangeSettings } from '../src/domain/flights/schedule-changes';
import { tourActivities } from './tours';
import { visaActivities } from './visa';
import { webhookActivities, type WebhookDeps } from './webhooks';

export interface ActivityDeps extends Suppliers {
  db: Db;
  /** How supplier amounts become the partner's prices (src/domain/money/pricing.ts). */
  pricing: PricingDeps;
  /** When a payment's supplier step stops retrying and asks the supplier instead (default 5 attempts). */
  finalizeAttempts?: FinalizeAttempts;
  /** Webhook deliveries: whether endpoints may resolve to private addresses, and the key their secrets are sealed with. */
  webhooks: WebhookDeps;
  /** How long partners have to decide on an airline's schedule change, and the default (SCHEDULE_CHANGE_*). */
  scheduleChanges: ScheduleChangeSettings;
}

/**
 * Activities are built from injected dependencies, so the worker (and tests) decide what they
 * talk to. `stepInterceptors` are the worker's extra activity interceptors: they see each step
 * of a payment's fast path as the activity of its name.
 */
export function createActivities(deps: ActivityDeps, stepInterceptors: readonly ActivityInterceptorsFactory[] = []) {
  const payments = paymentActivities(deps.db);
  const finalize = finalizeActivities(deps);
  return {
    ...payments,
    ...payFastPathActivity({ ...payments, ...finalize }, stepInterceptors),
    ...operatorActivities(deps.db),
    ...finalize,
    ...hotelActivities(deps.db, deps.hotelSupplierOf, deps.pricing),
    ...flightActivities(deps.db, deps.flightSupplierOf, deps.pricing),
    ...flightChangeActivities(
      deps.db,
      deps.flightSupplierOf,
      deps.flightAfterSaleOf,
      deps.finalizeAttempts?.byService?.flight ?? deps.finalizeAttempts?.default,
    ),
    ...tourActivities(deps.db, deps.pricing),
    ...visaActivities(deps.db),
    ...residenceActivities(deps.db, deps.residenceHost, deps.pricing),
    ...agencyActivities(deps.db),
    ...webhookActivities(deps.db, deps.webhooks),
    ...scheduleChangeActivities(deps),
  };
}

export type BookingActivities = ReturnType<typeof createActivities>;
export type { BookedFlight } from '../workflows/flight.types';
export type { PlacedHold } from '../workflows/hotel.types';
export type { PlaceHoldInput } from '../workflows/hotel.types';
export type { HeldTourSeats } from '../workflows/tour.types';
export type { AmendAtHostInput, StayAtHost } from './residence';
export type { HeldDates } from '../workflows/residence.types';
