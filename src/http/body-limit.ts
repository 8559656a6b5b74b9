import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * The largest request body either interface reads: the largest real one (a flight booking
 * for nine travellers, a visa application with its documents) is a few KiB. A larger body
 * is refused with 413 before it is read whole (hono/body-limit checks Content-Length, and
 * counts a streamed body as it arrives).
 */
export const MAX_BODY_BYTES = 256 * 1024;

/** The body limit, answering 413 in the interface's own error shape. */
export const limitBody = (answer: (c: Context, message: string) => Response): MiddlewareHandler => {
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => answer(c, `the request body is larger than ${MAX_BODY_BYTES / 1024} KiB`) });
  // No route reads a GET's or HEAD's body, and asking the adapter for one builds a whole
  // fetch Request per read (about a third of a millisecond).
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, next));
};
