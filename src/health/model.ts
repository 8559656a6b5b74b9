/**
 * The health model: the parts the engine cannot serve without, how a request finds out one
 * is down, and readiness checked in the background. Everything about health lives in
 * src/health/:
 *
 * - model.ts       what is down (parts, PartUnavailableError), Retry-After, HealthMonitor
 * - api-checks.ts  the API's checks: the database, Temporal, a worker serving the task queue
 * - answers.ts     what HTTP answers: `/healthz`, and 503 with Retry-After for a request that met a part down
 *
 * Its users: the Temporal client refuses a workflow call a part down could not serve
 * (src/temporal/availability.ts); the worker stamps its heartbeat and checks its own parts
 * (worker/heartbeat.ts); the entry points start the API's checks (src/runtime/api-health.ts).
 */
import { isDatabaseConnectionError } from '../platform/database-errors';

export const PARTS = ['database', 'temporal', 'worker'] as const;
export type Part = (typeof PARTS)[number];

/** What a client is told to wait before trying again; a part's return is seen within this. */
export const RETRY_AFTER_SECONDS = 5;

const SAID: Record<Part, string> = {
  database: 'the database is unreachable',
  temporal: 'the workflow service (Temporal) is unreachable',
  worker: 'no worker is running',
};

/**
 * `refused`: the request was turned away before it changed anything (the part was known to
 * be down, or a check after the failure showed nothing was started). Otherwise a connection
 * failed under a request already under way, and the message claims no more than that.
 */
export class PartUnavailableError extends Error {
  constructor(
    readonly part: Part,
    readonly detail?: string,
    readonly refused = false,
  ) {
    super(`${SAID[part]}; ${refused ? 'nothing was changed' : 'the request did not complete'}, try again in ${RETRY_AFTER_SECONDS} s`);
    this.name = 'PartUnavailableError';
  }
}

/** What a request may ask: the parts it needs, each throwing PartUnavailableError when down. */
export interface Availability {
  require(parts: readonly Part[]): void;
}

export interface HealthReport {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
  /** When the background round that produced this ended; null before the first one. */
  checked_at?: string | null;
}

/** Readiness as last checked in the background, and the gate requests go through. */
export interface Health extends Availability {
  report(): HealthReport;
}

// gRPC: 14 UNAVAILABLE (refused, reset, no route), 4 DEADLINE_EXCEEDED (our call deadline),
// 1 CANCELLED (the SDK's retry cancelling its call when that deadline passes; the API
// cancels no calls of its own).
const GRPC_CODES = new Set([1, 4, 14]);

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e instanceof Error && chain.length < 10; e = (e as Error & { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * The part an error says is unreachable, or null for any other error: a connection that
 * failed or broke, not a query or request the part refused.
 */
export function unreachablePart(err: unknown): Part | null {
  for (const e of causes(err)) {
    if (e instanceof PartUnavailableError) return e.part;
    const { code, metadata } = e as { code?: unknown; metadata?: unknown };
    if (typeof code === 'number' && GRPC_CODES.has(code) && metadata !== undefined) return 'temporal';
    if ((e as Error).name === 'ServiceError' && /DEADLINE_EXCEEDED|UNAVAILABLE|CANCELLED/.test((e as Error).message)) return 'temporal';
    if (isDatabaseConnectionError(e)) return 'database';
  }
  return null;
}

/**
 * What went wrong underneath: the innermost cause's message (a lost connection, not the
 * query that met it, whose text and parameters stay out of logs and /healthz).
 */
export function rootMessage(err: unknown): string {
  const chain = causes(err);
  return (chain[chain.length - 1] as Error | undefined)?.message ?? String(err);
}

/** The error a request should fail with: PartUnavailableError for a lost connection, else the error itself. */
export function asUnavailable(err: unknown): unknown {
  if (err instanceof PartUnavailableError) return err;
  const part = unreachablePart(err);
  return part ? new PartUnavailableError(part, rootMessage(err)) : err;
}

export type Check = () => Promise<string | void>;
type CheckResult = { ok: boolean; detail?: string };

/** How often the parts are checked, and how long a check may take before its part counts as down. */
export interface HealthTiming {
  intervalMs: number;
  timeoutMs: number;
}

/** The health timing a process is configured with (HEALTH_INTERVAL_MS, HEALTH_TIMEOUT_MS). */
export const healthTiming = (config: { HEALTH_INTERVAL_MS: number; HEALTH_TIMEOUT_MS: number }): HealthTiming => ({
  intervalMs: config.HEALTH_INTERVAL_MS,
  timeoutMs: config.HEALTH_TIMEOUT_MS,
});

/**
 * Readiness, checked in the background every `intervalMs` and kept: `/healthz` and every
 * request that needs a part read the last round instead of probing, so neither waits for a
 * part that stopped answering. A check that has not answered within `timeoutMs` counts as
 * down (and is not started again while it hangs), so a part that fails is reported within
 * intervalMs + timeoutMs, and one that returns within intervalMs of answering again.
 */
export class HealthMonitor implements Health {
  private results: Record<string, CheckResult>;
  private checkedAt: Date | null = null;
  private readonly pending = new Map<string, { since: number; done: Promise<CheckResult> }>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly checks: Record<string, Check>,
    private readonly timing: HealthTiming,
  ) {
    this.results = Object.fromEntries(Object.keys(checks).map((name) => [name, { ok: false, detail: 'not checked yet' }]));
  }

  /** Runs the first round (so the process starts with a real answer), then keeps checking. */
  async start(): Promise<void> {
    await this.round();
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.round().finally(loop), this.timing.intervalMs);
      this.timer.unref();
    };
    loop();
  }

  /** Stops checking; resolves once no check is under way, so the connections they use can close. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([...this.pending.values()].map((p) => p.done));
  }

  report(): HealthReport {
    const checks = { ...this.results };
    return { ok: Object.values(checks).every((r) => r.ok), checks, checked_at: this.checkedAt?.toISOString() ?? null };
  }

  require(parts: readonly Part[]): void {
    for (const part of parts) {
      const result = this.results[part];
      if (result && !result.ok) throw new PartUnavailableError(part, result.detail, true);
    }
  }

  /** One round now (tests use it not to wait for the next one). */
  async round(): Promise<void> {
    const entries = await Promise.all(Object.entries(this.checks).map(async ([name, check]) => [name, await this.run(name, check)] as const));
    this.results = Object.fromEntries(entries);
    this.checkedAt = new Date();
  }

  private async run(name: string, check: Check): Promise<CheckResult> {
    let inFlight = this.pending.get(name);
    if (!inFlight) {
      const done = check().then(
        (detail): CheckResult => (detail ? { ok: true, detail } : { ok: true }),
        (err: unknown): CheckResult => ({ ok: false, detail: rootMessage(err) }),
      );
      inFlight = { since: Date.now(), done };
      this.pending.set(name, inFlight);
      void done.finally(() => this.pending.delete(name));
    }
    const waited = Date.now() - inFlight.since;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, detail: `no answer within ${Date.now() - inFlight.since} ms` }),
        Math.max(0, this.timing.timeoutMs - waited),
      );
    });
    try {
      return await Promise.race([inFlight.done, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Temporal answers: its frontend's system info, within the check's timeout. */
export function temporalCheck(
  connection: {
    withDeadline<R>(deadline: number, fn: () => Promise<R>): Promise<R>;
    workflowService: { getSystemInfo(req: object): Promise<unknown> };
  },
  timeoutMs: number,
): Check {
  return async () => {
    await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
  };
}
