/**
 * npm run --silent bench:soak -- [--minutes M] [--pay-per-s N] [--search-per-s N] [--idle-s S]
 *   [--sample-s S] [--partners N] [--seed N]
 *
 * Memory under a steady load, on `npm start` as a newcomer runs it (PGlite, the dev server,
 * the simulator in the engine's process). Starts the engine on its own ports (from
 * BENCH_SOAK_PORT, default 19600) with a fresh DATA_DIR, samples it idle for --idle-s, then
 * for --minutes pays --pay-per-s product orders a second (basket, checkout and pay, each by
 * one of --partners) and sends --search-per-s searches a second (bench:search's Zipf-ranked
 * mix of Interface A's and B's), sampling every --sample-s seconds: each process's resident
 * memory (/proc), and the engine's Node heap, external memory and `engine_memory_bytes`
 * parts (its admin /metrics). Prints one JSON line: the idle figures, every sample, and for
 * each figure its peak and its growth over the load's second half, per 1,000 payments. The
 * engine is then stopped; a run with errors exits 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { args, round, type Partner } from './common';
import { runLoad, type LoadAnswer } from './http-load';
import { httpOk, npmStartEnv, requireFree, sleep, startProcess, stopOnSignals, stopProcess, stopStarted, temporaryDir, waitFor } from './processes';
import { parseMix, parsePrometheus, searchGenerator, seededRandom, type SearchKind } from './search-workload';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../../src/domain/partners';

const raw = args({
  minutes: { type: 'string', default: '13' },
  'pay-per-s': { type: 'string', default: '20' },
  'search-per-s': { type: 'string', default: '20' },
  'idle-s': { type: 'string', default: '30' },
  'sample-s': { type: 'string', default: '10' },
  partners: { type: 'string', default: '10' },
  seed: { type: 'string', default: '1' },
});
const number = (name: keyof typeof raw, min: number) => {
  const value = Number(raw[name]);
  if (!Number.isFinite(value) || value < min) throw new Error(`--${name} takes a number of at least ${min}, not ${String(raw[name])}`);
  return value;
};
const opts = {
  seconds: number('minutes', 0.1) * 60,
  payPerS: number('pay-per-s', 0),
  searchPerS: number('search-per-s', 0),
  idleS: number('idle-s', 0),
  sampleS: number('sample-s', 1),
  partners: number('partners', 1),
  seed: number('seed', 0),
};
const MIX: Record<SearchKind, number> = parseMix('hotels_a=5,flights_a=3,hotels_b=2');
const log = (msg: string) => process.stderr.write(`[bench:soak] ${msg}\n`);
const MB = 1024 * 1024;

interface Engine {
  api: string;
  adminUrl: string;
  adminToken: string;
  /** The engine's own process and the Temporal dev server it started (DATA_DIR/processes.json). */
  pids: Record<string, number>;
  stop: () => Promise<void>;
}

