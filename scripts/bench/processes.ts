/**
 * The processes a benchmark starts itself (the simulator, `npm start`, `npm run cluster`):
 * each in a process group of its own, ending with the benchmark even when it is killed
 * outright, stopped newest first on Ctrl-C or SIGTERM, and the directories made for a run
 * removed with them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { tiedToThisProcess } from '../../src/platform/parent-death';

const ROOT = path.resolve(__dirname, '../..');
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A wait that does not keep the process alive once nothing else does. */
const grace = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

const started: Array<{ name: string; child: ChildProcess; group: boolean }> = [];
/** The directories made for a run: data, logs. */
const temporary: string[] = [];

export function temporaryDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/**
 * Starts `node argv…` in the project's folder, its output appended to `logFile`.
 * `group`: stopping it signals the whole group (the engine and the dev server it started);
 * else the process alone, which stops its parts itself (the cluster's supervisor).
 */
export function startProcess(name: string, argv: string[], env: NodeJS.ProcessEnv, logFile: string, group = true): ChildProcess {
  const out = fs.openSync(logFile, 'a');
  const tied = tiedToThisProcess(process.execPath, argv);
  const child = spawn(tied.command, tied.args, { cwd: ROOT, env, stdio: ['ignore', out, out], detached: true });
  fs.closeSync(out);
  started.push({ name, child, group });
  return child;
}

/** Stops what was started, newest first. */
export async function stopStarted(): Promise<void> {
  for (const { child, group } of [...started].reverse()) await stopProcess(child, { group, graceMs: group ? 30_000 : 120_000 });
}

/** Ctrl-C or SIGTERM at any point: nothing is left behind (after a failure the directories keep the logs it names). */
export function stopOnSignals(): void {
  const onSignal = () =>
    void stopStarted()
      .then(() => temporary.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))
      .finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM, then SIGKILL to its group when it has not stopped within `graceMs`. */
export async function stopProcess(child: ChildProcess, { group, graceMs }: { group: boolean; graceMs: number }): Promise<void> {
  if (exited(child)) return;
  const done = new Promise((r) => child.once('exit', r));
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(group ? -child.pid! : child.pid!, signal);
    } catch {
      /* already gone */
    }
  };
  kill('SIGTERM');
  if (await Promise.race([done.then(() => true), grace(graceMs).then(() => false)])) return;
  log(`${child.pid} did not stop within ${graceMs} ms: SIGKILL to its group`);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
  await Promise.race([done, grace(5000)]);
}

/** Until `ok()`, polled every half second; fails when `child` exits first or the time is up, naming its log. */
export async function waitFor(what: string, ok: () => Promise<boolean>, child: ChildProcess | undefined, timeoutMs: number, logFile?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && exited(child)) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode})${logFile ? `; its log: ${logFile}` : ''}`);
    if (await ok().catch(() => false)) return;
    await sleep(500);
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000} s${logFile ? `; its log: ${logFile}` : ''}`);
}

export const httpOk = (url: string) => fetch(url).then((r) => (r.body?.cancel(), r.ok));

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

export async function requireFree(ports: number[]): Promise<void> {
  const busy = [];
  for (const p of ports) if (!(await portFree(p))) busy.push(p);
  if (busy.length) throw new Error(`ports in use: ${busy.join(', ')}`);
}

/**
 * The environment of `npm start` in DATA_DIR `dataDir` on ports `ports` (the API, admin,
 * simulator, dev server, its UI, worker metrics and Temporal Core metrics, in that order),
 * `extra` on top: it inherits nothing that would point it at another engine or database.
 */
export function npmStartEnv(dataDir: string, ports: readonly number[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const names = ['PORT', 'ADMIN_PORT', 'SIMULATOR_PORT', 'TEMPORAL_DEV_PORT', 'TEMPORAL_UI_PORT', 'WORKER_METRICS_PORT', 'TEMPORAL_CORE_METRICS_PORT'];
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const name of ['API_URL', 'ADMIN_URL', 'ADMIN_TOKEN', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'SUPPLIER_URL']) delete env[name];
  names.forEach((name, i) => (env[name] = String(ports[i])));
  return { ...env, ...extra };
}
