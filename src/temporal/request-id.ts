import type { ClientInterceptors, Next, WorkflowClientInterceptor } from '@temporalio/client';
import { currentRequestId } from '../platform/request-context';
import { withRequestIdHeader } from '../../workflows/request-id';

/**
 * Workflow starts, signals and updates sent while serving an API request carry its request
 * id as the `requestId` header; the workflow interceptors (workflows/interceptors.ts) hand
 * it on to the activities the workflow, or the signal's or update's handler, schedules.
 */
const requestIdHeader: WorkflowClientInterceptor = {
  startWithDetails: (input, next: Next<WorkflowClientInterceptor, 'startWithDetails'>) =>
    next({ ...input, headers: withRequestIdHeader(input.headers, currentRequestId()) }),
  signalWithStart: (input, next: Next<WorkflowClientInterceptor, 'signalWithStart'>) =>
    next({ ...input, headers: withRequestIdHeader(input.headers, currentRequestId()) }),
  signal: (input, next: Next<WorkflowClientInterceptor, 'signal'>) => next({ ...input, headers: withRequestIdHeader(input.headers, currentRequestId()) }),
  startUpdate: (input, next: Next<WorkflowClientInterceptor, 'startUpdate'>) =>
    next({ ...input, headers: withRequestIdHeader(input.headers, currentRequestId()) }),
};

/** The engine's Temporal client interceptors; every Client the engine makes gets them. */
export const clientInterceptors: ClientInterceptors = { workflow: [requestIdHeader] };
