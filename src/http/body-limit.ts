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
  const tooLarge = (c: Context) => answer(c, `the request body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
  // No route reads a GET's or HEAD's body. A body whose length is declared is judged by it
  // here: hono/body-limit would first ask the adapter for the body as a stream, which builds a
  // whole fetch Request per request, where the routes read it straight from Node's request;
  // and a stream nobody reads holds the connection paused under the rest of the body.
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return limit(c, next);
    return Number(declared) > MAX_BODY_BYTES ? Promise.resolve(tooLarge(c)) : next();
  };
};
