import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

/**
 * After an answer given before its request's body arrived whole, how long the server keeps
 * reading (and discarding) the rest of that body, and how much of it, before it closes the
 * connection. A client still sending when the answer leaves thus reads the answer and an
 * orderly close; a connection closed with unread bytes is reset, and a reset can destroy an
 * answer the client has not read yet (nginx's lingering close, for the same reason).
 */
const LINGER_MS = 5_000;
const LINGER_BYTES = 8 * 1024 * 1024;

const LINGERING = Symbol('lingering');
type LingeringSocket = Socket & { [LINGERING]?: boolean };

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * Whether some of a request's body has not arrived yet. A request without one (no length,
 * or 0, and no chunked encoding) has none to wait for, although Node marks it complete only
 * once its parser is done with it: after an answer written at once, in the same turn.
 */
function bodyStillComing(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * Replaces the connection's close after the answer (Node calls `destroySoon` once an answer
 * that says `Connection: close` is written) with a bounded lingering close: the write side
 * ends at once, the rest of the body is read and dropped until it ends, the client closes,
 * or the bounds pass, and then the connection is closed.
 */
function lingerAfterAnswer(req: IncomingMessage, socket: LingeringSocket): void {
  const closeNow = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (socket[LINGERING]) return;
    socket[LINGERING] = true;
    if (!bodyStillComing(req) || socket.destroyed) return closeNow();
    const close = () => {
      clearTimeout(timer);
      closeNow();
    };
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.end();
    let read = 0;
    // A reader the app left behind (a body stream nobody reads) would keep the connection
    // paused: as Node itself drops an unread body, its data goes nowhere now.
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER_BYTES) socket.destroy();
    });
    req.once('end', close);
    socket.once('end', close);
    socket.once('close', () => clearTimeout(timer));
    req.resume();
  };
}

/**
 * A response that closes its connection when it is written before its request arrived
 * whole (a 413 on the declared length, a 401, 415 or 400 judged on the headers, the path or
 * the query): the unread rest of the body would otherwise be read as the next request, or
 * the connection dropped under a client that was told it stays open. An answer to a request
 * the server holds whole keeps the connection open.
 */
export class EarlyAnswerClosesResponse extends ServerResponse {
  override writeHead(statusCode: number, statusMessage?: string | Headers, headers?: Headers): this {
    if (this.req && !this.headersSent && bodyStillComing(this.req)) {
      this.shouldKeepAlive = false;
      lingerAfterAnswer(this.req, this.req.socket);
    }
    return typeof statusMessage === 'object' ? super.writeHead(statusCode, statusMessage) : super.writeHead(statusCode, statusMessage, headers);
  }
}
