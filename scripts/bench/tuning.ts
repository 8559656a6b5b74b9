/**
 * npm run bench:tuning -- [--variants a,b,...] [--concurrency N] [--orders M] [--rounds R] [--warmup W]
 *
 * Measures what each worker capacity setting buys: for every variant it starts the whole
 * engine (`npm start`, fresh DATA_DIR, its own ports) with that variant's environment,
 * runs bench:pay against it, and stops it. Rounds interleave the variants (a b c a b c …)
 * so drift on the machine spreads over all of them; the report gives each variant's
 * median over its rounds. Prints one JSON line.
 *
 * A variant may also be another checkout, `label=PATH` (e.g. `before=/work/wt-before`, a
 * worktree of an earlier commit with its own node_modules): the engine then runs from that
 * tree with its defaults, so a code change is measured against its parent side by side.
 *
 * --floor runs each engine as the benchmark engine (`bench:engine`, from the variant's own
 * tree) and bench:pay with --floor: every round also measures the floor workflow on that
 * engine, and the report gives each variant's payment over its floor (`cpu_ratio`, the median
 * of the rounds' ratios) and over the median of every floor the run measured
 * (`cpu_ratio_to_pooled_floor`): the floor workflow is the same in every variant, and the
 * pooled floor moves less than one round's. --alternate K passes on to bench:pay: each round
 * measures payments and floor workflows in K windows each, taking turns.
 * --scenario passes a sandbox scenario to bench:pay (with SANDBOX_SLOW_MS in the environment,
 * `supplier_slow` is a supplier that answers after that long). The engines listen from
 * BENCH_TUNING_PORT (default 18000) up, ten ports each.
 *
 * --supplier-process runs the supplier simulator in a process of its own beside each engine
 * (SUPPLIER_URL), as a real supplier is apart from the engine, instead of inside the engine's
 * process as `npm start` serves it: bench:pay then counts its CPU apart (part `supplier`) and
 * leaves it out of the payment over its floor, which calls no supplier.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { args, round } from './common';
import { engineMs } from './topology';
import { tiedToThisProcess } from '../../src/platform/parent-death';

/** Each variant is the environment the engine runs with: one worker capacity setting changed, or the defaults. */
export const VARIANTS: Record<string, Record<string, string>> = {
  pollers_2: { WORKER_WORKFLOW_TASK_POLLERS: '2', WORKER_ACTIVITY_TASK_POLLERS: '2' },
  pollers_20: { WORKER_WORKFLOW_TASK_POLLERS: '20', WORKER_ACTIVITY_TASK_POLLERS: '20' },
  cache_0: { WORKER_MAX_CACHED_WORKFLOWS: '0' },
  defaults: {},
};

const raw = args({
  variants: { type: 'string', default: Object.keys(VARIANTS).join(',') },
  concurrency: { type: 'string', default: '10' },
  orders: { type: 'string', default: '100' },
  rounds: { type: 'string', default: '1' },
  warmup: { type: 'string', default: '3000' },
  floor: { type: 'boolean', default: false },
  alternate: { type: 'string', default: '0' },
  scenario: { type: 'string' },
  'supplier-process': { type: 'boolean', default: false },
});
const opts = {
  variants: String(raw.variants),
  concurrency: String(raw.concurrency),
  orders: String(raw.orders),
  rounds: String(raw.rounds),
  warmup: String(raw.warmup),
  floor: raw.floor === true,
  alternate: String(raw.alternate),
  scenario: raw.scenario === undefined ? undefined : String(raw.scenario),
  supplierProcess: raw['supplier-process'] === true,
};

const ROOT = path.resolve(__dirname, '../..');
const BASE_PORT = Number(process.env.BENCH_TUNING_PORT || 18_000);

interface PayReport {
  cpu_per_payment?: { total_ms: number; by_part_ms: Record<string, number> };
  engine_threads_per_payment?: Record<string, number>;
  history_events_per_payment?: number;
  pays_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
  unanswered?: number;
  double_debits: number;
  floor?: { workflows_per_s: number; cpu_per_workflow?: { total_ms: number; by_part_ms: Record<string, number> } };
  payment_over_floor?: { throughput_ratio: number; cpu_ratio?: number; extra_cpu_ms?: number };
}

