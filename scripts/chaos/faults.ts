/**
 * Fault injection against the cluster: signal a part's pid from state.json, then wait
 * (bounded) until the supervisor reports it up again with a new pid. Faults are spread
 * over the load by progress (the share of pay requests answered), one at a time.
 */
import pg from 'pg';
import type { Options } from './options';
import { alive, readState, sleep, waitForState, type ClusterState } from './target';

/** Does the part serve again, beyond having a process? Each kind's own probe. */
async function serving(kind: FaultKind, part: string, state: ClusterState): Promise<boolean> {
  try {
    if (kind === 'postgres') {
      if (!state.databaseUrl) return true;
      const db = new pg.Client({ connectionString: state.databaseUrl, connectionTimeoutMillis: 2000 });
      db.on('error', () => undefined);
      try {
        await db.connect();
        await db.query('select 1');
        return true;
      } finally {
        await db.end().catch(() => undefined);
      }
    }
    if (kind === 'api') {
      const api = state.apis.find((a) => a.name === part);
      if (!api) return true;
      await fetch(`${api.url}/healthz`, { signal: AbortSignal.timeout(2000) }); // any answer: it serves
      return true;
    }
    if (kind === 'temporal-history' || kind === 'temporal-matching') {
      // The API's readiness asks the frontend and the task queue's pollers (matching).
      const res = await Promise.all(
        state.apis.map((a) =>
          fetch(`${a.url}/healthz`, { signal: AbortSignal.timeout(5000) }).then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      );
      return res.some(Boolean);
    }
    return true;
  } catch {
    return false;
  }
}

export type FaultKind = 'worker' | 'api' | 'temporal-history' | 'temporal-matching' | 'postgres';

export interface FaultRecord {
  kind: FaultKind;
  part: string;
  signal: NodeJS.Signals;
  /** Seconds since the run started. */
  at_s: number;
  /** Share of the load answered when it was injected (0..1); 1 = after the load. */
  progress: number;
  during_load: boolean;
  old_pid: number | null;
  new_pid: number | null;
  /** From the signal until the supervisor reported the part up with a new pid. */
  recovered_ms: number | null;
  /** From the signal until the part served again (postgres: select 1; api: /healthz answers; history/matching: an API's /healthz is 200). */
  serving_ms: number | null;
  error?: string;
}

interface Planned {
  kind: FaultKind;
  at: number;
}

/** Spreads the faults over (0.05, 0.9) of the load: the single big ones in between the worker kills. */
export function planFaults(opts: Pick<Options, 'workerKills' | 'apiKills' | 'historyKills' | 'matchingKills' | 'postgresRestarts'>): Planned[] {
  const big: FaultKind[] = [];
  const rounds = Math.max(opts.apiKills, opts.historyKills, opts.matchingKills, opts.postgresRestarts);
  for (let r = 0; r < rounds; r++) {
    if (r < opts.apiKills) big.push('api');
    if (r < opts.historyKills) big.push('temporal-history');
    if (r < opts.matchingKills) big.push('temporal-matching');
    if (r < opts.postgresRestarts) big.push('postgres');
  }
  const plan: Planned[] = big.map((kind, i) => ({ kind, at: 0.12 + (0.7 * (i + 0.5)) / big.length }));
  for (let i = 0; i < opts.workerKills; i++) plan.push({ kind: 'worker', at: 0.05 + (0.85 * i) / Math.max(1, opts.workerKills) });
  return plan.sort((a, b) => a.at - b.at);
}

export class FaultInjector {
  readonly records: FaultRecord[] = [];
  private workerTurn = 0;
  private apiTurn = 0;
  private stopped = false;

  constructor(
    private readonly stateFile: string,
    private readonly opts: Pick<Options, 'recoverS' | 'pgSignal'>,
    private readonly runStarted: number,
    private readonly log: (msg: string) => void,
  ) {}

  stop() {
    this.stopped = true;
  }

  private partFor(kind: FaultKind, state: ClusterState): string | null {
    const names = Object.keys(state.parts);
    if (kind === 'worker' || kind === 'api') {
      const re = kind === 'worker' ? /^worker-\d+$/ : /^api-\d+$/;
      const candidates = names.filter((n) => re.test(n)).sort();
      if (!candidates.length) return null;
      const turn = kind === 'worker' ? this.workerTurn++ : this.apiTurn++;
      return candidates[turn % candidates.length]!;
    }
    return names.includes(kind) ? kind : null;
  }

  /** One fault: the part must be up first; then the signal; then up again with another pid. */
  async inject(kind: FaultKind, progress: number, duringLoad: boolean): Promise<FaultRecord> {
    const signal: NodeJS.Signals = kind === 'postgres' ? this.opts.pgSignal : 'SIGKILL';
    const rec: FaultRecord = {
      kind,
      part: '?',
      signal,
      at_s: Math.round((Date.now() - this.runStarted) / 100) / 10,
      progress: Math.round(progress * 100) / 100,
      during_load: duringLoad,
      old_pid: null,
      new_pid: null,
      recovered_ms: null,
      serving_ms: null,
    };
    this.records.push(rec);
    const recoverMs = this.opts.recoverS * 1000;
    let state: ClusterState;
    try {
      state = readState(this.stateFile);
    } catch (err) {
      rec.error = `cannot read ${this.stateFile}: ${(err as Error).message}`;
      return rec;
    }
    const part = this.partFor(kind, state);
    if (!part) {
      rec.error = `no ${kind} part in ${this.stateFile}`;
      return rec;
    }
    rec.part = part;
    const before = await waitForState(this.stateFile, (s) => !!s.parts[part]?.up && !!s.parts[part]?.pid, recoverMs);
    if (!before) {
      rec.error = `${part} was not up before the fault (waited ${this.opts.recoverS}s)`;
      return rec;
    }
    const oldPid = before.parts[part]!.pid!;
    rec.old_pid = oldPid;
    if (!alive(before.supervisorPid)) {
      rec.error = `the supervisor (pid ${before.supervisorPid}) is not running: nobody would restart ${part}`;
      return rec;
    }
    if (oldPid === process.pid || oldPid === before.supervisorPid || oldPid <= 1) {
      rec.error = `refusing to signal pid ${oldPid} for ${part}`;
      return rec;
    }
    const t0 = Date.now();
    try {
      process.kill(oldPid, signal);
    } catch (err) {
      rec.error = `kill -${signal} ${oldPid} (${part}): ${(err as Error).message}`;
      return rec;
    }
    this.log(`fault: ${signal} ${part} (pid ${oldPid}) at ${Math.round(progress * 100)}% of the load`);
    const after = await waitForState(this.stateFile, (s) => !!s.parts[part]?.up && !!s.parts[part]?.pid && s.parts[part]!.pid !== oldPid, recoverMs);
    if (!after) {
      rec.error = `${part} not up again with a new pid within ${this.opts.recoverS}s`;
      this.log(`fault: ${rec.error}`);
      return rec;
    }
    rec.new_pid = after.parts[part]!.pid;
    rec.recovered_ms = Date.now() - t0;
    while (!(await serving(kind, part, after))) {
      if (Date.now() - t0 > recoverMs) {
        rec.error = `${part} has a new process (pid ${rec.new_pid}) but does not serve within ${this.opts.recoverS}s`;
        this.log(`fault: ${rec.error}`);
        return rec;
      }
      await sleep(250);
    }
    rec.serving_ms = Date.now() - t0;
    this.log(`fault: ${part} up again (pid ${rec.new_pid}) after ${rec.recovered_ms} ms, serving after ${rec.serving_ms} ms`);
    return rec;
  }

  /** The planned point of the next fault not injected yet (1 when none is left). */
  private next = 1;

  /**
   * How far the load may go before it waits for the next fault: a little past that fault's
   * planned point, so that a slow recovery cannot let the load run out before the rest of
   * the plan is injected.
   */
  gate = (): number => Math.min(1, this.next + 0.04);

  /** Runs the plan against the load's progress; whatever the load did not reach is injected after it. */
  async run(plan: Planned[], progress: () => number, loadDone: () => boolean, deadlineAt: number): Promise<void> {
    for (const [i, p] of plan.entries()) {
      this.next = p.at;
      while (!this.stopped && !loadDone() && progress() < p.at && Date.now() < deadlineAt) await sleep(200);
      if (this.stopped || Date.now() >= deadlineAt) {
        this.next = 1;
        return;
      }
      const duringLoad = !loadDone();
      const injecting = this.inject(p.kind, duringLoad ? progress() : 1, duringLoad);
      // Once the signal is sent the load may go on towards the next fault while this part recovers.
      await sleep(100);
      this.next = plan[i + 1]?.at ?? 1;
      await injecting;
      // A moment between faults, so that each one's recovery is its own.
      await sleep(1500);
    }
  }
}
