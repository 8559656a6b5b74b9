import { proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './floor.activities';

/** As a payment's database steps run: a local activity, with their timeouts. */
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30s', localRetryThreshold: '10s' });

/**
 * The floor of an orchestrated request (`bench:pay --floor`): a workflow of one local
 * activity that does nothing, started and awaited by the API's own client as a payment is,
 * in the same process and on the same Temporal server. What a payment costs above it is the
 * engine's own work; what it costs is what any durable step costs on that Temporal. No search
 * attributes, no database, no supplier.
 */
export async function benchFloor(): Promise<{ ok: true }> {
  await local.benchNoop();
  return { ok: true };
}
