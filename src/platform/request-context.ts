import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActorRecord } from './actor';

/**
 * What runs on behalf of a request deeper down (workflow memos and headers, logs) finds it
 * here: the API request being served, or the activity being run — which workflow, which
 * activity, and the request id the workflow passed on to it (worker/interceptors.ts).
 */
export interface LogContext {
  requestId?: string;
  workflowId?: string;
  activityType?: string;
}

/** An activity's context: what its logs carry, and the signal that says it was cancelled or timed out. */
export interface ActivityContext extends LogContext {
  cancelled?: AbortSignal;
  /** Who the request, or the workflow the activity works for, acts for: recorded on what it writes. */
  actor?: ActorRecord;
}

/** How the search layer served each request's supplier search (src/domain/search/layer.ts), for its answer's headers. */
const searchServedBy = new WeakMap<LogContext, string>();

const context = new AsyncLocalStorage<ActivityContext>();

export const withRequestId = <T>(requestId: string, run: () => Promise<T>) => context.run({ requestId }, run);
export const withLogContext = <T>(fields: ActivityContext, run: () => Promise<T>) => context.run(fields, run);
/** The context this runs in (a copy), to run a part of it under other fields. */
export const activityContext = (): ActivityContext => ({ ...context.getStore() });
/** Records who the request being served acts for (set once its credentials are checked). */
export const actAs = (actor: ActorRecord): void => {
  const store = context.getStore();
  if (store) store.actor = actor;
};
/** Who the request or activity this runs in acts for; undefined for the engine's own work. */
export const currentActor = (): ActorRecord | undefined => context.getStore()?.actor;
/** The engine itself, as the actor of what nobody asked for at that moment (an expiry, an upkeep). */
export const ENGINE_ACTOR: ActorRecord = { type: 'engine', id: null, name: 'engine' };
/** Who to record on what is being written now. */
export const actorNow = (): ActorRecord => currentActor() ?? ENGINE_ACTOR;
export const currentRequestId = (): string | undefined => context.getStore()?.requestId;
/** What every log line written here carries (a copy: pino adds to what a mixin returns). */
export const logContext = (): LogContext => {
  const store = context.getStore();
  return store ? { requestId: store.requestId, workflowId: store.workflowId, activityType: store.activityType } : {};
};
/**
 * Aborted when the activity this runs in is cancelled or times out (a payment's quick
 * supplier try that did not answer in time): what it calls out to stops with it.
 */
export const activityCancelled = (): AbortSignal | undefined => context.getStore()?.cancelled;
/** Whether this runs in an activity (a workflow's step), rather than for an API request itself. */
export const inActivity = (): boolean => context.getStore()?.activityType !== undefined;

/** Notes how the request's supplier search was served (the last search, when it made several). */
export function noteSearchServed(outcome: string): void {
  const store = context.getStore();
  if (store) searchServedBy.set(store, outcome);
}

/** How this request's supplier search was served, if it made one. */
export const searchServed = (): string | undefined => {
  const store = context.getStore();
  return store ? searchServedBy.get(store) : undefined;
};
