import {
  ApplicationFailure,
  AsyncLocalStorage,
  proxySinks,
  TemporalFailure,
  workflowInfo,
  type ActivityInput,
  type ContinueAsNewInput,
  type DisposeInput,
  type GetLogAttributesInput,
  type LocalActivityInput,
  type Next,
  type SignalInput,
  type StartChildWorkflowExecutionInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type { OutcomeSinks, WorkflowOutcome } from './outcome.types';
import { failedWorkflow } from './park';
import { requestIdFromHeaders, withRequestIdHeader } from './request-id';

/**
 * Carries the request id of the API request a workflow works for on to everything it
 * schedules: activities, local activities, children and a continued-as-new run get it as
 * the `requestId` header (the worker's activity interceptor puts it on their logs).
 *
 * The workflow's own id is the one its start carried (a header: the API's client
 * interceptor, or the parent for a child), else its memo's `requestId`. While a signal or
 * update handler that arrived with a request id of its own runs (an operator's decision, a
 * partner's stay change), what it schedules carries that id instead.
 *
 * A workflow that fails is marked on its way out (workflows/park.ts, failedWorkflow).
 *
 * A workflow that closes tells its worker's process how (the `outcomes` sink): an API in
 * the same process answers from that instead of asking Temporal (src/temporal/outcomes.ts).
 * A sink call is no command and is not made while the workflow replays.
 *
 * Deterministic: headers do not take part in replay's command matching, and the id comes
 * from the history (start headers, memo, signal headers), never from outside.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let started: string | undefined;
  // Per workflow execution; disabled when the worker evicts the workflow.
  const handling = new AsyncLocalStorage<string>();

  const current = (): string | undefined => handling.getStore() ?? started ?? memoRequestId();

  const inHandler = <T>(headers: UpdateInput['headers'], run: () => T): T => {
    const requestId = requestIdFromHeaders(headers);
    return requestId ? handling.run(requestId, run) : run();
  };

  const inbound: WorkflowInboundCallsInterceptor = {
    async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
      started = requestIdFromHeaders(input.headers) ?? memoRequestId();
      let result: unknown;
      try {
        result = await next(input);
      } catch (err) {
        // A workflow that fails ends in Stage = "failed", its failure naming the step.
        const failed = failedWorkflow(err);
        const typed = failed instanceof TemporalFailure ? typedFailure(failed) : undefined;
        if (typed) tell({ ok: false, ...typed });
        throw failed;
      }
      tell({ ok: true, result });
      return result;
    },
    handleSignal: (input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) => inHandler(input.headers, () => next(input)),
    handleUpdate: (input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) => inHandler(input.headers, () => next(input)),
    validateUpdate: (input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>) => inHandler(input.headers, () => next(input)),
  };

  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) =>
      next({ ...input, headers: withRequestIdHeader(input.headers, current()) }),
    scheduleLocalActivity: (input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) =>
      next({ ...input, headers: withRequestIdHeader(input.headers, current()) }),
    startChildWorkflowExecution: (input: StartChildWorkflowExecutionInput, next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>) =>
      next({ ...input, headers: withRequestIdHeader(input.headers, current()) }),
    continueAsNew: (input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) =>
      next({ ...input, headers: withRequestIdHeader(input.headers, current()) }),
    // The workflow's `log` lines (through the worker's Runtime logger) carry it too.
    getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>) {
      const requestId = current();
      return next(requestId ? { ...input, requestId } : input);
    },
  };

  const internals: WorkflowInternalsInterceptor = {
    dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>) {
      handling.disable();
      next(input);
    },
  };

  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};

const { outcomes } = proxySinks<OutcomeSinks>();

function tell(outcome: WorkflowOutcome): void {
  if (!workflowInfo().unsafe.isReplaying) outcomes.settled(outcome);
}

/** The first ApplicationFailure with a type down the chain (what the API maps to its answer). */
function typedFailure(err: Error): { type: string; message: string } | undefined {
  for (let cause: unknown = err; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type) return { type: cause.type, message: cause.message };
  }
  return undefined;
}

function memoRequestId(): string | undefined {
  const value = workflowInfo().memo?.requestId;
  return typeof value === 'string' && value ? value : undefined;
}
