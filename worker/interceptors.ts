import type { Context } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptors,
  ActivityOutboundCallsInterceptor,
  GetLogAttributesInput,
  Next,
} from '@temporalio/worker';
import { withLogContext } from '../src/platform/request-context';
import { requestIdFromHeaders } from '../workflows/request-id';

/**
 * Per activity execution: the request id the workflow passed in the `requestId` header
 * (workflows/interceptors.ts) is put where logs find it. The activity runs inside the
 * request context (src/request-context.ts), so what it logs with the pino logger
 * (src/http/log.ts) carries `requestId`, `workflowId` and `activityType`; and the SDK's own
 * lines about it ("Activity completed", "Activity failed", `Context.log`) carry
 * `requestId` too. The activity's cancellation signal goes with it: a supplier call stops when
 * its activity is cancelled or times out (src/suppliers/http.ts).
 */
export function requestIdActivityInterceptors(ctx: Context): ActivityInterceptors {
  let requestId: string | undefined;
  const inbound: ActivityInboundCallsInterceptor = {
    execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
      requestId = requestIdFromHeaders(input.headers);
      const { workflowExecution, activityType } = ctx.info;
      return withLogContext({ requestId, workflowId: workflowExecution?.workflowId, activityType, cancelled: ctx.cancellationSignal }, () => next(input));
    },
  };
  const outbound: ActivityOutboundCallsInterceptor = {
    // Known from the start of execute on ("Activity started" is logged before it).
    getLogAttributes: (input: GetLogAttributesInput, next: Next<ActivityOutboundCallsInterceptor, 'getLogAttributes'>) =>
      next(requestId ? { ...input, requestId } : input),
  };
  return { inbound, outbound };
}
