/**
 * The chaos run's HTTP clients. A pay is sent the way a careful partner's client sends
 * it: spread over the API replicas, and on a connection error, a timeout, 500, 502 (not
 * the supplier's documented refusal), 503 or 504 sent again with the same idempotency key
 * to the next replica after a short backoff (Retry-After honoured, capped), a bounded
 * number of times.
 */
import type { Options } from './options';
import type { Target } from './target';
import { sleep } from './target';

export interface Partner {
  partner_id: number;
  api_key: string;
  api_secret: string;
  agency_key?: string;
}

export interface HttpStats {
  requests: number;
  retries: number;
  byStatus: Record<string, number>;
  /** Answers a partner should never get from a pay (500s, unknown shapes): reported, retried. */
  unexpected: Array<{ status: number | string; path: string; body: string }>;
  unexpectedCount: number;
}

export const newStats = (): HttpStats => ({ requests: 0, retries: 0, byStatus: {}, unexpected: [], unexpectedCount: 0 });

export type PayOutcome =
  | { kind: 'completed'; status: 200; ledgerId: number; amountMinor: number }
  | { kind: 'processing'; status: 202 }
  | { kind: 'insufficient'; status: 402; error: string }
  | { kind: 'not_payable'; status: 400; error: string }
  | { kind: 'refused'; status: 502; error: string }
  | { kind: 'gave_up'; status: number | string; error: string }
  | { kind: 'other'; status: number; error: string };

export interface PayRecord {
  orderId: number;
  key: string;
  scenario?: string;
  outcome: PayOutcome['kind'];
  status: number | string;
  ledgerId?: number;
  attempts: number;
  ms: number;
  error?: string;
}

/** Decimal string (as Interface A renders money) → integer minor units, without floating point. */
export function toMinor(v: string | number): number {
  const s = String(v).trim();
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) throw new Error(`not a decimal amount: ${s}`);
  const minor = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -minor : minor;
}

const partnerHeaders = (p: Partner) => ({ 'x-api-key': p.api_key, 'x-api-secret': p.api_secret, 'content-type': 'application/json' });

export class Http {
  readonly stats = newStats();
  private rr = 0;
  /** After this (epoch ms) a pay is not sent again: the run's deadline. */
  deadlineAt = Infinity;

  constructor(
    private readonly target: Target,
    private readonly opts: Pick<Options, 'requestTimeoutMs' | 'payAttempts'>,
  ) {}

  private count(status: number | string) {
    this.stats.byStatus[String(status)] = (this.stats.byStatus[String(status)] ?? 0) + 1;
  }

  private unexpected(status: number | string, path: string, body: string) {
    this.stats.unexpectedCount += 1;
    if (this.stats.unexpected.length < 50) this.stats.unexpected.push({ status, path, body: body.slice(0, 300) });
  }

