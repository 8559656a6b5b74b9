import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { clientAddress, type AddressSet } from '../platform/addresses';

/** The address of a request that came through no socket (a test's `app.request`): one client, counted as one. */
export const NO_SOCKET = 'unknown';

/**
 * The request's client address, for the limits counted before authentication: the socket's
 * peer, or, behind a trusted proxy (TRUSTED_PROXIES), the right-most untrusted address of
 * X-Forwarded-For.
 */
export function clientAddressOf(trusted: AddressSet): (c: Context) => string {
  return (c) => {
    // @hono/node-server's bindings: the request Node received.
    const peer = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress;
    return clientAddress(peer, c.req.header('x-forwarded-for'), trusted) ?? NO_SOCKET;
  };
}