/** `npm start` on ports from BENCH_SOAK_PORT, in a DATA_DIR of its own. */
async function startEngine(): Promise<Engine> {
  const base = Number(process.env.BENCH_SOAK_PORT || 19600);
  const ports = Array.from({ length: 7 }, (_, i) => base + i);
  await requireFree(ports);
  const dir = temporaryDir('bench-soak-');
  const dataDir = path.join(dir, 'data');
  const env = npmStartEnv(dataDir, ports);
  const logFile = path.join(dir, 'engine.log');
  log(`starting npm start (DATA_DIR ${dataDir}, API port ${ports[0]}; log ${logFile})`);
  const engine = startProcess('engine', ['--import', 'tsx', 'src/main.ts'], env, logFile);
  const api = `http://127.0.0.1:${ports[0]}`;
  await waitFor('npm start', () => httpOk(`${api}/healthz`), engine, 300_000, logFile);
  const pids = JSON.parse(fs.readFileSync(path.join(dataDir, 'processes.json'), 'utf8')) as Record<string, number>;
  return {
    api,
    adminUrl: `http://127.0.0.1:${ports[1]}`,
    adminToken: fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(),
    pids,
    stop: async () => {
      await stopProcess(engine, { group: true, graceMs: 30_000 });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resident memory of a process, and of its descendants with it. */
function residentBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** What one sample holds, in MB: each process's resident memory, and the engine's parts from its metrics. */
type Sample = Record<string, number>;

async function sample(engine: Engine, at: { s: number; payments: number; searches: number }): Promise<Sample> {
  const out: Sample = { t_s: round(at.s), payments: at.payments, searches: at.searches };
  for (const [name, pid] of Object.entries(engine.pids)) out[`${name}_rss_mb`] = round(residentBytes(pid) / MB);
  const res = await fetch(`${engine.adminUrl}/metrics`, { headers: { authorization: `Bearer ${engine.adminToken}` } });
  const metrics = parsePrometheus(await res.text());
  const value = (name: string, label?: [string, string]) => metrics.find((m) => m.name === name && (!label || m.labels[label[0]] === label[1]))?.value ?? NaN;
  out.heap_used_mb = round(value('nodejs_heap_size_used_bytes') / MB);
  out.heap_total_mb = round(value('nodejs_heap_size_total_bytes') / MB);
  out.external_mb = round(value('nodejs_external_memory_bytes') / MB);
  out.pglite_mb = round(value('engine_memory_bytes', ['part', 'pglite']) / MB);
  out.search_cache_mb = round(value('engine_memory_bytes', ['part', 'search_cache']) / MB, 2);
  return out;
}

async function adminPost<T>(engine: Engine, route: string, body: unknown): Promise<T> {
  const res = await fetch(`${engine.adminUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${engine.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin POST ${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Partners with room for the whole run's payments and the highest rate limit an operator can set. */
async function soakPartners(engine: Engine): Promise<Partner[]> {
  const partners: Partner[] = [];
  for (let i = 0; i < opts.partners; i++) {
    const p = await adminPost<Partner>(engine, '/admin/partners', { name: `bench-soak-${i}`, topup: '100000000000' });
    await adminPost(engine, `/admin/partners/${p.partner_id}/rate-limit`, { per_minute: MAX_RATE_LIMIT_PER_MINUTE });
    partners.push(p);
  }
  return partners;
}

interface Tally {
  payments: number;
  /** Payment steps answered with anything but their success (basket, checkout, pay), by step and status. */
  payErrors: Record<string, number>;
  searches: number;
  searchErrors: Record<string, number>;
  /** How far behind its slot the latest payment started, at most. */
  payLateMsMax: number;
}

/** One product order paid: into the basket, checked out, paid; each partner one at a time (its basket is one). */
async function payOne(api: string, partner: Partner, n: number, tally: Tally): Promise<void> {
  const headers = { 'x-api-key': partner.api_key, 'x-api-secret': partner.api_secret, 'content-type': 'application/json' };
  const step = async (name: string, route: string, body: unknown, ok: number[]) => {
    const res = await fetch(`${api}${route}`, { method: 'POST', headers, body: JSON.stringify(body) }).catch(() => undefined);
    const text = res ? await res.text() : '';
    if (!res || !ok.includes(res.status)) {
      const key = `${name} ${res?.status ?? 'no answer'}`;
      tally.payErrors[key] = (tally.payErrors[key] ?? 0) + 1;
      return undefined;
    }
    return JSON.parse(text) as { data: { id: number } };
  };
  if (!(await step('basket', '/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 }, [201]))) return;
  const order = await step('checkout', '/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' }, [201]);
  if (!order) return;
  if (await step('pay', '/api/partners/pay/', { product_order_id: order.data.id, idempotency_key: `soak-${n}` }, [200])) tally.payments += 1;
}

/** Payments at `perS` a second for `seconds`: slot i at i/perS, taken by the next free partner. */
async function payments(api: string, partners: Partner[], perS: number, seconds: number, tally: Tally): Promise<void> {
  if (perS === 0) {
    await sleep(seconds * 1000);
    return;
  }
  const start = performance.now();
  const total = Math.floor(perS * seconds);
  let next = 0;
  await Promise.all(
    partners.map(async (partner) => {
      for (let n = next++; n < total; n = next++) {
        const due = start + (n / perS) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        else tally.payLateMsMax = Math.max(tally.payLateMsMax, -wait);
        await payOne(api, partner, n, tally);
      }
    }),
  );
}

/** Searches at `perS` a second for `seconds`, from bench:search's workload. */
async function searches(api: string, partners: Partner[], perS: number, seconds: number, tally: Tally): Promise<void> {
  if (perS === 0) return;
  const random = seededRandom(opts.seed);
  const next = searchGenerator({ exponent: 1.1, mix: MIX });
  let turn = 0;
  await runLoad({
    url: api,
    connections: Math.max(1, Math.ceil(perS / 5)),
    seconds,
    rate: perS,
    timeoutMs: 60_000,
    next: () => {
      const search = next(random);
      const partner = partners[turn++ % partners.length]!;
      const headers: Record<string, string> =
        search.kind === 'hotels_b'
          ? { authorization: `Bearer ${partner.agency_key}` }
          : { 'x-api-key': partner.api_key, 'x-api-secret': partner.api_secret, 'content-type': 'application/json' };
      return { request: { method: search.method, path: search.path, headers, body: search.body }, meta: search.kind };
    },
    onAnswer: (kind: SearchKind, answer: LoadAnswer) => {
      if (answer.status === 200) tally.searches += 1;
      else tally.searchErrors[`${kind} ${answer.status}`] = (tally.searchErrors[`${kind} ${answer.status}`] ?? 0) + 1;
    },
  });
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? NaN : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}

/** Each figure's peak over the load, and its growth over the load's second half per 1,000 payments. */
function summarise(samples: Sample[]) {
  const figures = Object.keys(samples[0] ?? {}).filter((k) => k.endsWith('_mb'));
  const secondHalf = samples.slice(Math.floor(samples.length / 2));
  return Object.fromEntries(
    figures.map((f) => [
      f,
      {
        peak: Math.max(...samples.map((s) => s[f]!)),
        last: samples.at(-1)?.[f] ?? NaN,
        growth_mb_per_1000_payments: round(slope(secondHalf.map((s) => [s.payments! / 1000, s[f]!])), 2),
      },
    ]),
  );
}

async function main(): Promise<void> {
  stopOnSignals();
  const t0 = performance.now();
  const engine = await startEngine();
  try {
    const partners = await soakPartners(engine);
    log(`idle: ${opts.idleS} s`);
    await sleep(opts.idleS * 1000);
    const idle = await sample(engine, { s: 0, payments: 0, searches: 0 });
    const tally: Tally = { payments: 0, payErrors: {}, searches: 0, searchErrors: {}, payLateMsMax: 0 };
    const samples: Sample[] = [];
    const loadStart = performance.now();
    let running = true;
    const sampler = (async () => {
      while (running) {
        await sleep(opts.sampleS * 1000);
        if (!running) break;
        samples.push(await sample(engine, { s: (performance.now() - loadStart) / 1000, payments: tally.payments, searches: tally.searches }));
      }
    })();
    log(`load: ${opts.payPerS} payments and ${opts.searchPerS} searches a second for ${opts.seconds} s`);
    await Promise.all([
      payments(engine.api, partners, opts.payPerS, opts.seconds, tally),
      searches(engine.api, partners, opts.searchPerS, opts.seconds, tally),
    ]);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    running = false;
    await sampler;
    samples.push(await sample(engine, { s: loadSeconds, payments: tally.payments, searches: tally.searches }));
    const errors = Object.values(tally.payErrors).reduce((a, b) => a + b, 0) + Object.values(tally.searchErrors).reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify({
        settings: { ...opts, database: 'pglite', target: 'npm start' },
        idle,
        load: {
          seconds: round(loadSeconds),
          payments: tally.payments,
          payments_per_s: round(tally.payments / loadSeconds),
          pay_late_ms_max: Math.round(tally.payLateMsMax),
          searches: tally.searches,
          searches_per_s: round(tally.searches / loadSeconds),
          errors,
          pay_errors: tally.payErrors,
          search_errors: tally.searchErrors,
        },
        memory: summarise(samples),
        samples,
        run_s: round((performance.now() - t0) / 1000),
      }),
    );
    if (errors > 0) process.exitCode = 1;
  } finally {
    await engine.stop();
  }
}

main().catch(async (err: unknown) => {
  console.error(err);
  await stopStarted();
  process.exit(1);
});
