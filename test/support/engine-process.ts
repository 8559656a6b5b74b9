import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive as alive } from '../../src/platform/process-alive';
import { freePort } from './global-setup';

/**
 * `npm start` (node --import tsx src/main.ts) in a child process, with its own DATA_DIR,
 * PGlite and Temporal dev server on free ports, for the tests that run the engine as a
 * newcomer does. `stopEngines` after each test kills what is left of them (and returns the
 * dev servers still alive); `removeDataDirs` after the file removes their directories.
 */
const ROOT = path.resolve(__dirname, '../..');

export interface Engine {
  child: ChildProcess;
  dataDir: string;
  ports: Record<string, number>;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Engine[] = [];
const dataDirs: string[] = [];
export const scratchDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bte-engine-'));
  dataDirs.push(dir);
  return dir;
};

export async function startEngine(opts: { dataDir?: string; ports?: Record<string, number>; stdout?: 'pipe' | 'ignore' } = {}): Promise<Engine> {
  const dataDir = opts.dataDir ?? scratchDir();
  const ports = opts.ports ?? {
    PORT: await freePort(),
    ADMIN_PORT: await freePort(),
    SIMULATOR_PORT: await freePort(),
    TEMPORAL_DEV_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
    TEMPORAL_CORE_METRICS_PORT: await freePort(),
  };
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  for (const [k, v] of Object.entries(ports)) env[k] = String(v);
  for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'ADMIN_TOKEN', 'SUPPLIER_URL']) delete env[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', opts.stdout ?? 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const engine = { child, dataDir, ports, output: () => output, exited };
  started.push(engine);
  return engine;
}

export const recorded = (dataDir: string): Record<string, number> => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'processes.json'), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
};

export async function until<T>(what: string, engine: Engine | undefined, probe: () => T | undefined | Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s\n${engine?.output().slice(-3000) ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const healthy = (engine: Engine) =>
  until('/healthz 200', engine, async () => {
    if (engine.child.exitCode !== null) throw new Error(`the engine exited (${engine.child.exitCode}):\n${engine.output().slice(-3000)}`);
    return (
      (await fetch(`http://127.0.0.1:${engine.ports.PORT}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      )) || undefined
    );
  });

/** Kills every engine a test started that is still running; the dev servers still alive after them, for the caller to stop. */
export async function stopEngines(): Promise<number[]> {
  const left: number[] = [];
  for (const engine of started.splice(0)) {
    if (engine.child.exitCode === null && engine.child.signalCode === null) {
      engine.child.kill('SIGKILL');
      await engine.exited;
    }
    const server = recorded(engine.dataDir).temporal;
    if (server && alive(server)) left.push(server);
  }
  return left;
}

export function removeDataDirs(): void {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
