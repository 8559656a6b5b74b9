/**
 * npm run bench:pay -- --concurrency N --orders M [--baseline] [--cluster] [--pids name=pid,…]
 *
 * Against a running engine (API_URL, ADMIN_URL, ADMIN_TOKEN or DATA_DIR/admin-token):
 * creates partners, one product order each per payment, then pays them with N in flight,
 * and prints JSON. double_debits comes from the engine's own reconciliation afterwards.
 * --baseline also times the same wallet debit done directly, one SQL transaction each
 * (on DATABASE_URL if set, else on an in-memory PGlite), for the ratio.
 * --cluster runs against `npm run cluster` (CLUSTER_DIR/state.json): payments are spread
 * over its API replicas, and the report adds the CPU each process spent per payment, the
 * transactions and row writes per payment in each database, and one payment's history
 * length. Against `npm start` on this machine the same figures come by themselves: the
 * engine writes DATA_DIR/processes.json (its own pid, measured without its children, and
 * the Temporal dev server's). --pids names the processes to measure for any other topology. All first measure
 * the topology idle for --idle-seconds (default 10) and report what the payments cost
 * beyond that (`marginal`), next to the raw figures: a cluster with 512 history shards
 * spends CPU and database commits on its own even when nothing happens. For `npm start`
 * the engine's CPU is also split by thread (`engine_threads_per_payment`).
 * --floor, against the benchmark engine (`BENCH_BARE_PORT=… npm run bench:engine`; run this
 * with the same BENCH_BARE_PORT), then runs as many floor workflows the same way
 * (scripts/bench/engine: one no-op local activity, started and awaited through the API's own
 * client, its outcome told by the worker next door), after as many unmeasured, with the same
 * CPU accounting, and reports the payment as a multiple of it (`payment_over_floor`): what
 * the engine adds to what any durable step costs here. A supplier measured as a part of its
 * own (`supplier`) is reported there and left out of the ratio.
 * --alternate K (with --floor) measures the payments and the floor workflows in K windows
 * each, taking turns (payments, floor, payments, …, after both warm-ups), and sums each
 * kind's windows: both then run on the machine as it is over the same stretch of time,
 * where a window of each, one after the other, can land on a busier or a quieter machine.
 * Each window's CPU a payment and a floor workflow, by process, is in `windows_cpu_ms`. It
 * reports no database figures, idle cost or perf window.
 * --warmup W (default 3000) first pays W orders the same way, unmeasured (with --floor, as
 * many floor workflows before the floor's window): a fresh engine runs its first payments on
 * code V8 has not optimised yet (JavaScript and PGlite's WebAssembly) and keeps compiling on
 * its helper threads for the first few thousand, and a service's capacity is what it does
 * once warm. --warmup 0 measures a cold start (docs/decisions/benchmarks.md).
 * --scenario NAME sends every payment with that sandbox scenario (X-Sandbox-Scenario):
 * `supplier_slow` with the engine's SANDBOX_SLOW_MS measures payments against a supplier that
 * takes that long. A payment not answered within the engine's pay wait (202 processing) counts
 * in `unanswered`, not in `errors`.
 */
import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { admin, api, args, percentile, round, useTarget, type Partner } from './common';
import { payWorkflowId } from '../../workflows/pay.types';
import {
  clusterTopology,
  cpuPerPayment,
  dbPerPayment,
  engineMs,
  sampleCpu,
  sampleDatabases,
  startTopology,
  SUPPLIER_PART,
  threadCpu,
  type DbStats,
  type Topology,
} from './topology';

const opts = args({
  concurrency: { type: 'string', default: '10' },
  orders: { type: 'string', default: '100' },
  baseline: { type: 'boolean', default: false },
  cluster: { type: 'boolean', default: false },
  pids: { type: 'string' },
  'idle-seconds': { type: 'string', default: '10' },
  window: { type: 'boolean', default: false },
  warmup: { type: 'string', default: '3000' },
  floor: { type: 'boolean', default: false },
  alternate: { type: 'string', default: '0' },
  scenario: { type: 'string' },
});
const scenarioHeaders: Record<string, string> = opts.scenario ? { 'x-sandbox-scenario': String(opts.scenario) } : {};
const concurrency = Number(opts.concurrency);
const total = Number(opts.orders);
const warmup = Number(opts.warmup);
if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`--warmup takes a count of payments, not ${opts.warmup}`);
const alternate = Number(opts.alternate);
if (!Number.isInteger(alternate) || alternate < 0 || (alternate > 0 && (!opts.floor || alternate > total))) {
  throw new Error(`--alternate takes a count of windows from 1 to --orders, with --floor; not ${opts.alternate}`);
}

