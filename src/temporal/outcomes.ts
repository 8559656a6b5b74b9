import { defaultPayloadConverter } from '@temporalio/common';
import { LRUCache } from 'lru-cache';
import type { WorkflowOutcome } from '../../workflows/outcome.types';

export type { WorkflowOutcome };

/** What a waiter hears from the worker next door: how the run closed, or that it parked for an operator (and is under way). */
export type Heard = WorkflowOutcome | { parked: true };

/**
 * How workflows that closed on this process's own worker ended, as they reported it on their
 * way out (the `outcomes` sink: workflows/interceptors.ts, worker/worker.ts). Where the API
 * and the worker share a process (`npm start`), the API answers a success from this instead
 * of long-polling Temporal for the run's close, and on a failure asks Temporal at once: a
 * failure is answered once Temporal has recorded it (src/temporal/workflows.ts,
 * awaitWorkflow; docs/decisions/outcomes-from-the-worker-next-door.md).
 *
 * A workflow reports its outcome after the steps it rests on have committed (a payment's
 * debit and completion), as it hands Temporal the command that closes it; the outcome is
 * the same value Temporal will record. A run that closes on another worker reports nothing
 * here, and its waiter falls back to Temporal.
 *
 * A run that parks for an operator (workflows/park.ts) reports that too: its waiters stop
 * waiting and the API answers "under way" at once, rather than when its wait runs out.
 */
export class WorkflowOutcomes {
  /** Every outcome reported, for a minute: a run can close before the request that started it starts waiting. */
  private readonly settledRuns = new LRUCache<string, WorkflowOutcome>({ max: 10_000, ttl: 60_000 });
  /**
   * Runs parked for an operator, for a minute unless they resume or close first: a partner
   * asking again soon is answered at once. Not longer: an operator's decision may send the run
   * on from another engine's worker, whose news never reaches this process.
   */
  private readonly parkedRuns = new LRUCache<string, true>({ max: 10_000, ttl: 60_000 });
  private readonly waiting = new Map<string, Set<(heard: Heard) => void>>();

  /** Run `runId` of `workflowId` closed so (the worker's sink). */
  settled(workflowId: string, runId: string, outcome: WorkflowOutcome): void {
    const key = `${workflowId}/${runId}`;
    this.settledRuns.set(key, outcome);
    this.parkedRuns.delete(key);
    const waiters = this.waiting.get(key);
    if (!waiters) return; // most runs nobody waits for: decoded only when heard
    this.waiting.delete(key);
    const heard = asHeard(outcome);
    for (const waiter of waiters) waiter(heard);
  }

  /** Run `runId` of `workflowId` parked for an operator (the worker's sink): its waiters hear it is under way. */
  parked(workflowId: string, runId: string): void {
    const key = `${workflowId}/${runId}`;
    this.parkedRuns.set(key, true);
    const waiters = this.waiting.get(key);
    if (!waiters) return;
    this.waiting.delete(key);
    for (const waiter of waiters) waiter({ parked: true });
  }

  /** Run `runId` of `workflowId` took an operator's decision and goes on: a waiter waits for it again. */
  resumed(workflowId: string, runId: string): void {
    this.parkedRuns.delete(`${workflowId}/${runId}`);
  }

  /** The outcome of run `runId` of `workflowId`, once it is reported (or that it parked); `stop` when no longer waiting. */
  wait(workflowId: string, runId: string): { outcome: Promise<Heard>; stop(): void } {
    const key = `${workflowId}/${runId}`;
    const known = this.settledRuns.get(key);
    if (known) return { outcome: Promise.resolve(asHeard(known)), stop: () => undefined };
    if (this.parkedRuns.has(key)) return { outcome: Promise.resolve({ parked: true }), stop: () => undefined };
    let waiter!: (heard: Heard) => void;
    const outcome = new Promise<Heard>((resolve) => (waiter = resolve));
    const waiters = this.waiting.get(key) ?? new Set();
    waiters.add(waiter);
    this.waiting.set(key, waiters);
    return {
      outcome,
      stop: () => {
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
      },
    };
  }

  /** How many waits are open (tests: none is left behind). */
  get waiters(): number {
    let n = 0;
    for (const waiters of this.waiting.values()) n += waiters.size;
    return n;
  }
}

/** What a client decoding the run's result from Temporal would get (dates as strings, no undefined fields). */
function asHeard(outcome: WorkflowOutcome): WorkflowOutcome {
  if (!outcome.ok || outcome.result === undefined) return outcome;
  return { ok: true, result: defaultPayloadConverter.fromPayload(defaultPayloadConverter.toPayload(outcome.result)) };
}
