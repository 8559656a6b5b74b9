import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Db } from '../src/db/client';
import { markRelayed, unrelayedDeliveries } from '../src/domain/webhooks';
import { logError } from '../src/platform/log';
import { signalWithStart } from '../src/temporal/workflows';
import { webhookWakeSignal, webhookWorkflowId, type WebhookRetry } from '../workflows/webhook.types';
import { repeat } from './repeat';

/** The delivery workflows' retry policy, from the configuration. */
export const webhookRetry = (config: Config): WebhookRetry => ({
  initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
  maximumIntervalMs: config.WEBHOOK_RETRY_MAX_MS,
  giveUpAfterMs: config.WEBHOOK_GIVE_UP_MS,
  attemptTimeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
});

export interface WebhookRelay {
  stop(): Promise<void>;
}

/**
 * The outbox's relay: every `intervalMs` it looks for deliveries written since (the events'
 * fan-out trigger writes them with each event) and wakes their endpoint's delivery workflow,
 * starting it when none runs (signal-with-start on the endpoint's workflow id). Every worker
 * process runs one; two relays waking one endpoint cost a spare signal, nothing more. Rows
 * are marked relayed only after the wake was accepted, so a relay that dies in between
 * leaves them for the next round.
 */
export function startWebhookRelay(opts: {
  db: Db;
  client: Client;
  taskQueue: string;
  retry: WebhookRetry;
  intervalMs: number;
  /** How long a delivery workflow with nothing owed waits before it ends (default a minute). */
  idleMs?: number;
}): WebhookRelay {
  let failing = false;

  async function relayOnce(): Promise<void> {
    const owed = await unrelayedDeliveries(opts.db);
    for (const [endpointId, deliveryIds] of owed) {
      await signalWithStart(opts.client, 'deliverWebhooks', {
        workflowId: webhookWorkflowId(endpointId),
        taskQueue: opts.taskQueue,
        args: [{ endpointId, retry: opts.retry, ...(opts.idleMs === undefined ? {} : { idleMs: opts.idleMs }) }],
        signal: webhookWakeSignal,
        signalArgs: [],
      });
      await markRelayed(opts.db, deliveryIds);
    }
  }

  return repeat({ firstMs: opts.intervalMs, everyMs: opts.intervalMs }, () =>
    relayOnce().then(
      () => {
        failing = false;
      },
      (err: unknown) => {
        // Logged once per outage: the database or Temporal being down is reported by health checks too.
        if (!failing) logError('webhook relay round failed; retrying', err);
        failing = true;
      },
    ),
  );
}
