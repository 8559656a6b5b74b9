import { defaultPayloadConverter, type Headers } from '@temporalio/common';

/**
 * The Temporal header that carries the request id of the API request a workflow, child,
 * activity, signal or update is working for. Written and read by the interceptors on the
 * client, in workflows and in the worker; workflow-safe (no Node APIs).
 */
export const REQUEST_ID_HEADER = 'requestId';

export function requestIdFromHeaders(headers: Headers | undefined): string | undefined {
  const payload = headers?.[REQUEST_ID_HEADER];
  if (!payload) return undefined;
  const value: unknown = defaultPayloadConverter.fromPayload(payload);
  return typeof value === 'string' && value ? value : undefined;
}

/** `headers` plus the request id, if there is one; an id already in the headers stays. */
export function withRequestIdHeader(headers: Headers, requestId: string | undefined): Headers {
  if (!requestId || headers[REQUEST_ID_HEADER]) return headers;
  return { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) };
}

/**
 * The Temporal header that carries who a workflow works for (an agency's user or API
 * connection, an operator), as the API recorded them: what its activities write on the
 * orders and ledger rows they make. Carried exactly as the request id is.
 */
export const ACTOR_HEADER = 'actor';

/** Who acts, as a plain JSON record (src/platform/actor.ts ActorRecord); opaque to workflows. */
export type CarriedActor = Record<string, unknown>;

/** What the headers carry on from the API request: its id and who made it. */
export interface Carried {
  requestId?: string;
  actor?: CarriedActor;
}

export function carriedFromHeaders(headers: Headers | undefined): Carried {
  const carried: Carried = {};
  const requestId = requestIdFromHeaders(headers);
  if (requestId) carried.requestId = requestId;
  const payload = headers?.[ACTOR_HEADER];
  const actor: unknown = payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
  if (actor && typeof actor === 'object' && !Array.isArray(actor)) carried.actor = actor as CarriedActor;
  return carried;
}

/** `headers` plus what is carried; what the headers already hold stays. */
export function withCarriedHeaders(headers: Headers, carried: Carried): Headers {
  const withId = withRequestIdHeader(headers, carried.requestId);
  if (!carried.actor || withId[ACTOR_HEADER]) return withId;
  return { ...withId, [ACTOR_HEADER]: defaultPayloadConverter.toPayload(carried.actor) };
}
