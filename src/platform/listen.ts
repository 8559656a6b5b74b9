import { serve, type ServerType } from '@hono/node-server';
import https from 'node:https';
import net from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EarlyAnswerClosesResponse } from './early-answer';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** When a connection was last ready for a new request, and the request it carried last. */
const READY_AT = Symbol('readyAt');
const LATEST = Symbol('latestRequest');
type TrackedSocket = Socket & { [READY_AT]?: number; [LATEST]?: IncomingMessage };

/**
 * A request sits in its connection's buffers until the event loop gets to it: under load,
 * long after the client sent it (a storm of 30 requests on two busy cores is read over
 * seconds). The moment its connection was ready to carry it, accepted or done with the
 * response before it, is a lower bound of when it was sent. Bounded by `maxLagMs` before
 * `now`: a keep-alive connection idle for a long time (a proxy's pool) says nothing of when
 * its next request was sent.
 */
export function requestSentNoLaterThan(incoming: IncomingMessage | undefined, now: number, maxLagMs: number): number {
  const readyAt = (incoming?.socket as TrackedSocket | undefined)?.[READY_AT];
  return readyAt === undefined ? now : Math.min(now, Math.max(readyAt, now - maxLagMs));
}

/** Records on each connection when it became ready for its next request (see requestSentNoLaterThan). */
function trackReadiness(server: ServerType): void {
  server.on('connection', (socket: TrackedSocket) => {
    socket[READY_AT] = Date.now();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as TrackedSocket;
    socket[LATEST] = req;
    res.once('finish', () => {
      // A request pipelined behind this one may have been sent before this answer: it keeps
      // the earlier bound, so only the connection's latest request moves it.
      if (socket[LATEST] === req) socket[READY_AT] = Date.now();
    });
  });
}

/**
 * How long a client has to send a whole request, headers and body (a body is at most
 * 256 KiB). Node's own default is five minutes: a client that announces a body and sends
 * it a byte at a time, or not at all, would hold its connection and its buffers that long.
 * Past it Node answers 408 and closes the connection. Only the request: a response may take
 * longer (a payment waits for its outcome up to PAY_WAIT_MS).
 */
export const RECEIVE_TIMEOUT_MS = 30_000;

/**
 * How long an idle keep-alive connection stays open (announced in `Keep-Alive: timeout=`).
 * A client may send its next request on an idle connection at the moment the server closes
 * it, and then sees the connection reset (a POST is not sent again). Kept longer than most
 * clients and load balancers keep an idle connection (60 s is common; Node's default is 5 s),
 * it is closed by the client first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Whether a bind address is only reachable from this machine: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && mapped[1]!.startsWith('127.');
}

/** A certificate (chain) and its private key, PEM: the server answers HTTPS. */
export interface TlsFiles {
  cert: Buffer | string;
  key: Buffer | string;
}

/** Listens on a port (0 = any free one) and resolves once it accepts connections; over HTTPS with `tls`. */
export function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  port: number,
  hostname: string,
  { receiveTimeoutMs = RECEIVE_TIMEOUT_MS, tls }: { receiveTimeoutMs?: number; tls?: TlsFiles } = {},
): Promise<RunningServer> {
  const serverOptions = {
    ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    requestTimeout: receiveTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    headersTimeout: Math.min(receiveTimeoutMs, 20_000),
    // How often Node looks for requests past those bounds (its default, 30 s, would let one run a minute).
    connectionsCheckingInterval: Math.min(1000, receiveTimeoutMs / 4),
    // An answer given before its request's body was read closes its connection (src/platform/early-answer.ts).
    ServerResponse: EarlyAnswerClosesResponse as typeof ServerResponse,
  };
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      const options = tls ? { fetch, port, hostname, serverOptions, createServer: https.createServer } : { fetch, port, hostname, serverOptions };
      server = serve(options, (info: AddressInfo) => {
        const host = hostname === '0.0.0.0' ? '127.0.0.1' : hostname;
        resolve({
          url: `${tls ? 'https' : 'http'}://${host}:${info.port}`,
          port: info.port,
          close: () => new Promise<void>((done) => server.close(() => done())),
        });
      });
      trackReadiness(server);
      server.on('error', reject);
    } catch (err) {
      reject(err);
    }
  });
}
