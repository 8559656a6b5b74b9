import {
  ApplicationFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WithWorkflowArgs,
  type WorkflowHandle,
  type WorkflowSignalWithStartOptions,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { SearchAttributePair, Workflow, WorkflowResultType } from '@temporalio/common';
import { PartUnavailableError, unreachablePart } from '../health/model';
import { workflowOutcomesHeard, workflowStarts } from '../platform/metrics';
import { currentRequestId } from '../platform/request-context';
import type { Workflows, WorkflowType } from '../../workflows/registry.types';
import { OrderId, OrderStatus, PartnerId, Service, Stage, type StageName } from '../../workflows/search-attributes';
import type { WorkflowOutcomes } from './outcomes';

/** A workflow a request started or joined: its handle, and the run's id when Temporal said which. */
export interface Started<W extends Workflow> {
  handle: WorkflowHandle<W>;
  /** The run started or joined; none when the id's latest run had closed and was kept (`keep_outcome`), or the start's answer was lost. */
  runId?: string;
}

/**
 * Starts a workflow, or joins it when one with the same id is running (or completed and
 * keeps its id): the workflow id is the operation's identity, so a repeated request never
 * does the work twice. The workflow is named by its type, checked against the registered
 * workflows (workflows/registry.types.ts), and so are its arguments and the handle's result.
 */
export async function startOrJoin<K extends WorkflowType>(
  client: Client,
  workflowType: K,
  options: Omit<WorkflowStartOptions<Workflows[K]>, 'workflowIdConflictPolicy' | 'workflowIdReusePolicy'>,
  /** After a failed run: run again (a payment the partner retries), or keep that outcome (a creation answered once). */
  afterFailure: 'run_again' | 'keep_outcome' = 'run_again',
): Promise<Started<Workflows[K]>> {
  const found = await startOrFind(client, workflowType, options, afterFailure);
  const handle = client.workflow.getHandle<Workflows[K]>(options.workflowId);
  return found.state === 'running' && found.runId ? { handle, runId: found.runId } : { handle };
}

/** Where a started run's outcome can be heard first: this process's own worker, when it has one and the run is known (else undefined: ask Temporal). */
export function inProcessOutcome(outcomes: WorkflowOutcomes | undefined, run: { runId?: string | undefined }): InProcessOutcome | undefined {
  return outcomes && run.runId ? { outcomes, runId: run.runId } : undefined;
}

/**
 * What a start by workflow id found: the run under way (started now or already running;
 * its run id when Temporal said which), or, with `keep_outcome`, only closed runs.
 */
export type StartFound = { state: 'running'; runId?: string } | { state: 'closed' };

/** startOrJoin, telling which run it started or joined, or that the id's latest run has closed (and was kept). */
export async function startOrFind<K extends WorkflowType>(
  client: Client,
  workflowType: K,
  options: Omit<WorkflowStartOptions<Workflows[K]>, 'workflowIdConflictPolicy' | 'workflowIdReusePolicy'>,
  afterFailure: 'run_again' | 'keep_outcome',
): Promise<StartFound> {
  const sentAt = new Date();
  try {
    const requestId = currentRequestId();
    const started = await client.workflow.start(workflowType, {
      ...options,
      // Support can go from a partner's X-Request-Id to the workflow in Temporal Web.
      ...(requestId ? { memo: { ...options.memo, requestId } } : {}),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: afterFailure === 'run_again' ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
    } as WorkflowStartOptions);
    workflowStarts.inc({ workflow: workflowType, eager: String(started.eagerlyStarted) });
    // With USE_EXISTING, Temporal answers the running run's id when it joined one.
    return { state: 'running', ...(started.firstExecutionRunId ? { runId: started.firstExecutionRunId } : {}) };
  } catch (err) {
    if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError') return { state: 'closed' };
    if (!(err instanceof PartUnavailableError) || err.refused || err.part !== 'temporal') throw err;
    // Sent, but no answer in time: the start may have gone through. Ask once, so that a
    // workflow that did start is joined (never reported as "unavailable, nothing happened").
    if (!(await startedAnyway(client, options.workflowId, sentAt, err))) throw new PartUnavailableError('temporal', err.detail, true);
    return { state: 'running' };
  }
}

/** Signals a workflow, starting it first when none runs with that id; named by its type, as startOrJoin. */
export function signalWithStart<K extends WorkflowType, A extends unknown[]>(
  client: Client,
  workflowType: K,
  options: WithWorkflowArgs<Workflows[K], WorkflowSignalWithStartOptions<A>>,
): Promise<WorkflowHandle<Workflows[K]>> {
  return client.workflow.signalWithStart<Workflows[K], A>(workflowType, options);
}

/** Whether a run with this id is under way, or began since `sentAt` (not an earlier run that ended). */
async function startedAnyway(client: Client, workflowId: string, sentAt: Date, failure: PartUnavailableError): Promise<boolean> {
  try {
    const run = await client.workflow.getHandle(workflowId).describe();
    return run.status.name === 'RUNNING' || run.startTime.getTime() >= sentAt.getTime() - 1000;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw failure; // Temporal cannot tell either: the outcome stays unknown
  }
}

/**
 * The business failure a workflow ended with: the first typed ApplicationFailure down its
 * cause chain (a workflow may fail with one itself, or let an activity's surface wrapped
 * in an ActivityFailure).
 */
export function businessFailure(err: unknown): { type: string; message: string } | null {
  if (!(err instanceof WorkflowFailedError)) return null;
  for (let cause: unknown = err.cause; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type) return { type: cause.type, message: cause.message };
  }
  return null;
}