/** `count` product orders to pay, 25 to a partner. */
async function prepare(count: number): Promise<Array<{ partner: Partner; orderId: number }>> {
  const partners: Partner[] = [];
  for (let i = 0; i < Math.max(1, Math.ceil(count / 25)); i++) {
    partners.push(await admin<Partner>('POST', '/admin/partners', { name: `bench-${crypto.randomUUID().slice(0, 8)}`, topup: '100000000000' }));
  }
  const jobs: Array<{ partner: Partner; orderId: number }> = [];
  for (let i = 0; i < count; i++) {
    const partner = partners[i % partners.length]!;
    await api(partner, 'POST', '/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 });
    const out = await api(partner, 'POST', '/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' });
    jobs.push({ partner, orderId: (out.body.data as { id: number }).id });
  }
  return jobs;
}

/** Runs `call` once per job with `concurrency` in flight; a call that answers neither 200 nor 202 counts as an error. */
async function runAll<J>(jobs: J[], call: (job: J) => Promise<{ status: number }>) {
  const latencies: number[] = [];
  let errors = 0;
  let unanswered = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t0 = performance.now();
        const res = await call(job).catch(() => ({ status: 0 }));
        latencies.push(performance.now() - t0);
        if (res.status === 202) unanswered += 1;
        else if (res.status !== 200) errors += 1;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), errors, unanswered };
}

const payAll = (jobs: Array<{ partner: Partner; orderId: number }>) =>
  runAll(jobs, (job) =>
    api(job.partner, 'POST', '/api/partners/pay/', { product_order_id: job.orderId, idempotency_key: `bench-${job.orderId}` }, scenarioHeaders),
  );

const FLOOR = process.env.BENCH_BARE_PORT ? `http://127.0.0.1:${process.env.BENCH_BARE_PORT}/floor` : undefined;

/** `count` floor workflows through the benchmark engine's floor route (scripts/bench/engine/yardsticks.ts), as payAll pays. */
const floorAll = (count: number) =>
  runAll(Array.from({ length: count }), async () => {
    const res = await fetch(FLOOR!, { method: 'POST' });
    await res.arrayBuffer();
    return res;
  });

/** The same debit without the saga: lock the wallet, check, write a ledger row, update the balance. */
async function baseline(n: number) {
  const { openDatabase } = await import('../../src/db/client');
  const { createPartner } = await import('../../src/domain/partners');
  const { recordTopUp, lockWallet, applyMovement } = await import('../../src/domain/money/wallet');
  const { account, leg } = await import('../../src/domain/money/books');
  const database = await openDatabase({ url: process.env.DATABASE_URL });
  try {
    const partner = await createPartner(database.db, { name: 'bench-baseline', creditLimitMinor: 0, topUpMinor: 0, currency: 'IRT' });
    await database.db.transaction((tx) => recordTopUp(tx, partner.partnerId, 10 ** 13));
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) {
          const t0 = performance.now();
          await database.db.transaction(async (tx) => {
            const wallet = await lockWallet(tx, partner.partnerId);
            if (wallet.balance + wallet.creditLimit < 55_000_000) throw new Error('insufficient');
            await applyMovement(
              tx,
              wallet,
              { direction: 'debit', type: 'payment', amount: 55_000_000, note: 'baseline debit' },
              leg('sale_net', account.wallet(wallet.partnerId), account.supplier('simulator', wallet.currency), wallet.currency, 55_000_000),
            );
          });
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return {
      seconds: (performance.now() - started) / 1000,
      latencies: latencies.sort((a, b) => a - b),
      database: database.kind === 'postgres' ? 'DATABASE_URL' : 'pglite-memory',
    };
  } finally {
    await database.close();
  }
}

function topology(): Topology | undefined {
  if (opts.cluster) return clusterTopology(process.env.CLUSTER_DIR || '.cluster');
  // `npm start` on this machine says which processes it is made of.
  if (!opts.pids) return startTopology(process.env.DATA_DIR || '.data');
  const processes = Object.fromEntries(
    String(opts.pids)
      .split(',')
      .map((kv) => {
        const [name, pid] = kv.split('=');
        if (!name || !Number.isInteger(Number(pid))) throw new Error(`--pids takes name=pid,…, not ${kv}`);
        return [name, Number(pid)];
      }),
  );
  return { kind: 'single', apis: [], processes };
}

