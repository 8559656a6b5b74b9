import http from 'node:http';
import https from 'node:https';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../src/db/client';
import type { WebhookAttemptFailure } from '../src/db/schema';
import type { SecretBox } from '../src/platform/secret-box';
import { webhookAttempts, webhookLatency } from '../src/platform/metrics';
import { checkWebhookUrl, guardedLookup, WebhookUrlRefused, type WebhookUrlPolicy } from '../src/platform/webhook-address';
import { deliveryBody, deliveryJob, disableEndpoint, pendingDeliveries, recordAttempt, secretOwner, webhookId } from '../src/domain/webhooks';
import { WEBHOOK_NOT_TAKEN } from '../workflows/failure-types';
import { runActivityStep } from './failures';

export interface WebhookDeps {
  /**
   * Where endpoints may point (src/platform/webhook-address.ts): checked again at each
   * attempt, the host's name resolved by the connection itself, so a name that now answers
   * a private address is refused where it would be used.
   */
  urls: WebhookUrlPolicy;
  /** What the endpoints' signing secrets are sealed with. */
  secrets: SecretBox;
}

/** An attempt's error that got no answer: which kind, as its partner is told it. */
function failureOf(err: Error): WebhookAttemptFailure {
  if (err instanceof WebhookUrlRefused) return 'address_not_allowed';
  return err.message.startsWith('no answer within') ? 'timeout' : 'unreachable';
}

const EXCERPT_CHARS = 500;

interface Answer {
  status: number;
  excerpt: string;
}

/** POSTs one signed body; redirects are answers, not followed. Its host's name is resolved by `lookup`. */
function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  connection: { agent: http.Agent; lookup: ReturnType<typeof guardedLookup> },
  signal: AbortSignal,
): Promise<Answer> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  const options = { method: 'POST', ...connection, signal, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs };
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
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
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const lookup = guardedLookup(deps.urls);

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
        // Sealed for this endpoint: a value copied from another endpoint's row, or one in the clear, does not open.
        const secret = deps.secrets.open(job.endpoint.secret, secretOwner(job.endpoint.id));
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
          // The scheme and a literal address here; a name's addresses as the connection resolves it (lookup).
          checkWebhookUrl(url, deps.urls);
          // A cancelled step (its worker shutting down) abandons the request; the retry sends it again with the same webhook-id.
          const signal = Context.current().cancellationSignal;
          answer = await post(url, body, headers, input.timeoutMs, { agent: url.protocol === 'https:' ? agents.https : agents.http, lookup }, signal);
        } catch (err) {
          const refused = err instanceof WebhookUrlRefused;
          const error = refused ? `${err.message}: ${err.detail}` : (err as Error).message;
          const ms = performance.now() - started;
          webhookAttempts.inc({ outcome: 'unreachable' });
          webhookLatency.observe(ms / 1000);
          await recordAttempt(db, job.deliveryId, {
            statusCode: null,
            latencyMs: Math.round(ms),
            responseExcerpt: null,
            error,
            failure: failureOf(err as Error),
            delivered: false,
          });
          const message = `could not deliver to ${url.origin}: ${error}`;
          // An address the policy refuses stays refused: the endpoint is disabled now, not after days of retries.
          if (refused) throw ApplicationFailure.create({ message, type: WEBHOOK_NOT_TAKEN, nonRetryable: true });
          throw ApplicationFailure.retryable(message, WEBHOOK_NOT_TAKEN);
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
