import { proxyLocalActivities } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { LOCAL_DATABASE_STEP } from './activity-options';

const local = proxyLocalActivities<BookingActivities>(LOCAL_DATABASE_STEP);

/**
 * The floor of an orchestrated request (`bench:pay --floor`; docs/performance.md): a workflow
 * of one local activity that does nothing, started and awaited by the API's own client as a
 * payment is (eager start, the outcome from the worker next door), on the same worker and
 * Temporal server. What a payment costs above it is the engine's own work; what it costs is
 * what any durable step costs on that Temporal. No search attributes, no database, no supplier.
 */
export async function benchFloor(): Promise<{ ok: true }> {
  await local.benchNoop();
  return { ok: true };
}
