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
import type { ActorRecord } from '../src/platform/actor';
import { carriedFromHeaders } from '../workflows/request-id';

/**
 * Per activity execution: the request id the workflow passed in the `requestId` header
 * (workflows/interceptors.ts) is put where logs find it. The activity runs inside the
 * request context (src/request-context.ts), so what it logs with the pino logger
 * (src/http/log.ts) carries `requestId`, `workflowId` and `activityType`; and the SDK's own
 * lines about it ("Activity completed", "Activity failed", `Context.log`) carry
 * `requestId` too. Who the workflow acts for (the `actor` header) is where the rows the
 * activity writes record it (src/platform/request-context.ts). The activity's cancellation signal goes with it: a supplier call stops when
 * its activity is cancelled or times out (src/suppliers/http.ts).
 */
export function requestIdActivityInterceptors(ctx: Context): ActivityInterceptors {
  let requestId: string | undefined;
  const inbound: ActivityInboundCallsInterceptor = {
    execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
      const carried = carriedFromHeaders(input.headers);
      requestId = carried.requestId;
      const { workflowExecution, activityType } = ctx.info;
      const actor = carried.actor as ActorRecord | undefined;
      return withLogContext({ requestId, workflowId: workflowExecution?.workflowId, activityType, cancelled: ctx.cancellationSignal, actor }, () =>
        next(input),
      );
    },
  };
  const outbound: ActivityOutboundCallsInterceptor = {
    // Known from the start of execute on ("Activity started" is logged before it).
    getLogAttributes: (input: GetLogAttributesInput, next: Next<ActivityOutboundCallsInterceptor, 'getLogAttributes'>) =>
      next(requestId ? { ...input, requestId } : input),
  };
  return { inbound, outbound };
}
