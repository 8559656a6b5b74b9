/**
 * A load of HTTP requests over keep-alive connections, for benchmarks whose answers are
 * large: Node's own HTTP client (its parser is native) reads each answer as buffers and only
 * counts them, so the load costs little CPU per answer and leaves the machine to the engine.
 *
 * Without a rate, each connection sends its next request when its last is answered. With
 * one, the connections together send `rate` requests a second on a schedule: each takes the
 * next slot, waits for it, and sends at once if it is already late (at most one request in
 * flight per connection).
 */
import http from 'node:http';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadAnswer {
  /** The HTTP status, or `timeouts` / `socket_errors` when none came. */
  status: number | 'timeouts' | 'socket_errors';
  headers: http.IncomingHttpHeaders;
  /** Bytes of the answer on the wire: its status line and headers, and its body as sent. */
  bytes: number;
  ms: number;
  /** The first bytes of a non-2xx answer's body; a failed request's error (its code and message). */
  sample?: string;
}

export interface LoadOptions<M> {
  url: string;
  connections: number;
  seconds: number;
  /** Requests a second across the connections; 0: as fast as answers come. */
  rate: number;
  timeoutMs: number;
  /** The next request, and what the caller wants back with its answer. */
  next: () => { request: LoadRequest; meta: M };
  onAnswer: (meta: M, answer: LoadAnswer) => void;
}

const SAMPLE_BYTES = 300;
const IDLE_MS = 30_000;

const failure = (err: NodeJS.ErrnoException) => `${err.code ?? 'error'}: ${err.message}`;

function send(agent: http.Agent, url: URL, r: LoadRequest, timeoutMs: number): Promise<LoadAnswer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Omit<LoadAnswer, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, ms: performance.now() - t0 });
    };
    const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
    const req = http.request({ agent, host: url.hostname, port: url.port, method: r.method, path: r.path, headers }, (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status <= 299;
      // The status line and the headers as they came: `HTTP/1.1 200 OK\r\n`, `name: value\r\n` each, then `\r\n`.
      let bytes = 17 + (res.statusMessage?.length ?? 0);
      for (let i = 0; i < res.rawHeaders.length; i += 2) bytes += res.rawHeaders[i]!.length + res.rawHeaders[i + 1]!.length + 4;
      bytes += 2;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!ok && keptBytes < SAMPLE_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
      });
      res.on('end', () => done({ status, headers: res.headers, bytes, ...(ok ? {} : { sample: Buffer.concat(kept).toString('utf8', 0, SAMPLE_BYTES) }) }));
      res.on('error', (err) => done({ status: 'socket_errors', headers: {}, bytes, sample: failure(err) }));
    });
    req.setTimeout(timeoutMs, () => {
      done({ status: 'timeouts', headers: {}, bytes: 0 });
      req.destroy();
    });
    req.on('error', (err) => done({ status: 'socket_errors', headers: {}, bytes: 0, sample: failure(err) }));
    req.end(r.body);
  });
}

/** Runs the load for `seconds`; resolves once every request sent has been answered or has failed. */
export async function runLoad<M>(opts: LoadOptions<M>): Promise<void> {
  const url = new URL(opts.url);
  // An idle connection is closed by this side first: within 30 s, or a second before the
  // server's `Keep-Alive: timeout=` if that is sooner (Node's agent reads the hint only when
  // given a timeout of its own), so no search is sent on a connection the server is closing.
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections, maxFreeSockets: opts.connections, timeout: IDLE_MS });
  const t0 = performance.now();
  const end = t0 + opts.seconds * 1000;
  let slot = 0;
  const connection = async () => {
    for (;;) {
      let at = performance.now();
      if (opts.rate > 0) {
        const due = t0 + (slot++ * 1000) / opts.rate;
        if (due >= end) return;
        if (due > at) await new Promise((r) => setTimeout(r, due - at));
        at = performance.now();
      }
      if (at >= end) return;
      const { request, meta } = opts.next();
      opts.onAnswer(meta, await send(agent, url, request, opts.timeoutMs));
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.connections }, connection));
  } finally {
    agent.destroy();
  }
}
