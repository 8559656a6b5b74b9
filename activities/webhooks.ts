import http from 'node:http';
import https from 'node:https';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../src/db/client';
import type { SecretBox } from '../src/platform/secret-box';
import { webhookAttempts, webhookLatency } from '../src/platform/metrics';
import { deliveryBody, deliveryJob, disableEndpoint, pendingDeliveries, recordAttempt, webhookId } from '../src/domain/webhooks';
import { WEBHOOK_NOT_TAKEN } from '../workflows/failure-types';
import { runActivityStep } from './failures';

export interface WebhookDeps {
  /**
   * Whether endpoints may resolve to loopback, private or link-local addresses. Off in
   * production: a partner's URL must not reach into the engine's own network.
   */
  allowPrivateUrls: boolean;
  /** What the endpoints' signing secrets are sealed with. */
  secrets: SecretBox;
}

const EXCERPT_CHARS = 500;

interface Answer {
  status: number;
  excerpt: string;
}

/** POSTs one signed body; redirects are answers, not followed. */
function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number, agent: http.Agent, signal: AbortSignal): Promise<Answer> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', agent, signal, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      let excerpt = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (excerpt.length < EXCERPT_CHARS) excerpt += chunk.slice(0, EXCERPT_CHARS - excerpt.length);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, excerpt }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The steps of an endpoint's delivery workflow (workflows/webhook.workflows.ts). */
export function webhookActivities(db: Db, deps: WebhookDeps) {
  const filter = { allowPrivateIPAddress: deps.allowPrivateUrls, keepAlive: true };
  const agents = { http: new RequestFilteringHttpAgent(filter), https: new RequestFilteringHttpsAgent(filter) };

  return {
    pendingWebhookDeliveries: (input: { endpointId: number; limit: number }) => runActivityStep(() => pendingDeliveries(db, input.endpointId, input.limit)),

    disableWebhookEndpoint: (input: { endpointId: number; reason: string; deliveryId?: number; failure?: string }) =>
      runActivityStep(() => disableEndpoint(db, input.endpointId, input.reason, input)),

    /**
     * One attempt at one delivery, signed per Standard Webhooks with the endpoint's secret;
     * every attempt is recorded. A 2xx answer delivers it; anything else fails the attempt
     * (retried by the workflow's policy). A delivery no longer owed (delivered by an earlier
     * attempt whose answer was lost here, skipped, or its endpoint disabled) is left as it is.
     */
    deliverWebhook: (input: { deliveryId: number; timeoutMs: number }) =>
      runActivityStep(async (): Promise<{ outcome: 'delivered' | 'not_owed'; status?: number }> => {
        const job = await deliveryJob(db, input.deliveryId);
        if (!job || job.state !== 'pending' || job.endpoint.status !== 'enabled') return { outcome: 'not_owed' };
        // A process without the key the secret was sealed under fails here, before sending: retried, and delivered once it has the key.
        const secret = deps.secrets.open(job.endpoint.secret);
        const body = deliveryBody(job.event, job.endpoint.style);
        const id = webhookId(job.event);
        const at = new Date();
        const headers = {
          'content-type': 'application/json',
          'user-agent': 'travel-booking-engine-webhooks/1',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, at, body),
        };
        const url = new URL(job.endpoint.url);
        const started = performance.now();
        let answer: Answer;
        try {
          // A cancelled step (its worker shutting down) abandons the request; the retry sends it again with the same webhook-id.
          const signal = Context.current().cancellationSignal;
          answer = await post(url, body, headers, input.timeoutMs, url.protocol === 'https:' ? agents.https : agents.http, signal);
        } catch (err) {
          const error = (err as Error).message;
          const ms = performance.now() - started;
          webhookAttempts.inc({ outcome: 'unreachable' });
          webhookLatency.observe(ms / 1000);
          await recordAttempt(db, job.deliveryId, {
            statusCode: null,
            latencyMs: Math.round(ms),
            responseExcerpt: null,
            error,
            delivered: false,
          });
          throw ApplicationFailure.retryable(`could not deliver to ${url.origin}: ${error}`, WEBHOOK_NOT_TAKEN);
        }
        const delivered = answer.status >= 200 && answer.status < 300;
        const ms = performance.now() - started;
        webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'refused' });
        webhookLatency.observe(ms / 1000);
        await recordAttempt(db, job.deliveryId, {
          statusCode: answer.status,
          latencyMs: Math.round(ms),
          responseExcerpt: answer.excerpt || null,
          error: null,
          delivered,
        });
        if (!delivered) throw ApplicationFailure.retryable(`${url.origin} answered ${answer.status}`, WEBHOOK_NOT_TAKEN);
        return { outcome: 'delivered', status: answer.status };
      }),
  };
}
