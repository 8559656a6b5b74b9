import { defineSignal } from '@temporalio/workflow';

/** One delivery workflow per endpoint: its id is the endpoint's. */
export const webhookWorkflowId = (endpointId: number) => `webhook-endpoint:${endpointId}`;

/** How hard a delivery tries before its endpoint is disabled (config: WEBHOOK_*). */
export interface WebhookRetry {
  /** The first wait after a failed attempt; each next wait doubles, up to `maximumIntervalMs`. */
  initialIntervalMs: number;
  maximumIntervalMs: number;
  /** How long one event is tried, in all, before the endpoint counts as failing (3 days). */
  giveUpAfterMs: number;
  /** One attempt's bound: the receiver's answer must come within it. */
  attemptTimeoutMs: number;
}

export interface WebhookDeliveryInput {
  endpointId: number;
  retry: WebhookRetry;
  /** How long the run waits for more once nothing is owed before it ends (default a minute). */
  idleMs?: number;
  /** Deliveries made by the runs before this one (continue-as-new carries the count). */
  delivered?: number;
}

export interface WebhookDeliveryResult {
  delivered: number;
  /** Why the run ended: nothing left to send for a while, or the endpoint is no longer enabled. */
  ended: 'idle' | 'endpoint_disabled' | 'endpoint_gone';
}

/** New deliveries are owed (worker/webhook-relay.ts sends it with signal-with-start). */
export const webhookWakeSignal = defineSignal('webhookWake');
