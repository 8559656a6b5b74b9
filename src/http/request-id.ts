import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { requestSentNoLaterThan } from '../platform/listen';
import { withRequestId } from '../platform/request-context';

/**
 * `receivedAt`: when the request arrived (ms since the epoch, this process's clock): when its
 * connection was ready to carry it, at most ARRIVAL_MAX_LAG_MS before this process began
 * serving it (src/platform/listen.ts); in-process requests (tests), when serving began.
 */
export type RequestIdVariables = { requestId: string; receivedAt: number };

/** How long a request is believed to wait at most, unread, in its connection's buffers. */
export const ARRIVAL_MAX_LAG_MS = 10_000;

const SAFE = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Every response carries X-Request-Id (the caller's, if it sent a sane one) for support and
 * logs; workflows started while serving the request carry it in their memo.
 */
export const requestId = (): MiddlewareHandler<{ Variables: RequestIdVariables }> => async (c, next) => {
  c.set('receivedAt', requestSentNoLaterThan((c.env as { incoming?: IncomingMessage } | undefined)?.incoming, Date.now(), ARRIVAL_MAX_LAG_MS));
  const incoming = c.req.header('x-request-id');
  const id = incoming && SAFE.test(incoming) ? incoming : crypto.randomUUID();
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await withRequestId(id, next);
};