/** Events in one payment's workflow history: each is written by the history service. */
async function historyLength(t: Topology | undefined, workflowId: string): Promise<number | undefined> {
  const address = t?.temporalAddress ?? process.env.TEMPORAL_ADDRESS;
  if (!address) return undefined;
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: t?.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default' });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    return history.events?.length;
  } finally {
    await connection.close();
  }
}

type Run = Awaited<ReturnType<typeof runAll>>;

/** A measured window: its run, and the CPU seconds each process and each of the engine's threads spent in it. */
interface Measured {
  run: Run;
  cpu?: Record<string, number> | undefined;
  threads?: Record<string, number> | undefined;
}

const spent = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.keys(before).map((k) => [k, after[k]! - before[k]!]));
const added = (a: Record<string, number> | undefined, b: Record<string, number> | undefined) =>
  a && b ? Object.fromEntries(Object.keys(a).map((k) => [k, a[k]! + (b[k] ?? 0)])) : undefined;

async function measure(t: Topology | undefined, work: () => Promise<Run>): Promise<Measured> {
  const enginePid = t?.kind === 'single' ? t.processes.engine : undefined;
  const threads0 = enginePid ? threadCpu(enginePid) : undefined;
  const cpu0 = t && sampleCpu(t);
  const run = await work();
  return { run, cpu: cpu0 && spent(cpu0, sampleCpu(t!)), threads: threads0 && spent(threads0, threadCpu(enginePid!)) };
}

/** Windows of one kind as one: their runs' time, latencies and failures, and their CPU, added up. */
const pooledWindows = (windows: Measured[]): Measured =>
  windows.reduce((a, b) => ({
    run: {
      seconds: a.run.seconds + b.run.seconds,
      latencies: [...a.run.latencies, ...b.run.latencies].sort((x, y) => x - y),
      errors: a.run.errors + b.run.errors,
      unanswered: a.run.unanswered + b.run.unanswered,
    },
    cpu: added(a.cpu, b.cpu),
    threads: added(a.threads, b.threads),
  }));

/** The floor route answers; its first workflow's id (for the history's length), after the floor's warm-up. */
async function warmFloor(): Promise<string> {
  if (!FLOOR) throw new Error('--floor needs the benchmark engine (npm run bench:engine) and its BENCH_BARE_PORT');
  const probe = await fetch(FLOOR, { method: 'POST' }).catch(() => undefined);
  if (probe?.status !== 200)
    throw new Error(`no floor route at ${FLOOR} (${probe?.status ?? 'unreachable'}): start npm run bench:engine with the same BENCH_BARE_PORT`);
  const { data } = (await probe.json()) as { data: { workflow_id: string } };
  if (warmup > 0) await floorAll(warmup);
  return data.workflow_id;
}

/**
 * The floor (--floor): as many floor workflows as payments, after as many unmeasured, at the
 * same concurrency and with the same CPU accounting; and the payment as a multiple of it.
 * With --alternate the floor's windows were measured already, taking turns with the payments'.
 */