/** A child of this benchmark, which ends with it even when it is killed outright (src/platform/parent-death.ts). */
function run(cmd: string, argv: string[], env: NodeJS.ProcessEnv, capture: boolean, cwd = ROOT): { child: ChildProcess; output: Promise<string> } {
  const tied = tiedToThisProcess(cmd, argv);
  const child = spawn(tied.command, tied.args, { cwd, env, stdio: ['ignore', capture ? 'pipe' : 'ignore', 'pipe'], detached: !capture });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const output = new Promise<string>((resolve, reject) =>
    child.on('exit', (code) => (code === 0 || !capture ? resolve(out) : reject(new Error(`${cmd} ${argv.join(' ')} exited ${code}: ${err}`)))),
  );
  return { child, output };
}

async function waitHealthy(url: string, engine: ChildProcess, what = 'the engine'): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (engine.exitCode !== null) throw new Error(`${what} exited with ${engine.exitCode}`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not get healthy at ${url}`);
}

/** A variant: an environment for this checkout, or `label=PATH` for another checkout's defaults. */
function variantOf(spec: string): { env: Record<string, string>; root: string } | undefined {
  const eq = spec.indexOf('=');
  if (eq < 0) return VARIANTS[spec] ? { env: VARIANTS[spec], root: ROOT } : undefined;
  const root = path.resolve(spec.slice(eq + 1));
  return fs.existsSync(path.join(root, 'src/main.ts')) ? { env: {}, root } : undefined;
}

async function measure(name: string, slot: number): Promise<PayReport> {
  const variant = variantOf(name)!;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name.split('=')[0]}-`));
  const port = BASE_PORT + slot * 10;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...variant.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(port + 1),
    SIMULATOR_PORT: String(port + 2),
    TEMPORAL_DEV_PORT: String(port + 3),
    TEMPORAL_UI_PORT: String(port + 4),
    WORKER_METRICS_PORT: String(port + 5),
    TEMPORAL_CORE_METRICS_PORT: String(port + 6),
    LOG_LEVEL: 'warn',
    ...(opts.floor ? { BENCH_BARE_PORT: String(port + 7) } : {}),
  };
  const entry = opts.floor ? 'scripts/bench/engine/main.ts' : 'src/main.ts';
  let supplier: ReturnType<typeof run> | undefined;
  if (opts.supplierProcess) {
    const supplierPort = port + 8;
    supplier = run(
      process.execPath,
      ['--import', 'tsx', 'src/suppliers/simulator/main.ts'],
      { ...env, SIMULATOR_PORT: String(supplierPort) },
      false,
      variant.root,
    );
    await waitHealthy(`http://127.0.0.1:${supplierPort}/healthz`, supplier.child, 'the supplier simulator');
    env.SUPPLIER_URL = `http://127.0.0.1:${supplierPort}`;
    env.BENCH_EXTRA_PIDS = [env.BENCH_EXTRA_PIDS, `supplier=${supplier.child.pid}`].filter(Boolean).join(',');
  }
  const engine = run(process.execPath, ['--import', 'tsx', entry], env, false, variant.root);
  try {
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, engine.child);
    const bench = run(
      process.execPath,
      [
        ...[
          '--import',
          'tsx',
          'scripts/bench/pay.ts',
          '--concurrency',
          opts.concurrency,
          '--orders',
          opts.orders,
          '--warmup',
          opts.warmup,
          '--idle-seconds',
          '0',
        ],
        ...(opts.floor ? ['--floor'] : []),
        ...(opts.alternate !== '0' ? ['--alternate', opts.alternate] : []),
        ...(opts.scenario ? ['--scenario', opts.scenario] : []),
      ],
      env,
      true,
    );
    return JSON.parse((await bench.output).trim().split('\n').pop()!) as PayReport;
  } finally {
    // The engine runs in its own process group: stop it and the dev server it started.
    try {
      process.kill(-engine.child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await Promise.race([engine.output, new Promise((r) => setTimeout(r, 20_000))]);
    if (supplier) {
      try {
        process.kill(-supplier.child.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
      await Promise.race([supplier.output, new Promise((r) => setTimeout(r, 5_000))]);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const names = opts.variants.split(',').map((v) => v.trim());
  const unknown = names.filter((n) => !variantOf(n));
  if (unknown.length) throw new Error(`unknown variants ${unknown.join(', ')}; known: ${Object.keys(VARIANTS).join(', ')}, or label=PATH of a checkout`);
  const runs: Record<string, PayReport[]> = Object.fromEntries(names.map((n) => [n, []]));
  let slot = 0;
  for (let r = 0; r < Number(opts.rounds); r++) {
    for (const name of names) {
      const report = await measure(name, slot++ % 5);
      process.stderr.write(`${name} round ${r + 1}: ${JSON.stringify(report)}\n`);
      runs[name]!.push(report);
    }
  }
  const base = runs.untuned?.length ? median(runs.untuned.map((x) => x.pays_per_s)) : undefined;
  // Every floor of the run, whichever variant's engine ran it: the floor workflow is the same
  // code in each, and one floor's CPU moves from round to round more than the variants differ.
  const floors = Object.values(runs).flatMap((xs) => xs.map((x) => (x.floor?.cpu_per_workflow ? engineMs(x.floor.cpu_per_workflow) : NaN)));
  const pooledFloor = opts.floor ? median(floors) : NaN;
  const results = names.map((name) => {
    const xs = runs[name]!;
    const pays = median(xs.map((x) => x.pays_per_s));
    return {
      variant: name,
      env: variantOf(name)!.env,
      pays_per_s: round(pays),
      p50_ms: round(median(xs.map((x) => x.p50_ms))),
      p95_ms: round(median(xs.map((x) => x.p95_ms))),
      p99_ms: round(median(xs.map((x) => x.p99_ms))),
      // CPU of every process of the topology (the engine, the dev server) per payment, and one payment's history.
      cpu_ms: round(median(xs.map((x) => x.cpu_per_payment?.total_ms ?? NaN))),
      cpu_by_part_ms: Object.fromEntries(
        Object.keys(xs[0]?.cpu_per_payment?.by_part_ms ?? {}).map((part) => [part, round(median(xs.map((x) => x.cpu_per_payment!.by_part_ms[part]!)))]),
      ),
      engine_threads_ms: Object.fromEntries(
        Object.keys(xs[0]?.engine_threads_per_payment ?? {}).map((kind) => [kind, round(median(xs.map((x) => x.engine_threads_per_payment![kind]!)))]),
      ),
      history_events: xs[0]?.history_events_per_payment,
      errors: xs.reduce((n, x) => n + x.errors, 0),
      unanswered: xs.reduce((n, x) => n + (x.unanswered ?? 0), 0),
      ...(opts.floor
        ? {
            floor_per_s: round(median(xs.map((x) => x.floor?.workflows_per_s ?? NaN))),
            floor_cpu_ms: round(median(xs.map((x) => x.floor?.cpu_per_workflow?.total_ms ?? NaN))),
            floor_cpu_by_part_ms: Object.fromEntries(
              Object.keys(xs[0]?.floor?.cpu_per_workflow?.by_part_ms ?? {}).map((part) => [
                part,
                round(median(xs.map((x) => x.floor?.cpu_per_workflow?.by_part_ms[part] ?? NaN))),
              ]),
            ),
            // The payment over its floor in each round, and their median: what the engine adds to any durable step.
            cpu_ratio: round(median(xs.map((x) => x.payment_over_floor?.cpu_ratio ?? NaN)), 2),
            cpu_ratios: xs.map((x) => x.payment_over_floor?.cpu_ratio),
            // The variant's median payment over the median of every floor of the run (pooled_floor_cpu_ms).
            cpu_ratio_to_pooled_floor: round(median(xs.map((x) => (x.cpu_per_payment ? engineMs(x.cpu_per_payment) : NaN))) / pooledFloor, 2),
          }
        : {}),
      double_debits: xs.reduce((n, x) => n + x.double_debits, 0),
      ...(base ? { vs_untuned: round(pays / base, 2) } : {}),
      rounds: xs.map((x) => x.pays_per_s),
    };
  });
  console.log(
    JSON.stringify({
      concurrency: Number(opts.concurrency),
      orders: Number(opts.orders),
      warmup: Number(opts.warmup),
      rounds: Number(opts.rounds),
      ...(opts.scenario ? { scenario: opts.scenario } : {}),
      ...(opts.floor ? { pooled_floor_cpu_ms: round(pooledFloor), floors_cpu_ms: floors } : {}),
      results,
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
