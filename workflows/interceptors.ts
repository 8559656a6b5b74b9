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
import { carriedFromHeaders, withCarriedHeaders, type Carried } from './request-id';

/**
 * Carries the request id of the API request a workflow works for, and who made it, on to
 * everything it schedules: activities, local activities, children and a continued-as-new
 * run get them as the `requestId` and `actor` headers (the worker's activity interceptor
 * puts the id on their logs and the actor where what they write records it).
 *
 * The workflow's own id is the one its start carried (a header: the API's client
 * interceptor, or the parent for a child), else its memo's `requestId`. While a signal or
 * update handler that arrived with a request id of its own runs (an operator's decision, a
 * partner's stay change), what it schedules carries that id instead.
 *
 * A workflow that fails is marked on its way out (workflows/park.ts, failedWorkflow).
 *
 * A workflow that closes reports to its worker's process how (the `outcomes` sink): an API in
 * the same process answers from that instead of asking Temporal (src/temporal/outcomes.ts).
 * A sink call is no command and is not made while the workflow replays.
 *
 * Deterministic: headers do not take part in replay's command matching, and the id comes
 * from the history (start headers, memo, signal headers), never from outside.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let started: Carried | undefined;
  // Per workflow execution; disabled when the worker evicts the workflow.
  const handling = new AsyncLocalStorage<Carried>();

  const current = (): Carried => handling.getStore() ?? started ?? fromMemo();

  const inHandler = <T>(headers: UpdateInput['headers'], run: () => T): T => {
    const carried = carriedFromHeaders(headers);
    return carried.requestId || carried.actor ? handling.run(carried, run) : run();
  };

  const inbound: WorkflowInboundCallsInterceptor = {
    async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
      const carried = carriedFromHeaders(input.headers);
      started = carried.requestId ? carried : { ...carried, ...fromMemo() };
      let result: unknown;
      try {
        result = await next(input);
      } catch (err) {
        // A workflow that fails ends in Stage = "failed", its failure naming the step.
        const failed = failedWorkflow(err);
        const typed = failed instanceof TemporalFailure ? typedFailure(failed) : undefined;
        if (typed) reportSettled({ ok: false, ...typed });
        throw failed;
      }
      reportSettled({ ok: true, result });
      return result;
    },
    handleSignal: (input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) => inHandler(input.headers, () => next(input)),
    handleUpdate: (input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) => inHandler(input.headers, () => next(input)),
    validateUpdate: (input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>) => inHandler(input.headers, () => next(input)),
  };

  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) =>
      next({ ...input, headers: withCarriedHeaders(input.headers, current()) }),
    scheduleLocalActivity: (input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) =>
      next({ ...input, headers: withCarriedHeaders(input.headers, current()) }),
    startChildWorkflowExecution: (input: StartChildWorkflowExecutionInput, next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>) =>
      next({ ...input, headers: withCarriedHeaders(input.headers, current()) }),
    continueAsNew: (input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) =>
      next({ ...input, headers: withCarriedHeaders(input.headers, current()) }),
    // The workflow's `log` lines (through the worker's Runtime logger) carry it too.
    getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>) {
      const { requestId } = current();
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

function reportSettled(outcome: WorkflowOutcome): void {
  if (!workflowInfo().unsafe.isReplaying) outcomes.settled(outcome);
}

/** The first ApplicationFailure with a type down the chain (what the API maps to its answer). */
function typedFailure(err: Error): { type: string; message: string } | undefined {
  for (let cause: unknown = err; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type) return { type: cause.type, message: cause.message };
  }
  return undefined;
}

function fromMemo(): Carried {
  const value = workflowInfo().memo?.requestId;
  return typeof value === 'string' && value ? { requestId: value } : {};
}