async function measureFloor(
  t: Topology | undefined,
  pay: { seconds: number; latencies: number[] },
  payCpu: ReturnType<typeof cpuPerPayment> | undefined,
  payThreads: Record<string, number> | undefined,
  alternated?: { workflowId: string; floor: Measured },
) {
  const workflowId = alternated?.workflowId ?? (await warmFloor());
  const window0 = process.hrtime.bigint();
  const measured = alternated?.floor ?? (await measure(t, () => floorAll(total)));
  const window1 = process.hrtime.bigint();
  const { run } = measured;
  const cpu = measured.cpu ? cpuPerPayment(measured.cpu, total) : undefined;
  const events = await historyLength(t, workflowId).catch(() => undefined);
  const floorThreads = measured.threads ? cpuPerPayment(measured.threads, total).by_part_ms : undefined;
  return {
    floor: {
      workflows_per_s: round(total / run.seconds),
      p50_ms: round(percentile(run.latencies, 50)),
      p95_ms: round(percentile(run.latencies, 95)),
      errors: run.errors,
      ...(cpu ? { cpu_per_workflow: cpu } : {}),
      ...(floorThreads ? { engine_threads_per_workflow: floorThreads } : {}),
      ...(events !== undefined ? { history_events: events } : {}),
      ...(opts.window && !alternated ? { window_monotonic_us: [Number(window0 / 1000n), Number(window1 / 1000n)] } : {}),
      ...(alternated ? { windows: alternate } : {}),
    },
    payment_over_floor: {
      // Floor workflows a second per payment a second: how many times faster the floor runs.
      throughput_ratio: round(pay.seconds / run.seconds, 2),
      p50_ratio: round(percentile(pay.latencies, 50) / percentile(run.latencies, 50), 2),
      // The CPU ratio is always printed: null when this run could not count the processes' CPU (no topology).
      cpu_ratio: cpu && payCpu ? round(engineMs(payCpu) / engineMs(cpu), 2) : null,
      ...(cpu && payCpu
        ? {
            extra_cpu_ms: round(engineMs(payCpu) - engineMs(cpu)),
            cpu_ratio_by_part: ratios(payCpu.by_part_ms, cpu.by_part_ms),
            ...(payCpu.by_part_ms[SUPPLIER_PART] !== undefined ? { supplier_cpu_ms_not_counted: payCpu.by_part_ms[SUPPLIER_PART] } : {}),
          }
        : { cpu_unmeasured: 'no processes to measure: run against npm start or bench:engine (DATA_DIR/processes.json), --cluster or --pids' }),
      ...(payThreads && floorThreads ? { cpu_ratio_by_engine_thread: ratios(payThreads, floorThreads) } : {}),
    },
  };
}

/** Each part's payment figure over its floor figure. */
const ratios = (pay: Record<string, number>, floor: Record<string, number>) =>
  Object.fromEntries(Object.keys(pay).map((k) => [k, floor[k] ? round(pay[k]! / floor[k]!, 2) : null]));

const rates = (a: Record<string, number>, b: Record<string, number>, seconds: number) =>
  Object.fromEntries(Object.keys(a).map((k) => [k, (b[k]! - a[k]!) / seconds]));

const scaleDb = (a: DbStats, b: DbStats, seconds: number): DbStats =>
  Object.fromEntries(
    Object.keys(a).map((d) => [d, { commits: (b[d]!.commits - a[d]!.commits) / seconds, rows_written: (b[d]!.rows_written - a[d]!.rows_written) / seconds }]),
  );

