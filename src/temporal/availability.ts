import type { ClientInterceptors, Next, WorkflowClientInterceptor } from '@temporalio/client';
import { asUnavailable, PARTS, type Availability, type Part } from '../health/model';
import { clientInterceptors } from './request-id';

const EVERY_PART: readonly Part[] = PARTS;

interface Deadlines {
  withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R>;
}

/**
 * Refuses, before anything is sent, a workflow call that could not be served now: a start,
 * signal or update while the database, Temporal or every worker is down (the workflow would
 * sit, or debit later, while the partner is told 503), a query without a worker to answer
 * it, a describe without Temporal. What is sent gets a deadline of `timeoutMs`, so a
 * Temporal that stops answering is a 503 after that, not the SDK's 20 s of retries.
 * Updates get no deadline: they wait for their handler, which may take longer.
 */
export function availabilityInterceptor(availability: Availability, connection: Deadlines, timeoutMs: number): WorkflowClientInterceptor {
  const guarded = <T>(parts: readonly Part[], send: () => Promise<T>, deadline = true): Promise<T> => {
    availability.require(parts);
    const sent = deadline ? connection.withDeadline(Date.now() + timeoutMs, send) : send();
    return sent.catch((err: unknown) => {
      throw asUnavailable(err);
    });
  };
  return {
    startWithDetails: (input, next: Next<WorkflowClientInterceptor, 'startWithDetails'>) => guarded(EVERY_PART, () => next(input)),
    signalWithStart: (input, next: Next<WorkflowClientInterceptor, 'signalWithStart'>) => guarded(EVERY_PART, () => next(input)),
    signal: (input, next: Next<WorkflowClientInterceptor, 'signal'>) => guarded(EVERY_PART, () => next(input)),
    startUpdate: (input, next: Next<WorkflowClientInterceptor, 'startUpdate'>) => guarded(EVERY_PART, () => next(input), false),
    startUpdateWithStart: (input, next: Next<WorkflowClientInterceptor, 'startUpdateWithStart'>) => guarded(EVERY_PART, () => next(input), false),
    cancel: (input, next: Next<WorkflowClientInterceptor, 'cancel'>) => guarded(EVERY_PART, () => next(input)),
    terminate: (input, next: Next<WorkflowClientInterceptor, 'terminate'>) => guarded(['temporal'], () => next(input)),
    query: (input, next: Next<WorkflowClientInterceptor, 'query'>) => guarded(['temporal', 'worker'], () => next(input)),
    describe: (input, next: Next<WorkflowClientInterceptor, 'describe'>) => guarded(['temporal'], () => next(input)),
  };
}

/** The API's client interceptors: the request id header, then the availability gate. */
export function engineClientInterceptors(availability: Availability, connection: Deadlines, timeoutMs: number): ClientInterceptors {
  return { workflow: [...(clientInterceptors.workflow as WorkflowClientInterceptor[]), availabilityInterceptor(availability, connection, timeoutMs)] };
}
