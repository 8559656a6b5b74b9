/**
 * npm run bench:startup -- [--runs N]
 *
 * Start-up time and memory of `npm run worker` and `npm run api`, from the TypeScript
 * sources through tsx and compiled (`npm run build` first), side by side. Needs
 * DATABASE_URL (PostgreSQL: the two processes share it) and TEMPORAL_ADDRESS; starts the
 * compiled simulator for SUPPLIER_URL itself. Each round starts a worker, times it from spawn
 * to its /healthz answering 200, then an API the same way (its /healthz is 200 once the
 * worker polls), reads each process's resident memory two seconds later (`rss_mb`) and the
 * most it held (`peak_rss_mb`), and stops both. An unmeasured round goes first (migrations,
 * the disk cache); rounds alternate the two ways (tsx, compiled, tsx, …). Prints one JSON line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { args, freePort, round } from './common';

const opts = args({ runs: { type: 'string', default: '3' } });
const ROOT = path.resolve(__dirname, '../..');
const WAYS = {
  tsx: { worker: ['--import', 'tsx', 'worker/main.ts'], api: ['--import', 'tsx', 'src/api.ts'] },
  compiled: { worker: ['--enable-source-maps', 'dist/worker/main.js'], api: ['--enable-source-maps', 'dist/src/api.js'] },
};
type Way = keyof typeof WAYS;

function start(argv: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, log: () => log };
}

async function untilHealthy(url: string, proc: { child: ChildProcess; log: () => string }, t0: number): Promise<number> {
  while (performance.now() - t0 < 180_000) {
    if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode} before ${url} answered 200:\n${proc.log()}`);
    const ok = await fetch(url)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} not 200 within 180 s:\n${proc.log()}`);
}

/** Resident and peak resident memory of a process, in MiB. */
function memory(pid: number): { rss_mb: number; peak_rss_mb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss_mb: round(kb('VmRSS') / 1024), peak_rss_mb: round(kb('VmHWM') / 1024) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Sample {
  startup_ms: number;
  rss_mb: number;
  peak_rss_mb: number;
}

async function round1(way: Way, base: NodeJS.ProcessEnv): Promise<{ worker: Sample; api: Sample }> {
  const [port, adminPort, metricsPort, coreMetricsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = {
    ...base,
    TEMPORAL_TASK_QUEUE: `startup-${crypto.randomBytes(4).toString('hex')}`,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-startup-')),
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    WORKER_METRICS_PORT: String(metricsPort),
    TEMPORAL_CORE_METRICS_PORT: String(coreMetricsPort),
  };
  const t0 = performance.now();
  const worker = start(WAYS[way].worker, env);
  try {
    const workerMs = await untilHealthy(`http://127.0.0.1:${metricsPort}/healthz`, worker, t0);
    await new Promise((r) => setTimeout(r, 2000));
    const workerMemory = memory(worker.child.pid!);
    const t1 = performance.now();
    const api = start(WAYS[way].api, env);
    try {
      const apiMs = await untilHealthy(`http://127.0.0.1:${port}/healthz`, api, t1);
      await new Promise((r) => setTimeout(r, 2000));
      return { worker: { startup_ms: Math.round(workerMs), ...workerMemory }, api: { startup_ms: Math.round(apiMs), ...memory(api.child.pid!) } };
    } finally {
      await stop(api.child);
    }
  } finally {
    await stop(worker.child);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  if (!process.env.DATABASE_URL || !process.env.TEMPORAL_ADDRESS) throw new Error('set DATABASE_URL (PostgreSQL) and TEMPORAL_ADDRESS');
  if (!fs.existsSync(path.join(ROOT, 'dist/workflow-bundle.js'))) throw new Error('no compiled build in dist/: npm run build');
  const simulatorPort = await freePort();
  const simulator = start(['dist/src/suppliers/simulator/main.js'], { ...process.env, SIMULATOR_PORT: String(simulatorPort), LOG_LEVEL: 'warn' });
  try {
    await untilHealthy(`http://127.0.0.1:${simulatorPort}/healthz`, simulator, performance.now());
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      SUPPLIER_URL: `http://127.0.0.1:${simulatorPort}`,
      ADMIN_TOKEN: 'bench-startup-admin-token-0123456789',
      WEBHOOK_SECRETS_KEY: crypto.randomBytes(32).toString('base64'),
      TEMPORAL_PAYLOAD_KEY: crypto.randomBytes(32).toString('base64'),
      PERSONAL_DATA_KEY: crypto.randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    };
    await round1('compiled', base); // unmeasured: migrations, the disk cache
    const samples: Record<Way, Array<{ worker: Sample; api: Sample }>> = { tsx: [], compiled: [] };
    for (let i = 0; i < Number(opts.runs); i++) for (const way of Object.keys(WAYS) as Way[]) samples[way].push(await round1(way, base));
    const summary = (list: Sample[]) => ({
      startup_ms: list.map((s) => s.startup_ms),
      median_startup_ms: median(list.map((s) => s.startup_ms)),
      rss_mb: list.map((s) => s.rss_mb),
      median_rss_mb: median(list.map((s) => s.rss_mb)),
      peak_rss_mb: list.map((s) => s.peak_rss_mb),
    });
    console.log(
      JSON.stringify(
        Object.fromEntries(
          (Object.keys(WAYS) as Way[]).map((way) => [
            way,
            { worker: summary(samples[way].map((s) => s.worker)), api: summary(samples[way].map((s) => s.api)) },
          ]),
        ),
      ),
    );
  } finally {
    await stop(simulator.child);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