async function main() {
  const t = topology();
  if (t?.apis.length) useTarget(t);
  const idleSeconds = Number(opts['idle-seconds']);
  let idle: { cpu: Record<string, number>; db?: Awaited<ReturnType<typeof sampleDatabases>> } | undefined;
  if (t && idleSeconds > 0) {
    const cpu0 = sampleCpu(t);
    const db0 = await sampleDatabases(t.adminDatabaseUrl);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    idle = { cpu: rates(cpu0, sampleCpu(t), idleSeconds), db: db0 && scaleDb(db0, (await sampleDatabases(t.adminDatabaseUrl))!, idleSeconds) };
  }
  if (warmup > 0) {
    const warm = await payAll(await prepare(warmup));
    if (warm.errors) throw new Error(`${warm.errors} of the ${warmup} warm-up payments failed`);
  }
  const jobs = await prepare(total);
  let alternated: { workflowId: string; floor: Measured } | undefined;
  // With --alternate: each window's CPU a payment and a floor workflow, by process (ms).
  const windowsCpu: Array<{ payment: Record<string, number>; floor: Record<string, number> }> = [];
  let paid: Measured;
  let dbBefore: DbStats | undefined;
  let dbAfter: DbStats | undefined;
  // The payments' span, from the first payment to the last (one window, not --alternate).
  let window: [bigint, bigint] | undefined;
  if (alternate > 0) {
    const workflowId = await warmFloor();
    const pays: Measured[] = [];
    const floors: Measured[] = [];
    for (let i = 0; i < alternate; i++) {
      const from = Math.floor((i * total) / alternate);
      const to = Math.floor(((i + 1) * total) / alternate);
      const pay = await measure(t, () => payAll(jobs.slice(from, to)));
      const floor = await measure(t, () => floorAll(to - from));
      pays.push(pay);
      floors.push(floor);
      if (pay.cpu && floor.cpu)
        windowsCpu.push({ payment: cpuPerPayment(pay.cpu, to - from).by_part_ms, floor: cpuPerPayment(floor.cpu, to - from).by_part_ms });
    }
    paid = pooledWindows(pays);
    alternated = { workflowId, floor: pooledWindows(floors) };
  } else {
    dbBefore = await sampleDatabases(t?.adminDatabaseUrl);
    paid = await measure(t, async () => {
      const start = process.hrtime.bigint();
      const run = await payAll(jobs);
      window = [start, process.hrtime.bigint()];
      // PostgreSQL publishes its statistics within a second of a transaction's end.
      if (t?.adminDatabaseUrl) await new Promise((resolve) => setTimeout(resolve, 1500));
      return run;
    });
    dbAfter = await sampleDatabases(t?.adminDatabaseUrl);
  }
  const { run } = paid;
  const report = await admin<{ findings: Array<{ kind: string }> }>('GET', '/admin/reconcile');
  const result: Record<string, unknown> = {
    orders: total,
    concurrency,
    warmup,
    pays_per_s: round(total / run.seconds),
    p50_ms: round(percentile(run.latencies, 50)),
    p95_ms: round(percentile(run.latencies, 95)),
    p99_ms: round(percentile(run.latencies, 99)),
    errors: run.errors,
    unanswered: run.unanswered,
    ...(opts.scenario ? { scenario: opts.scenario } : {}),
    double_debits: report.findings.filter((f) => f.kind === 'order_payment').length,
  };
  // The payments' span on the machine's monotonic clock (µs), which V8's CPU profiles use: cut a
  // `node --cpu-prof` profile of the engine to this window (scripts/bench/profile-top.ts).
  if (opts.window && window) result.window_monotonic_us = window.map((ns) => Number(ns / 1000n));
  if (alternated) result.windows = alternate;
  if (windowsCpu.length) result.windows_cpu_ms = windowsCpu;
  if (t && paid.cpu) {
    result.topology = { kind: t.kind, apis: t.apis.length, processes: Object.keys(t.processes) };
    result.cpu_per_payment = cpuPerPayment(paid.cpu, total);
    if (paid.threads) result.engine_threads_per_payment = cpuPerPayment(paid.threads, total).by_part_ms;
    const db = dbPerPayment(dbBefore, dbAfter, total);
    if (db) result.db_per_payment = db;
    if (idle && !alternated) {
      // What the same span of time costs with no payments, taken off: the payments' own cost.
      const span = run.seconds + (t.adminDatabaseUrl ? 1.5 : 0);
      const idleCpu = Object.fromEntries(Object.entries(idle.cpu).map(([k, perSecond]) => [k, perSecond * span]));
      result.idle_per_second = { cpu_ms: Object.fromEntries(Object.entries(idle.cpu).map(([k, v]) => [k, round(v * 1000)])), db: idle.db };
      result.marginal_per_payment = {
        cpu: cpuPerPayment(spent(idleCpu, paid.cpu), total),
        db:
          idle.db && dbBefore && dbAfter
            ? Object.fromEntries(
                Object.keys(dbBefore).map((d) => [
                  d,
                  {
                    commits: round((dbAfter[d]!.commits - dbBefore[d]!.commits - idle.db![d]!.commits * span) / total),
                    rows_written: round((dbAfter[d]!.rows_written - dbBefore[d]!.rows_written - idle.db![d]!.rows_written * span) / total),
                  },
                ]),
              )
            : undefined,
      };
    }
  }
  const first = jobs[0]!;
  const payId = payWorkflowId(first.partner.partner_id, { idempotencyKey: `bench-${first.orderId}`, orderId: first.orderId });
  const events = await historyLength(t, payId).catch(() => undefined);
  if (events !== undefined) result.history_events_per_payment = events;
  if (opts.floor) {
    const payCpu = result.cpu_per_payment as ReturnType<typeof cpuPerPayment> | undefined;
    Object.assign(result, await measureFloor(t, run, payCpu, result.engine_threads_per_payment as Record<string, number> | undefined, alternated));
  }
  if (opts.baseline) {
    const b = await baseline(total);
    result.baseline = {
      database: b.database,
      debits_per_s: round(total / b.seconds),
      p50_ms: round(percentile(b.latencies, 50), 2),
      p95_ms: round(percentile(b.latencies, 95), 2),
      p99_ms: round(percentile(b.latencies, 99), 2),
    };
    result.orchestration_overhead = {
      throughput_ratio: round(total / b.seconds / (total / run.seconds), 1),
      p50_ratio: round(percentile(run.latencies, 50) / percentile(b.latencies, 50), 1),
    };
  }
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
