import crypto from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { withRequestId } from '../platform/request-context';

export type RequestIdVariables = { requestId: string };

const SAFE = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Every response carries X-Request-Id (the caller's, if it sent a sane one) for support and
 * logs; workflows started while serving the request carry it in their memo.
 */
export const requestId = (): MiddlewareHandler<{ Variables: RequestIdVariables }> => async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const id = incoming && SAFE.test(incoming) ? incoming : crypto.randomUUID();
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await withRequestId(id, next);
};
