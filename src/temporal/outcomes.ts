import { defaultPayloadConverter } from '@temporalio/common';
import { LRUCache } from 'lru-cache';
import type { WorkflowOutcome } from '../../workflows/outcome.types';

export type { WorkflowOutcome };

/**
 * How workflows that closed on this process's own worker ended, as they told it on their
 * way out (the `outcomes` sink: workflows/interceptors.ts, worker/worker.ts). Where the API
 * and the worker share a process (`npm start`), the API answers a success from this instead
 * of long-polling Temporal for the run's close, and on a failure asks Temporal at once: a
 * failure is answered once Temporal has recorded it (src/temporal/workflows.ts,
 * awaitWorkflow; docs/decisions/outcomes-from-the-worker-next-door.md).
 *
 * A workflow tells its outcome after the steps it rests on have committed (a payment's
 * debit and completion), as it hands Temporal the command that closes it; the outcome is
 * the same value Temporal will record. A run that closes on another worker tells nothing
 * here, and its waiter falls back to Temporal.
 */
export class WorkflowOutcomes {
  /** Every outcome told, for a minute: a run can close before the request that started it starts waiting. */
  private readonly told = new LRUCache<string, WorkflowOutcome>({ max: 10_000, ttl: 60_000 });
  private readonly waiting = new Map<string, Set<(outcome: WorkflowOutcome) => void>>();

  /** Run `runId` of `workflowId` closed so (the worker's sink). */
  tell(workflowId: string, runId: string, outcome: WorkflowOutcome): void {
    const key = `${workflowId}/${runId}`;
    this.told.set(key, outcome);
    const waiters = this.waiting.get(key);
    if (!waiters) return; // most runs nobody waits for: decoded only when heard
    this.waiting.delete(key);
    const heard = asHeard(outcome);
    for (const waiter of waiters) waiter(heard);
  }

  /** The outcome of run `runId` of `workflowId`, once it is told; `stop` when no longer waiting. */
  wait(workflowId: string, runId: string): { outcome: Promise<WorkflowOutcome>; stop(): void } {
    const key = `${workflowId}/${runId}`;
    const known = this.told.get(key);
    if (known) return { outcome: Promise.resolve(asHeard(known)), stop: () => undefined };
    let waiter!: (outcome: WorkflowOutcome) => void;
    const outcome = new Promise<WorkflowOutcome>((resolve) => (waiter = resolve));
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
