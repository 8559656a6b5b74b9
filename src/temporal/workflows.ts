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
import { PartUnavailableError, unreachablePart } from '../availability';
import { workflowStarts } from '../platform/metrics';
import { DomainError } from '../domain/errors';
import { currentRequestId } from '../platform/request-context';
import type { Workflows, WorkflowType } from '../../workflows/registry.types';
import { OrderId, PartnerId, Service, Stage, type StageName } from '../../workflows/search-attributes';

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
): Promise<WorkflowHandle<Workflows[K]>> {
  await startOrFind(client, workflowType, options, afterFailure);
  return client.workflow.getHandle<Workflows[K]>(options.workflowId);
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
 * Waits for a workflow's result up to `waitMs`; null when it is still running then. A
 * business failure goes through `mapFailure`, which turns it into a domain error. Null too
 * when Temporal stops answering while we wait: the workflow was started and goes on, so the
 * caller answers "under way", never "unavailable, nothing happened". `onRunFailed` runs
 * before the error of a run that ended without success is thrown (and so answered).
 */
export async function awaitWorkflow<W extends Workflow>(
  handle: WorkflowHandle<W>,
  waitMs: number,
  mapFailure: (f: { type: string; message: string }) => Error | null,
  onRunFailed?: () => Promise<void>,
): Promise<WorkflowResultType<W> | null> {
  const result = handle.result();
  result.catch(() => undefined); // observed below or abandoned after the wait; never unhandled
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), waitMs);
  });
  try {
    return await Promise.race([result, timeout]);
  } catch (err) {
    if (unreachablePart(err)) return null;
    if (err instanceof WorkflowFailedError) await onRunFailed?.();
    const failure = businessFailure(err);
    throw (failure && (mapFailure(failure) ?? refusedData(failure))) ?? err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A step that failed because the database refused a value of the request (SQLSTATE classes
 * 22 and 23, `invalid_data` from the activities) is the request's fault whatever the
 * workflow: a 400/422 naming what was refused, not a 500.
 */
function refusedData(f: { type: string; message: string }): Error | null {
  return f.type === 'invalid_data' ? new DomainError('validation', `a value in the request cannot be stored: ${f.message}`) : null;
}

/** The search attributes a booking workflow starts with, so operators can find it in Temporal Web. */
export function bookingAttributes(a: { partnerId: number; service: string; stage: StageName; orderId?: number }): SearchAttributePair[] {
  return [
    { key: PartnerId, value: a.partnerId },
    ...(a.orderId === undefined ? [] : [{ key: OrderId, value: a.orderId }]),
    { key: Service, value: a.service },
    { key: Stage, value: a.stage },
  ];
}
