import { createHmac } from 'node:crypto';
import { newId } from './http';

/**
 * A webhook event as Duffel's reference shapes it (the SDK types webhook receivers, not the
 * events): `api_version` is the version that produced `data`, `idempotency_key` the id of
 * what the event is about.
 */
export interface DuffelWebhookEvent<T = unknown> {
  id: string;
  api_version: 'v2';
  type: string;
  live_mode: boolean;
  idempotency_key: string;
  created_at: string;
  identity_organisation_id: string;
  data: { object: T };
}

/**
 * Duffel's signature of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"
 * keyed with the webhook's secret>`, sent as `X-Duffel-Signature`.
 */
export function signDuffelWebhook(rawBody: string, secret: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/** One attempt to deliver an event: the answer's status, or null when the receiver could not be reached. */
export interface WebhookDelivery {
  event_id: string;
  type: string;
  at: string;
  url: string;
  signature: string;
  status: number | null;
  error?: string;
}

export interface WebhookSenderOptions {
  now: () => Date;
  url?: string;
  secret?: string;
  /** Attempts per delivery in all; failed attempts are tried again after 0.2 s, 0.4 s, … (Duffel: for 72 hours). */
  attempts: number;
}

const ORGANISATION = 'org_0000StandInDuffelOrg0001';

/**
 * Sends Duffel's webhook events to one receiver: each event is kept as the bytes it was first
 * written as, so every delivery of it (Duffel delivers at least once) carries the same body
 * under a fresh signature. No receiver configured: events are kept and not sent.
 */
export class WebhookSender {
  private readonly events = new Map<string, { event: DuffelWebhookEvent; body: string }>();
  readonly deliveries: WebhookDelivery[] = [];
  private readonly retries = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: WebhookSenderOptions) {}

  record<T>(type: string, idempotencyKey: string, object: T): DuffelWebhookEvent<T> {
    const event: DuffelWebhookEvent<T> = {
      id: newId('wev'),
      api_version: 'v2',
      type,
      live_mode: false,
      idempotency_key: idempotencyKey,
      created_at: this.opts.now().toISOString(),
      identity_organisation_id: ORGANISATION,
      data: { object },
    };
    this.events.set(event.id, { event, body: JSON.stringify(event) });
    return event;
  }

  list(): DuffelWebhookEvent[] {
    return [...this.events.values()].map((e) => e.event);
  }

  /** Delivers the event once now; a failed attempt is tried again in the background, up to `attempts` in all. */
  async deliver(eventId: string): Promise<WebhookDelivery | null> {
    const stored = this.events.get(eventId);
    if (!stored) throw new Error(`no webhook event ${eventId}`);
    if (!this.opts.url || !this.opts.secret) return null;
    return this.attempt(stored.event, stored.body, 1);
  }

  private async attempt(event: DuffelWebhookEvent, body: string, attempt: number): Promise<WebhookDelivery> {
    const url = this.opts.url!;
    const signature = signDuffelWebhook(body, this.opts.secret!, Math.floor(this.opts.now().getTime() / 1000));
    const delivery: WebhookDelivery = { event_id: event.id, type: event.type, at: new Date().toISOString(), url, signature, status: null };
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-duffel-signature': signature, 'user-agent': 'Duffel-Webhooks/1.0' },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      delivery.error = err instanceof Error ? err.message : String(err);
    }
    this.deliveries.push(delivery);
    const ok = delivery.status !== null && delivery.status >= 200 && delivery.status < 300;
    if (!ok && attempt < this.opts.attempts) {
      const timer = setTimeout(
        () => {
          this.retries.delete(timer);
          void this.attempt(event, body, attempt + 1);
        },
        200 * 2 ** (attempt - 1),
      );
      timer.unref();
      this.retries.add(timer);
    }
    return delivery;
  }

  stop(): void {
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
  }
}
