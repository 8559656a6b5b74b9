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
