import type { ClientInterceptors, Next, WorkflowClientInterceptor } from '@temporalio/client';
import { currentActor, currentRequestId } from '../platform/request-context';
import { withCarriedHeaders } from '../../workflows/request-id';

const carried = () => ({ requestId: currentRequestId(), actor: currentActor() as Record<string, unknown> | undefined });

/**
 * Workflow starts, signals and updates sent while serving an API request carry its request
 * id as the `requestId` header and who made it as the `actor` header; the workflow interceptors (workflows/interceptors.ts) hand
 * it on to the activities the workflow, or the signal's or update's handler, schedules.
 */
const requestIdHeader: WorkflowClientInterceptor = {
  startWithDetails: (input, next: Next<WorkflowClientInterceptor, 'startWithDetails'>) =>
    next({ ...input, headers: withCarriedHeaders(input.headers, carried()) }),
  signalWithStart: (input, next: Next<WorkflowClientInterceptor, 'signalWithStart'>) =>
    next({ ...input, headers: withCarriedHeaders(input.headers, carried()) }),
  signal: (input, next: Next<WorkflowClientInterceptor, 'signal'>) => next({ ...input, headers: withCarriedHeaders(input.headers, carried()) }),
  startUpdate: (input, next: Next<WorkflowClientInterceptor, 'startUpdate'>) => next({ ...input, headers: withCarriedHeaders(input.headers, carried()) }),
};

/** The engine's Temporal client interceptors; every Client the engine makes gets them. */
export const clientInterceptors: ClientInterceptors = { workflow: [requestIdHeader] };