/**
 * How long a waiter that expects its run's outcome from this process's own worker waits for
 * it before it also asks Temporal (the run may have gone to another worker, or this one may
 * have stopped). A run that closes on this process's worker is heard within milliseconds.
 */
export const OUTCOME_BACKSTOP_MS = 1000;

/** A run whose outcome this process's own worker reports (src/temporal/outcomes.ts): where its waiter listens, and which run. */
export interface InProcessOutcome {
  outcomes: WorkflowOutcomes;
  runId: string;
}

type FromTemporal<R> = { via: 'temporal'; result: R } | { via: 'temporal'; error: unknown };

/**
 * Waits for a workflow's result up to `waitMs`; null when it is still running then. A
 * business failure goes through `mapFailure`, the caller's answers to the workflow's failures
 * (src/domain/errors.ts, workflowAnswer), which turns it into a domain error. Null too
 * when Temporal stops answering while we wait: the workflow was started and goes on, so the
 * caller answers "under way", never "unavailable, nothing happened". `onRunFailed` runs
 * before the error of a run that ended without success is thrown (and so answered).
 *
 * With `inProcess`, the run's result is taken from this process's own worker when it reports it
 * (src/temporal/outcomes.ts); Temporal is asked (the history long-poll) only if it has not
 * within OUTCOME_BACKSTOP_MS. A failure the worker reports is answered only once Temporal has
 * recorded the run's close: a partner who retries on seeing it must find the run closed, or
 * the retry's start would join the failing run (USE_EXISTING) and be given its failure
 * instead of paying again.
 */
export async function awaitWorkflow<W extends Workflow>(
  handle: WorkflowHandle<W>,
  waitMs: number,
  mapFailure: (f: { type: string; message: string }) => Error | null,
  { onRunFailed, inProcess }: { onRunFailed?: () => Promise<void>; inProcess?: InProcessOutcome | undefined } = {},
): Promise<WorkflowResultType<W> | null> {
  type R = WorkflowResultType<W>;
  const timers: NodeJS.Timeout[] = [];
  const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => timers.push(setTimeout(() => resolve(value), ms)));
  let askTemporal!: () => void;
  const asked = new Promise<void>((resolve) => (askTemporal = resolve));
  const run = inProcess ? handle.client.getHandle<W>(handle.workflowId, inProcess.runId) : handle;
  // The history long-poll ends with the wait: left running, it would outlive the request, and a
  // connection closed under it would have the SDK retry it on a timer, on the closed connection.
  const giveUp = new AbortController();
  const temporal: Promise<FromTemporal<R>> = asked
    .then(() => handle.client.withAbortSignal(giveUp.signal, () => run.result()))
    .then(
      (result) => ({ via: 'temporal' as const, result }),
      (error: unknown) => ({ via: 'temporal' as const, error }),
    );
  const timeout = after(waitMs, null);
  const worker = inProcess?.outcomes.wait(handle.workflowId, inProcess.runId);
  if (worker) timers.push(setTimeout(askTemporal, OUTCOME_BACKSTOP_MS));
  else askTemporal();
  try {
    const first = await Promise.race([temporal, timeout, ...(worker ? [worker.outcome.then((outcome) => ({ via: 'worker' as const, outcome }))] : [])]);
    let heard: FromTemporal<R> | null;
    if (first?.via !== 'worker') heard = first;
    else {
      const { outcome } = first;
      // Parked for an operator: under way, as when the wait runs out.
      if ('parked' in outcome) return null;
      if (outcome.ok) {
        workflowOutcomesHeard.inc({ via: 'worker' });
        return outcome.result as R;
      }
      askTemporal();
      heard = await Promise.race([temporal, timeout]);
    }
    if (!heard) return null;
    if ('result' in heard) {
      workflowOutcomesHeard.inc({ via: 'temporal' });
      return heard.result;
    }
    const err = heard.error;
    if (unreachablePart(err)) return null;
    if (err instanceof WorkflowFailedError) {
      workflowOutcomesHeard.inc({ via: 'temporal' });
      await onRunFailed?.();
    }
    const failure = businessFailure(err);
    throw (failure && mapFailure(failure)) ?? err;
  } finally {
    for (const timer of timers) clearTimeout(timer);
    worker?.stop();
    giveUp.abort();
  }
}

/** The search attributes a booking workflow starts with, so operators can find it in Temporal Web. */
export function bookingAttributes(a: { partnerId: number; service: string; stage: StageName; orderId?: number; orderStatus?: string }): SearchAttributePair[] {
  return [
    { key: PartnerId, value: a.partnerId },
    ...(a.orderId === undefined ? [] : [{ key: OrderId, value: a.orderId }]),
    { key: Service, value: a.service },
    { key: Stage, value: a.stage },
    ...(a.orderStatus === undefined ? [] : [{ key: OrderStatus, value: a.orderStatus }]),
  ];
}