  /** One request, no retry: status and parsed body, or a thrown connection error/timeout. */
  async once(base: string, method: string, route: string, headers: Record<string, string>, body?: unknown, timeoutMs = this.opts.requestTimeoutMs) {
    this.stats.requests += 1;
    const res = await fetch(`${base}${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    this.count(res.status);
    return { status: res.status, json: json as Record<string, unknown> | null, text, retryAfter: res.headers.get('retry-after') };
  }

  private nextApi(offset = 0) {
    const apis = this.target.apis;
    return apis[(this.rr++ + offset) % apis.length]!;
  }

  /**
   * A partner call that changes nothing (GET), or a preparation call made while no fault is
   * injected: retried on connection errors and 5xx, on the next replica.
   */
  async partner(p: Partner, method: 'GET' | 'POST' | 'PUT', route: string, body?: unknown, attempts = 6) {
    let last = '';
    for (let i = 0; i < attempts; i++) {
      const api = this.nextApi();
      try {
        const r = await this.once(api.url, method, route, partnerHeaders(p), body, 30_000);
        if (r.status < 500) return r;
        last = `${r.status} ${r.text.slice(0, 200)}`;
        // A write that got a 5xx may or may not have happened; only reads are retried blindly.
        if (method !== 'GET') return r;
      } catch (err) {
        last = (err as Error).message;
        if (method !== 'GET') throw new Error(`${method} ${route} on ${api.name}: ${last}`);
      }
      this.stats.retries += 1;
      await sleep(300 * (i + 1));
    }
    throw new Error(`${method} ${route}: no answer after ${attempts} tries (${last})`);
  }

  /** Admin API (any replica's admin port): read calls retried, writes once per replica on connection refusal only. */
  async admin<T = Record<string, unknown>>(
    method: 'GET' | 'POST',
    route: string,
    body?: unknown,
    opts: { attempts?: number; timeoutMs?: number } = {},
  ): Promise<{ status: number; json: T }> {
    const attempts = opts.attempts ?? 6;
    let last = '';
    for (let i = 0; i < attempts; i++) {
      const api = this.nextApi();
      try {
        const r = await this.once(
          api.adminUrl,
          method,
          route,
          { authorization: `Bearer ${this.target.adminToken}`, 'content-type': 'application/json' },
          body,
          opts.timeoutMs ?? 60_000,
        );
        if (r.status < 500 || method === 'POST') return { status: r.status, json: (r.json ?? { error: r.text }) as T };
        last = `${r.status} ${r.text.slice(0, 200)}`;
      } catch (err) {
        last = (err as Error).message;
        // A write whose connection was refused never arrived: safe to send again. Anything else may have.
        if (method === 'POST' && !/ECONNREFUSED|fetch failed/.test(String((err as { cause?: unknown }).cause ?? last))) {
          throw new Error(`admin ${method} ${route}: ${last} (may or may not have happened)`);
        }
      }
      this.stats.retries += 1;
      await sleep(500 * (i + 1));
    }
    throw new Error(`admin ${method} ${route}: no answer after ${attempts} tries (${last})`);
  }

  /**
   * A partner's POST that carries its own idempotency key (a sub-agency's credit set): sent
   * again, same body, to the next replica on a connection error, a timeout or a 5xx, as a
   * pay is, and bounded the same way. null when no replica answered.
   */
  async partnerKeyed(p: Partner, route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> | null; text: string } | null> {
    for (let attempt = 1; attempt <= this.opts.payAttempts && (attempt === 1 || Date.now() < this.deadlineAt); attempt++) {
      if (attempt > 1) this.stats.retries += 1;
      const api = this.nextApi();
      try {
        const r = await this.once(api.url, 'POST', route, partnerHeaders(p), body);
        if (r.status < 500) return r;
        if (r.status === 500) this.unexpected(r.status, route, r.text);
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        this.count(e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? 'connection'));
      }
      await sleep(Math.min(500 * 2 ** (attempt - 1), 5000));
    }
    return null;
  }

  /** An admin API read answered as text (a CSV report), retried on connection errors and 5xx like the other reads. */
  async adminText(route: string, attempts = 6): Promise<{ status: number; text: string }> {
    let last = '';
    for (let i = 0; i < attempts; i++) {
      const api = this.nextApi();
      try {
        const r = await this.once(api.adminUrl, 'GET', route, { authorization: `Bearer ${this.target.adminToken}` }, undefined, 60_000);
        if (r.status < 500) return { status: r.status, text: r.text };
        last = `${r.status} ${r.text.slice(0, 200)}`;
      } catch (err) {
        last = (err as Error).message;
      }
      this.stats.retries += 1;
      await sleep(500 * (i + 1));
    }
    throw new Error(`admin GET ${route}: no answer after ${attempts} tries (${last})`);
  }

  /** A pay, retried like a real partner's client: same key, next replica, bounded. */
  async pay(p: Partner, orderId: number, key: string, scenario?: string): Promise<PayRecord> {
    const started = performance.now();
    const headers: Record<string, string> = partnerHeaders(p);
    if (scenario) headers['x-sandbox-scenario'] = scenario;
    const body = { product_order_id: orderId, idempotency_key: key };
    const offset = Math.floor(Math.random() * this.target.apis.length);
    let last: { status: number | string; error: string } = { status: 'none', error: '' };
    let attempt = 0;
    const done = (o: PayOutcome): PayRecord => ({
      orderId,
      key,
      ...(scenario ? { scenario } : {}),
      outcome: o.kind,
      status: o.status,
      ...('ledgerId' in o ? { ledgerId: o.ledgerId } : {}),
      ...('error' in o ? { error: o.error.slice(0, 300) } : {}),
      attempts: attempt,
      ms: Math.round(performance.now() - started),
    });
    while (attempt < this.opts.payAttempts && (attempt === 0 || Date.now() < this.deadlineAt)) {
      attempt += 1;
      if (attempt > 1) this.stats.retries += 1;
      const api = this.nextApi(offset);
      let wait = Math.min(500 * 2 ** (attempt - 1), 5000);
      try {
        const r = await this.once(api.url, 'POST', '/api/partners/pay/', headers, body);
        const data = (r.json?.data ?? null) as Record<string, unknown> | null;
        const error = typeof r.json?.error === 'string' ? r.json.error : r.text.slice(0, 300);
        if (r.status === 200 && data)
          return done({ kind: 'completed', status: 200, ledgerId: Number(data.ledger_id), amountMinor: toMinor(String(data.amount)) });
        if (r.status === 202) return done({ kind: 'processing', status: 202 });
        if (r.status === 402) return done({ kind: 'insufficient', status: 402, error });
        if (r.status === 400) return done({ kind: 'not_payable', status: 400, error });
        // Interface A's documented 502: the supplier refused and the debit was reversed.
        if (r.status === 502 && r.json?.ok === false && /revers/i.test(error)) return done({ kind: 'refused', status: 502, error });
        if ([500, 502, 503, 504].includes(r.status)) {
          if (r.status === 500 || r.status === 502) this.unexpected(r.status, '/api/partners/pay/', r.text);
          last = { status: r.status, error };
          const ra = Number(r.retryAfter);
          if (Number.isFinite(ra) && ra > 0) wait = Math.min(ra * 1000, 5000);
        } else {
          this.unexpected(r.status, '/api/partners/pay/', r.text);
          return done({ kind: 'other', status: r.status, error });
        }
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        const status = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? 'connection');
        this.count(status);
        last = { status, error: `${api.name}: ${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}` };
      }
      await sleep(wait);
    }
    return done({ kind: 'gave_up', status: last.status, error: last.error });
  }
}
