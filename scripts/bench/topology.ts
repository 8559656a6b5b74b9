/**
 * What a benchmark measures besides latency: which processes make up the engine it runs
 * against, how much CPU each spent during the run, and how many database transactions
 * and row writes each database took, so that per-payment costs can be read off per part.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { readClusterState } from '../cluster/state';

export interface Topology {
  kind: 'cluster' | 'single';
  /** Public API base URLs; requests are spread over them in turn. */
  apis: string[];
  adminUrl?: string;
  adminToken?: string;
  temporalAddress?: string;
  namespace?: string;
  /** Superuser URL of the cluster's PostgreSQL, for its statistics. */
  adminDatabaseUrl?: string;
  /** Part name → root process id. */
  processes: Record<string, number>;
  /** Parts measured without their children (the engine of `npm start`: its child, the dev server, is a part of its own). */
  selfOnly?: string[];
}

/**
 * `npm start`'s topology, from DATA_DIR/processes.json (written by the engine): the engine's
 * own process (API, worker, PGlite, simulator) and the Temporal dev server it started.
 */
export function startTopology(dataDir: string): Topology | undefined {
  let processes: Record<string, number>;
  try {
    processes = JSON.parse(fs.readFileSync(path.join(path.resolve(dataDir), 'processes.json'), 'utf8')) as Record<string, number>;
  } catch {
    return undefined;
  }
  if (!processes.engine || !fs.existsSync(`/proc/${processes.engine}`)) return undefined;
  // Parts the engine did not start but uses (a PostgreSQL under DATABASE_URL): BENCH_EXTRA_PIDS=postgres=1234,…
  for (const kv of (process.env.BENCH_EXTRA_PIDS ?? '').split(',').filter(Boolean)) {
    const [name, pid] = kv.split('=');
    if (name && Number.isInteger(Number(pid))) processes[name] = Number(pid);
  }
  return {
    kind: 'single',
    apis: [],
    processes,
    selfOnly: ['engine'],
    temporalAddress: process.env.TEMPORAL_ADDRESS ?? `127.0.0.1:${process.env.TEMPORAL_DEV_PORT ?? 7233}`,
  };
}

/** `npm run cluster`'s topology, from its state file. */
export function clusterTopology(dir: string): Topology {
  const file = path.join(path.resolve(dir), 'state.json');
  const state = readClusterState(file);
  if (!state.ready) throw new Error(`the cluster in ${dir} is not ready (state.json says so)`);
  return {
    kind: 'cluster',
    apis: state.apis.map((a) => a.url),
    adminUrl: state.apis[0]!.adminUrl,
    adminToken: state.adminToken,
    temporalAddress: state.temporalAddress,
    namespace: state.namespace,
    adminDatabaseUrl: state.adminDatabaseUrl,
    processes: Object.fromEntries(
      Object.entries(state.parts)
        .filter(([, p]) => p.pid)
        .map(([name, p]) => [name, p.pid!]),
    ),
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's or a thread's `stat` file (`/proc/PID/stat`, `/proc/PID/task/TID/stat`), or undefined once it is gone. */
function readStat(file: string): { name: string; ppid: number; ticks: number; childTicks: number } | undefined {
  try {
    const raw = fs.readFileSync(file, 'utf8');
    // The command name (field 2) may hold spaces: split after its closing parenthesis.
    const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid 4, utime 14, stime 15, cutime 16, cstime 17.
    return {
      name: raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')')),
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      childTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds spent so far by a process and everything below it: its own and its reaped
 * children's (cutime, cstime), plus each live descendant's. PostgreSQL's backends are the
 * postmaster's children, so its figure covers every connection.
 */
export function cpuSeconds(root: number, withChildren = true): number {
  if (!withChildren) {
    const stat = readStat(`/proc/${root}/stat`);
    return stat ? stat.ticks / TICKS_PER_SECOND : 0;
  }
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  let ticks = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    const stat = readStat(`/proc/${pid}/stat`);
    if (!stat) continue;
    ticks += stat.ticks + stat.childTicks;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * A Node process's CPU seconds by kind of thread: `main` (the event loop: for `npm start` the
 * API, the activities, PGlite and the simulator), `temporal_core` (the Temporal SDK's Rust
 * core: its `tokio-runtime-*` and `workflow-proces*` threads), and `other_node` (Node's other
 * threads, which Linux names alike: the workflow sandbox's worker thread, V8's compiler and
 * garbage-collector helpers, libuv's pool). Threads that ended in between are not counted.
 */
export function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = { main: 0, temporal_core: 0, other_node: 0 };
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
    if (!stat) continue; // the thread ended between the listing and the read
    const kind = Number(tid) === pid ? 'main' : /^(tokio-runtime|workflow-proces)/.test(stat.name) ? 'temporal_core' : 'other_node';
    out[kind]! += stat.ticks / TICKS_PER_SECOND;
  }
  return out;
}

export function sampleCpu(topology: Topology): Record<string, number> {
  return Object.fromEntries(Object.entries(topology.processes).map(([name, pid]) => [name, cpuSeconds(pid, !topology.selfOnly?.includes(name))]));
}

/**
 * The part a supplier in a process of its own is measured as (bench:tuning --supplier-process,
 * or BENCH_EXTRA_PIDS=supplier=…). A payment over its floor leaves it out: the floor calls no
 * supplier, and a real supplier's CPU is not the engine's. A simulator inside the engine's
 * process (`npm start`) cannot be told apart and counts as the engine's.
 */
export const SUPPLIER_PART = 'supplier';

/** CPU milliseconds of a `cpuPerPayment` figure without the supplier's part. */
export const engineMs = (cpu: { total_ms: number; by_part_ms: Record<string, number> }) => cpu.total_ms - (cpu.by_part_ms[SUPPLIER_PART] ?? 0);

/** Per-payment CPU milliseconds of each part, from the CPU seconds each spent over the payments, and their total. */
export function cpuPerPayment(spent: Record<string, number>, payments: number) {
  const perPart = Object.fromEntries(Object.keys(spent).map((name) => [name, Math.round((spent[name]! * 1000 * 10) / payments) / 10]));
  const total = Math.round(Object.values(perPart).reduce((a, b) => a + b, 0) * 10) / 10;
  return { total_ms: total, by_part_ms: perPart };
}

export interface DbStats {
  [database: string]: { commits: number; rows_written: number };
}

/** Transactions committed and rows inserted/updated/deleted, per database. */
export async function sampleDatabases(url: string | undefined): Promise<DbStats | undefined> {
  if (!url) return undefined;
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string; commits: string; rows_written: string }>(
      `select datname, xact_commit as commits, tup_inserted + tup_updated + tup_deleted as rows_written
         from pg_stat_database where datname in ('booking', 'temporal', 'temporal_visibility')`,
    );
    return Object.fromEntries(rows.map((r) => [r.datname, { commits: Number(r.commits), rows_written: Number(r.rows_written) }]));
  } finally {
    await client.end();
  }
}

export function dbPerPayment(before: DbStats | undefined, after: DbStats | undefined, payments: number) {
  if (!before || !after) return undefined;
  const per = (a: number, b: number) => Math.round(((a - b) / payments) * 10) / 10;
  return Object.fromEntries(
    Object.keys(before).map((db) => [
      db,
      { commits: per(after[db]!.commits, before[db]!.commits), rows_written: per(after[db]!.rows_written, before[db]!.rows_written) },
    ]),
  );
}
