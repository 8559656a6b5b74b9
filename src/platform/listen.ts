import { serve, type ServerType } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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

/** Listens on a port (0 = any free one) and resolves once it accepts connections. */
export function listen(fetch: (req: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      server = serve({ fetch, port, hostname }, (info: AddressInfo) => {
        const host = hostname === '0.0.0.0' ? '127.0.0.1' : hostname;
        resolve({
          url: `http://${host}:${info.port}`,
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
