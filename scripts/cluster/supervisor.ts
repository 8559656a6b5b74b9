import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readClusterState, type ClusterInfo, type ClusterState, type PartState } from './state';

/** One process of the topology, and how to tell it is ready. */
export interface PartSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this user (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
  /** Where it listens, for the table printed at start. */
  listens: string;
  /** Resolves true once the part serves. */
  ready(): Promise<boolean>;
  /** The signal that stops it cleanly (default SIGTERM; PostgreSQL's fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** How long a clean stop may take before SIGKILL (default 30 s: workers drain their activities). */
  stopTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Part {
  child: ChildProcess | null = null;
  up = false;
  restarts = 0;
  private startedAt = 0;
  private stopping = false;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly spec: PartSpec,
    private readonly logFile: string,
    private readonly onChange: () => void,
    private readonly log: (msg: string) => void,
  ) {}

  get command(): string {
    return [this.spec.command, ...this.spec.args].join(' ');
  }

  spawn(): void {
    const out = fs.openSync(this.logFile, 'a');
    // Its own process group: Ctrl-C in the terminal reaches the supervisor only, which then
    // stops the parts in order (APIs and workers before Temporal, PostgreSQL last).
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: this.spec.env ?? process.env,
      stdio: ['ignore', out, out],
      detached: true,
      uid: this.spec.uid,
      gid: this.spec.gid,
    });
    fs.closeSync(out);
    this.child = child;
    this.up = false;
    this.startedAt = Date.now();
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => this.onExit(child, code, signal));
    child.once('error', (err) => this.log(`${this.spec.name}: ${err.message}`));
    this.onChange();
  }

  /**
   * Waits until the part is ready, up to `timeoutMs`, across restarts (a part that dies
   * while starting is started again, and may well come up then); false on timeout.
   */
  async waitReady(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.stopping) {
      const child = this.child;
      if (child && child.exitCode === null && child.signalCode === null && (await this.spec.ready().catch(() => false)) && this.child === child) {
        this.up = true;
        this.onChange();
        return true;
      }
      await sleep(250);
    }
    return false;
  }

  /** Like `restart: unless-stopped`: a part that dies is started again, with a growing pause if it keeps dying at once. */
  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.up = false;
    this.onChange();
    if (this.stopping) return;
    const lived = Date.now() - this.startedAt;
    const pause = lived < 10_000 ? Math.min(15_000, 1000 * 2 ** Math.min(this.restarts, 4)) : 1000;
    this.log(`${this.spec.name} exited (${signal ?? `code ${code}`}); restarting in ${pause / 1000} s (log: ${this.logFile})`);
    setTimeout(() => {
      if (this.stopping) return;
      this.restarts += 1;
      this.spawn();
      void this.waitReady(120_000).then((ok) => ok && this.log(`${this.spec.name} is back (pid ${this.child?.pid})`));
    }, pause);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(this.spec.stopSignal ?? 'SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), this.spec.stopTimeoutMs ?? 30_000);
    await this.exited;
    clearTimeout(timer);
  }

  state(): PartState {
    return { pid: this.child?.pid ?? null, up: this.up, restarts: this.restarts, listens: this.spec.listens, command: this.command };
  }
}

/**
 * Starts the parts of a topology, restarts any that dies unasked, stops them in reverse
 * order, and keeps `state.json` in its directory current (pids, up, restarts) for tools
 * that inject faults (`npm run chaos`) or want to know where things listen.
 */
export class Supervisor {
  private readonly parts: Part[] = [];
  private ready = false;
  readonly stateFile: string;
  private readonly logDir: string;

  constructor(
    readonly dir: string,
    private readonly info: ClusterInfo,
    private readonly log: (msg: string) => void,
  ) {
    this.stateFile = path.join(dir, 'state.json');
    this.logDir = path.join(dir, 'logs');
    fs.mkdirSync(this.logDir, { recursive: true });
  }

  logFile(name: string): string {
    return path.join(this.logDir, `${name}.log`);
  }

  /** Starts the parts together and waits until every one of them is ready. */
  async start(specs: PartSpec[], readyTimeoutMs = 120_000): Promise<void> {
    const parts = specs.map((spec) => new Part(spec, this.logFile(spec.name), () => this.writeState(), this.log));
    this.parts.push(...parts);
    for (const part of parts) part.spawn();
    const results = await Promise.all(parts.map((part) => part.waitReady(readyTimeoutMs)));
    const failed = parts.filter((_, i) => !results[i]).map((p) => `${p.spec.name} (log: ${this.logFile(p.spec.name)})`);
    if (failed.length) throw new Error(`not ready within ${readyTimeoutMs / 1000} s: ${failed.join(', ')}`);
  }

  markReady(): void {
    this.ready = true;
    this.writeState();
  }

  async stopAll(): Promise<void> {
    this.ready = false;
    for (const part of [...this.parts].reverse()) {
      await part.stop().catch((err) => this.log(`stopping ${part.spec.name}: ${(err as Error).message}`));
    }
    fs.rmSync(this.stateFile, { force: true });
  }

  table(): string[][] {
    return this.parts.map((p) => [p.spec.name, String(p.child?.pid ?? '-'), p.spec.listens]);
  }

  private writeState(): void {
    const state: ClusterState = {
      supervisorPid: process.pid,
      ready: this.ready,
      ...this.info,
      parts: Object.fromEntries(this.parts.map((p) => [p.spec.name, p.state()])),
    };
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
    fs.renameSync(tmp, this.stateFile);
  }
}

/**
 * A supervisor killed outright (SIGKILL) leaves its parts running: the next run stops the
 * processes its state file lists, if they still run the command it recorded.
 */
export function stopOrphans(stateFile: string, log: (msg: string) => void): void {
  let state: ClusterState;
  try {
    state = readClusterState(stateFile);
  } catch {
    return;
  }
  if (state.supervisorPid && isAlive(state.supervisorPid)) {
    throw new Error(
      `a cluster is already running from ${path.dirname(stateFile)} (supervisor pid ${state.supervisorPid}); stop it first (Ctrl-C, or kill ${state.supervisorPid})`,
    );
  }
  for (const [name, part] of Object.entries(state.parts ?? {})) {
    if (!part.pid || !isAlive(part.pid)) continue;
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${part.pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue;
    }
    if (cmdline !== part.command) continue;
    log(`stopping ${name} (pid ${part.pid}) left over from an earlier run`);
    process.kill(part.pid, 'SIGKILL');
  }
  fs.rmSync(stateFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
