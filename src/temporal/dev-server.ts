import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { tiedToThisProcess } from '../platform/parent-death';

/** How much of the dev server's stderr an error about its exit quotes: this much of its start, and of its end. */
const STDERR_KEPT = 3000;
/** How much of the end of its stdout such an error quotes when stderr said nothing. */
const STDOUT_KEPT = 2000;

export interface DevServer {
  address: string;
  uiUrl: string | null;
  pid?: number;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cli: string;
  port: number;
  uiPort: number | null; // null: headless
  dbFile?: string; // omitted: in memory
  namespace: string;
  log: (msg: string) => void;
  /** `name=value` SQLite pragmas for the database file (src/temporal/connection.ts, DEV_SERVER_SQLITE_PRAGMAS). */
  sqlitePragmas?: string[];
  /** Where its Web UI decodes payloads (`--ui-codec-endpoint`): the admin API's codec endpoint. */
  uiCodecEndpoint?: string;
  /** Dynamic config values, `key=JSON value`. */
  dynamicConfig?: string[];
  /**
   * Where the starting process collects what it must stop: the server is registered the
   * moment it is spawned, so a stop during its start-up (Ctrl-C while it boots) ends it too.
   */
  shutdown?: { add(stop: () => Promise<unknown>): void };
  /** Called with the server's process id as soon as it is spawned (DATA_DIR/processes.json). */
  onSpawn?: (pid: number) => void;
}

/**
 * Another server already on the port would answer our readiness probe while our own dev
 * server fails to bind: the engine would silently run against somebody else's Temporal.
 */
async function assertPortFree(port: number, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `${what} port 127.0.0.1:${port} is already in use: stop what runs there, set TEMPORAL_ADDRESS to use it, or choose another TEMPORAL_DEV_PORT / TEMPORAL_UI_PORT`,
            )
          : err,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** Starts `temporal server start-dev` with the engine's search attributes and waits until it answers. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  await assertPortFree(opts.port, 'the Temporal dev server');
  if (opts.uiPort !== null) await assertPortFree(opts.uiPort, 'the Temporal Web UI');
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--namespace', opts.namespace, '--log-level', 'error'];
  if (opts.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort));
  if (opts.uiPort !== null && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
    for (const pragma of opts.sqlitePragmas ?? []) args.push('--sqlite-pragma', pragma);
  }
  for (const value of opts.dynamicConfig ?? []) args.push('--dynamic-config-value', value);
  for (const key of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=${searchAttributeCliType(key.type)}`);
  // The HTTP API and metrics ports default to fixed numbers; ask for free ones so several servers can coexist.
  args.push('--http-port', '0', '--metrics-port', '0');

  // Its own process group: Ctrl-C reaches the engine, which stops the worker first and the
  // server last. The server must never outlive the engine: the engine stops it on every way
  // out it sees (a signal, a closed stdout, an uncaught error: src/runtime/process.ts), the
  // exit hook below covers a bare process.exit, and on Linux the kernel sends it SIGTERM when
  // the engine dies in any way at all, SIGKILL included (parent-death signal, set by setpriv
  // before it execs the CLI, so the server keeps its own process id). Elsewhere, the next
  // start finds a server left behind in DATA_DIR/processes.json (src/runtime/process-file.ts).
  const tied = tiedToThisProcess(opts.cli, args);
  const child = spawn(tied.command, tied.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killOnExit = () => child.kill('SIGTERM');
  process.on('exit', killOnExit);
  child.on('exit', () => process.off('exit', killOnExit));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  child.on('error', () => undefined); // a failed spawn also ends in 'exit' (or exitCode), seen below
  const stop = () => stopChild(child, exited, hasExited);
  opts.shutdown?.add(stop);
  if (child.pid !== undefined) opts.onSpawn?.(child.pid);
  // What it wrote to stderr: its first lines (a Go panic's reason comes before its stack) and its last.
  let stderrHead = '';
  let stderrTail = '';
  let stderrChars = 0;
  child.stderr?.on('data', (d: Buffer) => {
    let text = d.toString();
    stderrChars += text.length;
    if (stderrHead.length < STDERR_KEPT) {
      const taken = text.slice(0, STDERR_KEPT - stderrHead.length);
      stderrHead += taken;
      text = text.slice(taken.length);
    }
    stderrTail = (stderrTail + text).slice(-STDERR_KEPT);
  });
  const stderr = () => (stderrChars > stderrHead.length + stderrTail.length ? `${stderrHead}\n…\n${stderrTail}` : stderrHead + stderrTail).trim();
  // Its stdout, read so that the pipe never fills: only its end is kept, for an exit that said nothing on stderr.
  let stdoutTail = '';
  child.stdout?.on('data', (d: Buffer) => (stdoutTail = (stdoutTail + d.toString()).slice(-STDOUT_KEPT)));
  const lastWords = () => stderr() || (stdoutTail.trim() ? `nothing on stderr; stdout ended: ${stdoutTail.trim()}` : 'nothing on stderr or stdout');
  const streamsClosed = new Promise((r) => child.on('close', r));
  const address = `127.0.0.1:${opts.port}`;

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (hasExited()) {
      // Its last words may still be in the pipe when it has exited: read them first (briefly).
      await Promise.race([streamsClosed, new Promise((r) => setTimeout(r, 1000))]);
      throw new Error(`temporal dev server exited with ${child.exitCode ?? child.signalCode}: ${lastWords()}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      await connection.workflowService.describeNamespace({ namespace: opts.namespace });
      await connection.close();
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not answer on ${address} within 120 s: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    address,
    uiUrl: opts.uiPort === null ? null : `http://127.0.0.1:${opts.uiPort}`,
    pid: child.pid,
    stop,
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, hasExited: () => boolean): Promise<void> {
  if (hasExited() || child.pid === undefined) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function searchAttributeCliType(type: string): string {
  const names: Record<string, string> = {
    INT: 'Int',
    KEYWORD: 'Keyword',
    TEXT: 'Text',
    BOOL: 'Bool',
    DOUBLE: 'Double',
    DATETIME: 'Datetime',
    KEYWORD_LIST: 'KeywordList',
  };
  return names[type] ?? type;
}
