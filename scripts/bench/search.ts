/**
 * npm run bench:search -- [--target start|cluster] [--duration S] [--warmup S] [--connections N]
 *   [--rate N] [--delay-ms MS] [--supplier-rate-per-s N] [--budget-per-s N] [--zipf EXPONENT]
 *   [--mix hotels_a=5,flights_a=3,hotels_b=2] [--partners N] [--no-compression] [--seed N]
 *   [--cluster-port-offset N]
 *
 * Partners searching as travel traffic does, mixing Interface A's hotel and flight searches
 * and Interface B's hotel search: each search the entry at a Zipf-drawn rank of a catalogue
 * of every search of its kind (cities, check-in days ahead, nights, occupancies; flight
 * routes, dates, trips, passengers, cabins) ranked by popularity (./search-workload.ts);
 * several partners, each with its own keys and the highest rate limit an operator can set.
 * The load (./http-load.ts: Node's HTTP client, which counts the answers' bytes without
 * decoding them) goes over --connections for --warmup seconds unmeasured, then for
 * --duration seconds measured, every request a new draw, with `Accept-Encoding: gzip, br`
 * unless --no-compression: each connection sends its next search when its last is answered,
 * or, with --rate, the connections together send that many searches a second (partners
 * search whatever the engine's latency; up to one search in flight per connection). Prints
 * one JSON line (docs/performance.md says what each figure means).
 *
 * The supplier is the simulator, answering each search after --delay-ms and refusing above
 * --supplier-rate-per-s with 429 (SIMULATOR_SEARCH_DELAY_MS, SIMULATOR_SEARCH_RATE_PER_S);
 * its `GET /stats` is the count of supplier calls. The engine is told the supplier's budget
 * (SEARCH_BUDGETS=simulator=N, --budget-per-s, by default the supplier's rate).
 *   --target start    spawns the simulator and `npm start` (own DATA_DIR under the system's
 *                     temporary directory, ports from BENCH_SEARCH_PORT, default 19500), so
 *                     the simulator's CPU is counted apart from the engine's
 *   --target cluster  spawns `npm run cluster` (own CLUSTER_DIR, CLUSTER_PORT_OFFSET from
 *                     --cluster-port-offset, default 12700); requests are spread over its API
 *                     replicas, and the CPU of each kind of process is counted
 *   no --target       a running engine at API_URL / ADMIN_URL and its simulator at
 *                     SUPPLIER_URL (else SIMULATOR_PORT on this machine), as they are set up
 * Everything the benchmark starts, it stops.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, admin, API, adminToken, args, round, useTarget, type Partner } from './common';
import {
  engineSearchCounters,
  parseMix,
  searchGenerator,
  seededRandom,
  summarise,
  type EngineSearchCounters,
  type SearchKind,
  type Observed,
  type SupplierCounts,
} from './search-workload';
import { runLoad, type LoadAnswer } from './http-load';
import { clusterTopology, cpuSeconds, startTopology } from './topology';
import { readClusterState } from '../cluster/state';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../../src/domain/partners';
import { httpOk, npmStartEnv, requireFree, sleep, startProcess, stopOnSignals, stopProcess, stopStarted, temporaryDir, waitFor } from './processes';

const raw = args({
  target: { type: 'string', default: '' },
  duration: { type: 'string', default: '20' },
  warmup: { type: 'string', default: '10' },
  connections: { type: 'string', default: '50' },
  rate: { type: 'string', default: '0' },
  'delay-ms': { type: 'string', default: '300' },
  'supplier-rate-per-s': { type: 'string', default: '20' },
  'budget-per-s': { type: 'string', default: '' },
  zipf: { type: 'string', default: '1.1' },
  mix: { type: 'string', default: 'hotels_a=5,flights_a=3,hotels_b=2' },
  partners: { type: 'string', default: '8' },
  'no-compression': { type: 'boolean', default: false },
  seed: { type: 'string', default: '1' },
  'cluster-port-offset': { type: 'string', default: '12700' },
});

const number = (name: string, min: number) => {
  const value = Number(raw[name as keyof typeof raw]);
  if (!Number.isFinite(value) || value < min) throw new Error(`--${name} takes a number of at least ${min}, not ${String(raw[name as keyof typeof raw])}`);
  return value;
};
const opts = {
  target: String(raw.target),
  duration: number('duration', 1),
  warmup: number('warmup', 0),
  connections: number('connections', 1),
  rate: number('rate', 0),
  delayMs: number('delay-ms', 0),
  supplierRate: number('supplier-rate-per-s', 0),
  budget: raw['budget-per-s'] === '' ? number('supplier-rate-per-s', 0) : number('budget-per-s', 0),
  zipf: number('zipf', 0),
  mix: parseMix(String(raw.mix)),
  partners: number('partners', 1),
  compression: !raw['no-compression'],
  seed: number('seed', 0),
  clusterPortOffset: number('cluster-port-offset', 0),
};
if (!['', 'start', 'cluster'].includes(opts.target)) throw new Error(`--target is start or cluster, not ${opts.target}`);

const log = (msg: string) => process.stderr.write(`[bench:search] ${msg}\n`);

/** What the run measures against: where the engine and the simulator are, and which processes to count. */
interface Setup {
  apis: string[];
  adminUrls: string[];
  supplierUrl: string;
  /** Process (or group of processes) name → root process ids, each counted with its children unless in selfOnly. */
  processes: Record<string, number[]>;
  selfOnly: string[];
  stop: () => Promise<void>;
}

