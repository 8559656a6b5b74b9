import { ActivityFailure, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import { DATABASE_STEP } from './activity-options';
import { ridingOut } from './deadline';
import { webhookWakeSignal, type WebhookDeliveryInput, type WebhookDeliveryResult } from './webhook.types';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);

/** How many deliveries one fetch brings, and after how many a run continues as new. */
const BATCH = 20;
const DELIVERIES_PER_RUN = 500;
/** How long an endpoint's workflow waits for more before it ends (the relay starts it again). */
const IDLE_WAIT_MS = 60_000;

/** "3 days", "2 h", "4 s": how long the endpoint was tried, for its disabled reason. */
const span = (ms: number) =>
  ms >= 86_400_000 ? `${+(ms / 86_400_000).toFixed(1)} days` : ms >= 3_600_000 ? `${+(ms / 3_600_000).toFixed(1)} h` : `${Math.round(ms / 1000)} s`;

/** The step's failure, its innermost cause first (the activity store has the last attempt's own, see disableEndpoint). */
function deepestMessage(err: Error): string {
  let e: Error = err;
  while (e.cause instanceof Error) e = e.cause;
  return e.message;
}

/**
 * Delivers an endpoint's events one at a time in event order, so each order's events
 * arrive in the order they happened. A failed attempt is retried with exponential backoff
 * (Temporal's retry policy, every attempt recorded by the activity); an event still not
 * taken after `giveUpAfterMs` (3 days by default) disables the endpoint. The run ends when
 * nothing has been owed for a minute; the relay starts it again with the next event.
 * It upserts no search attributes: its pending activity in Temporal Web shows where it is,
 * and the attempts are in the database (admin: webhooks deliveries).
 */
export async function deliverWebhooks(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { retry } = input;
  const send = proxyActivities<BookingActivities>({
    startToCloseTimeout: retry.attemptTimeoutMs + 5_000,
    scheduleToCloseTimeout: retry.giveUpAfterMs,
    // The step heartbeats while it waits for the receiver: a worker that died mid-delivery is noticed in seconds.
    heartbeatTimeout: '5s',
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: retry.maximumIntervalMs,
    },
  });
  let woken = false;
  setHandler(webhookWakeSignal, () => {
    woken = true;
  });
  let delivered = input.delivered ?? 0;
  for (;;) {
    woken = false;
    // Ridden out: a run that failed here would leave what it was owed until the endpoint's next event.
    const next = await ridingOut('reading the deliveries owed', () => database.pendingWebhookDeliveries({ endpointId: input.endpointId, limit: BATCH }));
    if (next.status !== 'enabled') return { delivered, ended: next.status === 'disabled' ? 'endpoint_disabled' : 'endpoint_gone' };
    for (const deliveryId of next.deliveryIds) {
      try {
        // Not owed any more (delivered by an attempt whose answer was lost, or its endpoint deleted): not counted.
        if ((await send.deliverWebhook({ deliveryId, timeoutMs: retry.attemptTimeoutMs })).outcome === 'delivered') delivered++;
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        // Retries spent: the endpoint keeps failing. Disabled, it is owed nothing more until re-enabled.
        const reason = `delivery ${deliveryId} still failing after ${span(retry.giveUpAfterMs)}`;
        const failure = deepestMessage(err);
        await ridingOut('disabling the endpoint', () => database.disableWebhookEndpoint({ endpointId: input.endpointId, deliveryId, reason, failure }));
        return { delivered, ended: 'endpoint_disabled' };
      }
    }
    if (next.deliveryIds.length === 0) {
      if (!(await condition(() => woken, input.idleMs ?? IDLE_WAIT_MS))) return { delivered, ended: 'idle' };
    }
    if (delivered - (input.delivered ?? 0) >= DELIVERIES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof deliverWebhooks>({ ...input, delivered });
    }
  }
}