const simulatorEnv = () => ({ SIMULATOR_SEARCH_DELAY_MS: String(opts.delayMs), SIMULATOR_SEARCH_RATE_PER_S: String(opts.supplierRate) });

/** The simulator and `npm start`, each its own process, on ports from BENCH_SEARCH_PORT. */
async function setupStart(): Promise<Setup> {
  const base = Number(process.env.BENCH_SEARCH_PORT || 19500);
  const ports = Array.from({ length: 8 }, (_, i) => base + i);
  await requireFree([...ports, base + 10]);
  const dataDir = temporaryDir('bench-search-');
  const simulatorPort = base + 10;
  const supplierUrl = `http://127.0.0.1:${simulatorPort}`;
  const simulatorLog = path.join(dataDir, 'simulator.log');
  const simulator = startProcess(
    'simulator',
    ['--import', 'tsx', 'src/suppliers/simulator/main.ts'],
    { ...process.env, ...simulatorEnv(), SIMULATOR_PORT: String(simulatorPort) },
    simulatorLog,
  );
  await waitFor('the simulator', () => httpOk(`${supplierUrl}/healthz`), simulator, 60_000, simulatorLog);
  const engineLog = path.join(dataDir, 'engine.log');
  const env = npmStartEnv(path.join(dataDir, 'data'), ports, { SUPPLIER_URL: supplierUrl, SEARCH_BUDGETS: `simulator=${opts.budget}` });
  log(`starting npm start (DATA_DIR ${env.DATA_DIR}, API port ${ports[0]}, simulator ${supplierUrl}; logs in ${dataDir})`);
  const engine = startProcess('engine', ['--import', 'tsx', 'src/main.ts'], env, engineLog);
  const api = `http://127.0.0.1:${ports[0]}`;
  await waitFor('npm start', () => httpOk(`${api}/healthz`), engine, 240_000, engineLog);
  const topology = startTopology(env.DATA_DIR!);
  const adminUrl = `http://127.0.0.1:${ports[1]}`;
  useTarget({ apis: [api], adminUrl, adminToken: fs.readFileSync(path.join(env.DATA_DIR!, 'admin-token'), 'utf8').trim() });
  return {
    apis: [api],
    adminUrls: [adminUrl],
    supplierUrl,
    processes: {
      ...Object.fromEntries(Object.entries(topology?.processes ?? { engine: engine.pid! }).map(([name, pid]) => [name, [pid]])),
      simulator: [simulator.pid!],
    },
    selfOnly: ['engine'],
    stop: async () => {
      await stopProcess(engine, { group: true, graceMs: 30_000 });
      await stopProcess(simulator, { group: true, graceMs: 10_000 });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `npm run cluster` from empty databases in a CLUSTER_DIR of its own, every port moved by the offset. */
async function setupCluster(): Promise<Setup> {
  const off = opts.clusterPortOffset;
  const apis = Number(process.env.CLUSTER_APIS || 2);
  const clusterPorts = [5433, 6933, 6934, 6935, 6939, 7233, 7234, 7235, 7239, 7243, 8090, 8233, 9464, 9465, 9466, 9467];
  for (let i = 0; i < apis; i++) clusterPorts.push(8080 + 2 * i, 8081 + 2 * i);
  await requireFree(clusterPorts.map((p) => p + off));
  const dir = temporaryDir('bench-search-cluster-');
  // PostgreSQL runs as its own user when this runs as root: it must reach its directory below this one.
  fs.chmodSync(dir, 0o755);
  const logFile = path.join(dir, 'cluster.log');
  log(`starting npm run cluster (CLUSTER_DIR ${dir}, CLUSTER_PORT_OFFSET ${off}); its log: ${logFile}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...simulatorEnv(),
    CLUSTER_DIR: dir,
    CLUSTER_PORT_OFFSET: String(off),
    SEARCH_BUDGETS: `simulator=${opts.budget}`,
    LOG_LEVEL: 'warn',
  };
  delete env.ADMIN_TOKEN;
  const cluster = startProcess('cluster', ['--import', 'tsx', 'scripts/cluster/main.ts', '--fresh'], env, logFile, false);
  const stateFile = path.join(dir, 'state.json');
  await waitFor('npm run cluster', async () => fs.existsSync(stateFile) && readClusterState(stateFile).ready, cluster, 600_000, logFile);
  const topology = clusterTopology(dir);
  const state = readClusterState(stateFile);
  useTarget({ apis: topology.apis, adminUrl: topology.adminUrl, adminToken: topology.adminToken });
  const group = (part: string) =>
    part.startsWith('api-') ? 'apis' : part.startsWith('worker-') ? 'workers' : part.startsWith('temporal-') ? 'temporal' : part;
  const processes: Record<string, number[]> = {};
  for (const [part, pid] of Object.entries(topology.processes)) (processes[group(part)] ??= []).push(pid);
  return {
    apis: topology.apis,
    adminUrls: state.apis.map((a) => a.adminUrl),
    supplierUrl: state.supplierUrl,
    processes,
    selfOnly: [],
    stop: async () => {
      // The cluster's supervisor stops its parts in order on SIGTERM.
      await stopProcess(cluster, { group: false, graceMs: 120_000 });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A running engine as it is set up (API_URL, ADMIN_URL, the admin token), and its simulator. */
function setupRunning(): Setup {
  const topology = startTopology(process.env.DATA_DIR || '.data');
  return {
    apis: [API],
    adminUrls: [ADMIN],
    supplierUrl: process.env.SUPPLIER_URL || `http://127.0.0.1:${process.env.SIMULATOR_PORT || 8090}`,
    processes: Object.fromEntries(Object.entries(topology?.processes ?? {}).map(([name, pid]) => [name, [pid]])),
    selfOnly: topology?.selfOnly ?? [],
    stop: async () => {},
  };
}

interface SupplierStats {
  searches: SupplierCounts;
  settings: { search_delay_ms: number; search_rate_per_s: number };
}

async function supplierStats(url: string): Promise<SupplierStats | undefined> {
  try {
    const res = await fetch(`${url}/stats`);
    if (!res.ok) return undefined;
    return (await res.json()) as SupplierStats;
  } catch {
    return undefined;
  }
}

const supplierCounts = async (url: string) => (await supplierStats(url))?.searches;

/** Until the searches still in flight from the warm-up have reached the supplier (its count stands still for a second), at most 30 s. */
async function drained(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = await supplierCounts(url);
  if (!last) return sleep(Math.max(1000, 3 * opts.delayMs)).then(() => undefined);
  while (Date.now() < deadline) {
    await sleep(1000);
    const now = await supplierCounts(url);
    if (now?.received === last?.received) return;
    last = now;
  }
}

async function engineCounters(adminUrls: string[]): Promise<EngineSearchCounters> {
  const texts = await Promise.all(
    adminUrls.map(async (url) => {
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken()}` } }).catch(() => undefined);
      return res?.ok ? res.text() : '';
    }),
  );
  return engineSearchCounters(texts);
}

function sampleCpu(setup: Setup): Record<string, number> {
  return Object.fromEntries(
    Object.entries(setup.processes).map(([name, pids]) => [name, pids.reduce((s, pid) => s + cpuSeconds(pid, !setup.selfOnly.includes(name)), 0)]),
  );
}

interface SearchPartner extends Partner {
  agency_key: string;
}

async function benchPartners(): Promise<SearchPartner[]> {
  const partners: SearchPartner[] = [];
  for (let i = 0; i < opts.partners; i++) {
    const p = await admin<SearchPartner>('POST', '/admin/partners', { name: `bench-search-${Date.now().toString(36)}-${i}`, topup: '1000000' });
    await admin('POST', `/admin/partners/${p.partner_id}/rate-limit`, { per_minute: MAX_RATE_LIMIT_PER_MINUTE });
    partners.push(p);
  }
  return partners;
}

function headersOf(kind: SearchKind, partner: SearchPartner, compression: boolean): Record<string, string> {
  const headers: Record<string, string> =
    kind === 'hotels_b'
      ? { authorization: `Bearer ${partner.agency_key}` }
      : { 'x-api-key': partner.api_key, 'x-api-secret': partner.api_secret, 'content-type': 'application/json' };
  if (compression) headers['accept-encoding'] = 'gzip, br';
  return headers;
}

/** The load: every request a new search by the next partner; answers counted while `measuring`. */
function loader(partners: SearchPartner[]) {
  const random = seededRandom(opts.seed);
  const next = searchGenerator({ exponent: opts.zipf, mix: opts.mix });
  const seen = new Set<string>();
  let turn = 0;
  let measuring = false;
  let observed: Observed;
  /** The first answer of each kind of search and non-2xx status, for the log. */
  const errorSamples: Record<string, string> = {};
  const reset = (): Observed => ({ seconds: 0, statuses: {}, latencies: [], byCacheHeader: {}, bytes2xx: 0, repeats: 0, byKind: {}, sent: 0 });
  observed = reset();

  const nextSearch = () => {
    const search = next(random);
    if (measuring) observed.sent += 1;
    const partner = partners[turn++ % partners.length]!;
    return {
      request: { method: search.method, path: search.path, headers: headersOf(search.kind, partner, opts.compression), body: search.body },
      meta: { key: search.key, kind: search.kind, measured: measuring },
    };
  };

  const onAnswer = (meta: { key: string; kind: SearchKind; measured: boolean }, answer: LoadAnswer) => {
    // An answer counts in the window its search was sent in.
    if (meta.measured) {
      const { status } = answer;
      observed.statuses[status] = (observed.statuses[status] ?? 0) + 1;
      const ok = typeof status === 'number' && status >= 200 && status <= 299;
      const sample = `${meta.kind} ${status}`;
      if (!ok && !(sample in errorSamples)) errorSamples[sample] = answer.sample ?? '';
      if (seen.has(meta.key)) observed.repeats += 1;
      observed.byKind[meta.kind] = (observed.byKind[meta.kind] ?? 0) + 1;
      if (ok) {
        observed.latencies.push(answer.ms);
        observed.bytes2xx += answer.bytes;
        const cache = answer.headers['x-search-cache'];
        (observed.byCacheHeader[cache === undefined ? 'none' : String(cache)] ??= []).push(answer.ms);
      }
    }
    seen.add(meta.key);
  };

  /** One load over every API, the connections and the rate shared out; measured or not. */
  const run = async (apis: string[], seconds: number, measure: boolean): Promise<Observed> => {
    observed = reset();
    measuring = measure;
    const t0 = performance.now();
    const stopMeasuring = setTimeout(() => (measuring = false), seconds * 1000);
    await Promise.all(
      apis.map((url, i) =>
        runLoad({
          url,
          connections: Math.floor(opts.connections / apis.length) + (i < opts.connections % apis.length ? 1 : 0),
          seconds,
          rate: opts.rate / apis.length,
          timeoutMs: 30_000,
          next: nextSearch,
          onAnswer,
        }),
      ),
    );
    clearTimeout(stopMeasuring);
    measuring = false;
    // The window is the load's: the answers still coming after it are counted, not the time they take.
    observed.seconds = Math.min((performance.now() - t0) / 1000, seconds);
    if (!observed.byCacheHeader.none?.length) delete observed.byCacheHeader.none;
    return observed;
  };
  return { run, errorSamples };
}

/** Each kind of search in the mix answers 200 once before the load: a misconfigured run fails here, not as errors. */
async function checkEachKind(api: string, partner: SearchPartner): Promise<void> {
  const random = seededRandom(opts.seed + 1);
  const next = searchGenerator({ exponent: opts.zipf, mix: opts.mix });
  const kinds = new Set(
    Object.entries(opts.mix)
      .filter(([, share]) => share > 0)
      .map(([kind]) => kind),
  );
  for (let i = 0; kinds.size > 0 && i < 10_000; i++) {
    const search = next(random);
    if (!kinds.delete(search.kind)) continue;
    const res = await fetch(`${api}${search.path}`, { method: search.method, headers: headersOf(search.kind, partner, false), body: search.body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${search.method} ${search.path} ${search.body ?? ''} answered ${res.status}: ${text.slice(0, 500)}`);
  }
}

async function main(): Promise<void> {
  stopOnSignals();
  const setup = opts.target === 'start' ? await setupStart() : opts.target === 'cluster' ? await setupCluster() : setupRunning();
  try {
    const partners = await benchPartners();
    const { run: load, errorSamples } = loader(partners);
    await checkEachKind(setup.apis[0]!, partners[0]!);
    if (opts.warmup > 0) {
      log(`warm-up: ${opts.warmup} s`);
      await load(setup.apis, opts.warmup, false);
    }
    await drained(setup.supplierUrl);
    const supplierBefore = await supplierCounts(setup.supplierUrl);
    const engineBefore = await engineCounters(setup.adminUrls);
    const cpuBefore = sampleCpu(setup);
    log(`measuring: ${opts.duration} s`);
    const observed = await load(setup.apis, opts.duration, true);
    const cpuAfter = sampleCpu(setup);
    const engineAfter = await engineCounters(setup.adminUrls);
    const supplier = await supplierStats(setup.supplierUrl);
    const supplierAfter = supplier?.searches;
    if (!supplierBefore || !supplierAfter) log(`no simulator counters at ${setup.supplierUrl}/stats: supplier calls from the engine's counters, if any`);
    const summary = summarise({
      observed,
      supplier: supplierBefore && supplierAfter ? { before: supplierBefore, after: supplierAfter } : undefined,
      engine: { before: engineBefore, after: engineAfter },
      cpu: Object.keys(cpuBefore).length ? { before: cpuBefore, after: cpuAfter } : undefined,
      settings: {
        target: opts.target || 'running',
        connections: opts.connections,
        rate_per_s_offered: opts.rate || null,
        duration_s: opts.duration,
        warmup_s: opts.warmup,
        zipf: opts.zipf,
        mix: Object.fromEntries(Object.entries(opts.mix).map(([k, v]) => [k, round(v, 2)])),
        partners: opts.partners,
        compression: opts.compression,
        // As the simulator says it runs (a running engine's may differ from the options).
        supplier_delay_ms: supplier?.settings.search_delay_ms ?? opts.delayMs,
        supplier_rate_per_s: supplier?.settings.search_rate_per_s ?? opts.supplierRate,
        budget_per_s_asked: opts.budget,
        api_replicas: setup.apis.length,
      },
    });
    console.log(JSON.stringify(summary));
    if (summary.errors > 0) {
      log(`errors (non-2xx answers or failed requests): ${JSON.stringify(summary.statuses)}`);
      for (const [what, body] of Object.entries(errorSamples)) log(`first ${what}: ${body}`);
      process.exitCode = 1;
    }
  } finally {
    await setup.stop();
  }
}

main().catch(async (err: unknown) => {
  console.error(err);
  await stopStarted();
  process.exit(1);
});
