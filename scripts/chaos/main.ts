/**
 * npm run chaos -- [--size full|ci] [--target cluster|npm-start] [...]   (--help for all)
 *
 * A repeatable chaos run against a running topology: partners, a parent agency with its
 * sub-agencies, and product orders made through the APIs, then pays — plain, same-key storms, different-key races, sandbox
 * supplier faults — while workers, an API replica, the Temporal history and matching
 * services and PostgreSQL are killed and come back, and the parent changes its grants;
 * then the books, the sub-agency chain among them, are checked from SQL, through the APIs
 * and with `admin reconcile`. One JSON line on stdout; exit 1 on any
 * finding, 2 when the run could not be carried out.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { percentile } from '../bench/common';
import { FaultInjector, planFaults } from './faults';
import { Http, type PayRecord } from './http';
import { parseOptions, USAGE, type Options } from './options';
import { loadTarget, readState, waitForState, waitHealthy, type Target } from './target';
import { apiChecks, orderStatuses, reconcileCheck, settle, sqlChecks, temporalChecks, type Finding, type SettleReport } from './verify';
import { resendUnansweredGrants, subAgencyApiChecks, subAgencySqlChecks } from './sub-agency-checks';
import { Load, prepare, prng, type LoadStats, type RunRecord } from './workload';

const t0 = Date.now();
const log = (msg: string) => process.stderr.write(`[chaos +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
const secs = (ms: number) => Math.round(ms / 100) / 10;

function tally<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}

function runFileFor(opts: Options, runId: string): string {
  return path.resolve(opts.runFile ?? path.join(process.env.DATA_DIR || '.data', 'chaos', `${runId}.json`));
}

function save(file: string, run: RunRecord) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  // The partners' secrets are in it (sandbox partners of this run): owner-only.
  fs.writeFileSync(tmp, JSON.stringify(run), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

async function connectDb(target: Target): Promise<pg.Client | null> {
  if (!target.databaseUrl) return null;
  for (let i = 0; i < 20; i++) {
    const db = new pg.Client({ connectionString: target.databaseUrl, connectionTimeoutMillis: 5000, statement_timeout: 60_000 });
    db.on('error', () => undefined);
    try {
      await db.connect();
      return db;
    } catch (err) {
      log(`database not reachable yet (${(err as Error).message}); retrying`);
      await db.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  throw new Error(`cannot connect to ${target.databaseUrl.replace(/\/\/[^@]*@/, '//…@')}`);
}

interface Checks {
  findings: Finding[];
  /** Contract problems that moved no money (500s, a paying key refused): findings with --strict. */
  warnings: Finding[];
  report: Record<string, unknown>;
}

async function verifyAll(http: Http, target: Target, run: RunRecord, db: pg.Client | null): Promise<Checks> {
  const findings: Finding[] = [];
  const warnings: Finding[] = [];
  const report: Record<string, unknown> = {};
  for (const u of http.stats.unexpected) warnings.push({ check: `http:${u.status}`, detail: `${u.path} answered ${u.status}: ${u.body}` });
  if (db) {
    try {
      const sql = await sqlChecks(db, run);
      findings.push(...sql.findings);
      const chain = await subAgencySqlChecks(db, run);
      findings.push(...chain.findings);
      report.sql = { findings: sql.findings.length + chain.findings.length, checked: { ...sql.checked, ...chain.checked } };
    } catch (err) {
      findings.push({ check: 'sql:error', detail: `the SQL checks could not run: ${(err as Error).message}` });
      report.sql = { error: (err as Error).message };
    }
  } else {
    report.sql = 'skipped: no database URL (PGlite inside npm start)';
  }
  try {
    const api = await apiChecks(http, run);
    findings.push(...api.findings);
    warnings.push(...api.warnings);
    const chain = await subAgencyApiChecks(http, run);
    findings.push(...chain.findings);
    report.api = { findings: api.findings.length + chain.findings.length, warnings: api.warnings.length, checked: { ...api.checked, ...chain.checked } };
  } catch (err) {
    findings.push({ check: 'api:error', detail: `the API checks could not run: ${(err as Error).message}` });
    report.api = { error: (err as Error).message };
  }
  if (target.temporalAddress) {
    try {
      const t = await temporalChecks(target.temporalAddress, target.namespace, run);
      findings.push(...t.findings);
      report.temporal = { findings: t.findings.length, checked: t.checked };
    } catch (err) {
      if (target.kind === 'npm-start') {
        // The dev server's address is a guess here (TEMPORAL_DEV_PORT): say so rather than fail.
        report.temporal = `skipped: cannot reach Temporal at ${target.temporalAddress} (${(err as Error).message}); pass --temporal-address`;
      } else {
        findings.push({ check: 'temporal:error', detail: `the Temporal check could not run: ${(err as Error).message}` });
        report.temporal = { error: (err as Error).message };
      }
    }
  } else {
    report.temporal = 'skipped: no Temporal address (--temporal-address)';
  }
  const rec = await reconcileCheck(target);
  report.reconcile = { exit: rec.exit, findings: rec.findings };
  if (rec.exit !== 0)
    findings.push({
      check: 'reconcile',
      detail: `admin reconcile exited ${rec.exit} with ${rec.findings} finding(s): ${JSON.stringify(rec.finding_list).slice(0, 600)}`,
    });
  return { findings, warnings, report };
}

/** The sub-agencies' share of the run: their orders, what their pays were answered, and the parents' credit sets. */
function subAgencySummary(run: RunRecord) {
  const children = new Set(run.partners.filter((p) => p.parent !== undefined).map((p) => p.index));
  const ids = new Set(run.orders.filter((o) => children.has(o.partner)).map((o) => o.id));
  return {
    count: children.size,
    orders: ids.size,
    pay_outcomes: tally(
      run.pays.filter((p) => ids.has(p.orderId)),
      (p) => p.outcome,
    ),
    grants: tally(run.grants ?? [], (g) => `${g.when}:${g.outcome}`),
  };
}

function summary(run: RunRecord, statuses: Map<number, string> | null) {
  const pays = run.pays;
  const lat = pays.map((p) => p.ms).sort((a, b) => a - b);
  return {
    partners: run.partners.length,
    tight_partners: run.partners.filter((p) => p.tight).length,
    sub_agencies: subAgencySummary(run),
    orders: run.orders.length,
    orders_by_kind: tally(run.orders, (o) => o.kind),
    pay_requests: pays.length,
    pay_outcomes: tally(pays, (p) => p.outcome),
    pay_outcomes_by_kind: Object.fromEntries(
      Object.entries(tally(run.orders, (o) => o.kind)).map(([kind]) => {
        const ids = new Set(run.orders.filter((o) => o.kind === kind).map((o) => o.id));
        return [
          kind,
          tally(
            pays.filter((p: PayRecord) => ids.has(p.orderId)),
            (p) => p.outcome,
          ),
        ];
      }),
    ),
    pay_attempts: pays.reduce((n, p) => n + p.attempts, 0),
    final_orders: statuses ? tally([...statuses.values()], (s) => s) : null,
    latency_ms: { p50: percentile(lat, 50), p95: percentile(lat, 95), p99: percentile(lat, 99), max: lat.at(-1) ?? null },
  };
}

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    console.log(JSON.stringify({ ok: false, error: (err as Error).message }));
    return 2;
  }
  const deadlineAt = t0 + opts.deadlineS * 1000;
  let target: Target;
  try {
    target = loadTarget(opts);
  } catch (err) {
    console.log(JSON.stringify({ ok: false, error: (err as Error).message }));
    log((err as Error).message);
    return 2;
  }
  const http = new Http(target, opts);
  const notes = [...target.notes];

  // --- --verify-only: the checks alone, for a recorded run -------------------------------
  if (opts.verifyOnly) {
    const run = JSON.parse(fs.readFileSync(opts.verifyOnly, 'utf8')) as RunRecord;
    const db = await connectDb(target);
    try {
      const checks = await verifyAll(http, target, run, db);
      if (opts.strict) checks.findings.push(...checks.warnings.splice(0));
      const statuses = await orderStatuses(http, run, db).catch(() => null);
      const line = {
        ok: checks.findings.length === 0,
        mode: 'verify-only',
        run: run.runId,
        target: target.kind,
        notes,
        counts: summary(run, statuses),
        checks: checks.report,
        findings_count: checks.findings.length,
        findings: checks.findings.slice(0, 50),
        warnings_count: checks.warnings.length,
        warnings: checks.warnings.slice(0, 20),
        duration_s: secs(Date.now() - t0),
      };
      console.log(JSON.stringify(line));
      return checks.findings.length ? 1 : 0;
    } finally {
      await db?.end().catch(() => undefined);
    }
  }

  // --- Ready? ----------------------------------------------------------------------------
  let restartsAtStart: Record<string, number> | null = null;
  if (target.stateFile) {
    const ready = await waitForState(target.stateFile, (s) => s.ready && Object.values(s.parts).every((p) => p.up), 120_000);
    if (!ready) {
      console.log(JSON.stringify({ ok: false, error: `the cluster is not ready (${target.stateFile}: ready and every part up) after 120 s` }));
      return 2;
    }
    restartsAtStart = Object.fromEntries(Object.entries(ready.parts).map(([n, p]) => [n, p.restarts]));
    if (ready.sandbox === false && opts.scenarios) {
      opts.scenarios = false;
      notes.push('the cluster runs without SANDBOX: no X-Sandbox-Scenario pays');
    }
  }
  const healthy = await waitHealthy(target, 120_000);
  if (!healthy.ok) {
    console.log(JSON.stringify({ ok: false, error: `the API is not healthy: ${JSON.stringify(healthy.detail)}` }));
    return 2;
  }
  const faultsOn = opts.faults && target.kind === 'cluster';
  if (opts.faults && target.kind !== 'cluster') opts.faults = false;
  if (!faultsOn && target.kind === 'cluster') notes.push('--no-faults: nothing injected');

  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 3).toString(36)}`;
  const rnd = prng(opts.seed);
  const runFile = runFileFor(opts, runId);
  log(`run ${runId} against ${target.kind} (${target.apis.map((a) => a.url).join(', ')}), size ${opts.size}, seed ${opts.seed}, record ${runFile}`);

  // --- Prepare (no fault yet) ------------------------------------------------------------
  const tPrep = Date.now();
  let run: RunRecord;
  try {
    run = await prepare(http, opts, runId, rnd, log);
  } catch (err) {
    console.log(JSON.stringify({ ok: false, run: runId, error: `preparing the run failed: ${(err as Error).message}` }));
    log((err as Error).stack ?? String(err));
    return 2;
  }
  run.target = target.kind;
  save(runFile, run);
  const prepareMs = Date.now() - tPrep;
  log(
    `prepared ${run.partners.length} partners (${run.partners.filter((p) => p.parent !== undefined).length} of them sub-agencies), ${run.orders.length} orders in ${secs(prepareMs)} s`,
  );

  // --- Load, with faults -----------------------------------------------------------------
  // Leave the settle and the checks their time within the deadline.
  const loadDeadlineAt = Math.max(Date.now() + 30_000, deadlineAt - (opts.settleS + 30) * 1000);
  http.deadlineAt = loadDeadlineAt + 60_000;
  const load = new Load(http, opts, run, rnd, log);
  const injector = target.stateFile ? new FaultInjector(target.stateFile, opts, t0, log) : null;
  const plan = faultsOn ? planFaults(opts) : [];
  if (injector && plan.length) load.gate = injector.gate;
  const tLoad = Date.now();
  const [loadStats] = (await Promise.all([
    load.runAll(loadDeadlineAt),
    injector && plan.length ? injector.run(plan, load.progress, () => load.done, deadlineAt - (opts.settleS + 30) * 1000) : Promise.resolve(),
  ])) as [LoadStats, void];
  const loadMs = Date.now() - tLoad;
  log(
    `load done: ${loadStats.answered_requests}/${loadStats.planned_requests} pay requests in ${secs(loadMs)} s; faults injected: ${injector?.records.length ?? 0}`,
  );
  save(runFile, run);
  if (loadStats.jobs_skipped_deadline) notes.push(`${loadStats.jobs_skipped_deadline} pay job(s) not started: the load reached its share of --deadline`);

  const rejectIds = new Set(run.orders.filter((o) => o.kind === 'supplier_reject').map((o) => o.id));
  const firstAnswers = new Map<number, string>();
  for (const p of run.pays) if (rejectIds.has(p.orderId) && !firstAnswers.has(p.orderId)) firstAnswers.set(p.orderId, p.outcome);
  if ([...firstAnswers.values()].some((o) => o === 'completed'))
    notes.push('a supplier_reject pay was answered 200: the API seems to run without SANDBOX, so the scenarios did not happen');
  const findings: Finding[] = [];
  for (const f of injector?.records ?? []) if (f.error) findings.push({ check: `fault:${f.kind}`, detail: f.error });
  if (injector && plan.length > (injector.records.length ?? 0)) notes.push(`${plan.length - injector.records.length} planned fault(s) not injected: deadline`);

  // --- Back to health, settle, decide parked payments ------------------------------------
  const tSettle = Date.now();
  if (target.stateFile) {
    const up = await waitForState(target.stateFile, (s) => Object.values(s.parts).every((p) => p.up), opts.recoverS * 1000);
    if (!up) {
      const s = (() => {
        try {
          return readState(target.stateFile!);
        } catch {
          return null;
        }
      })();
      const down = s
        ? Object.entries(s.parts)
            .filter(([, p]) => !p.up)
            .map(([n]) => n)
        : ['?'];
      findings.push({ check: 'topology:not_recovered', detail: `after the load, part(s) still down: ${down.join(', ')}` });
    }
  }
  const health = await waitHealthy(target, opts.recoverS * 1000);
  if (!health.ok) findings.push({ check: 'topology:not_healthy', detail: `after the load, /healthz: ${JSON.stringify(health.detail)}` });

  let db: pg.Client | null = null;
  let settled: SettleReport | null = null;
  let checks: Checks = { findings: [], warnings: [], report: {} };
  let statuses: Map<number, string> | null = null;
  try {
    db = await connectDb(target);
    const settleDeadline = Math.min(Date.now() + opts.settleS * 1000, deadlineAt - 20_000);
    settled = await settle(http, target, run, db, Math.max(settleDeadline, Date.now() + 10_000), log);
    await resendUnansweredGrants(http, run, log);
    save(runFile, run);
    log(
      `settled in ${settled.seconds} s: ${settled.parked} parked, decisions ${JSON.stringify(settled.decisions)}, still processing ${settled.still_processing.length}`,
    );
    // --- Checks --------------------------------------------------------------------------
    checks = await verifyAll(http, target, run, db);
    statuses = await orderStatuses(http, run, db).catch(() => null);
  } catch (err) {
    findings.push({ check: 'verify:error', detail: `the checks could not be completed: ${(err as Error).message}` });
    log((err as Error).stack ?? String(err));
  } finally {
    await db?.end().catch(() => undefined);
  }
  findings.push(...checks.findings);
  const settleMs = Date.now() - tSettle;

  const faults = injector?.records ?? [];
  // Parts that restarted without being signalled (a crash the fault caused elsewhere).
  let collateral: Record<string, number> | null = null;
  if (target.stateFile && restartsAtStart) {
    try {
      const end = readState(target.stateFile);
      collateral = {};
      for (const [name, p] of Object.entries(end.parts)) {
        const n = p.restarts - (restartsAtStart[name] ?? 0) - faults.filter((f) => f.part === name && f.new_pid !== null).length;
        if (n > 0) collateral[name] = n;
      }
      if (Object.keys(collateral).length) {
        checks.warnings.push({
          check: 'topology:collateral_restarts',
          detail: `part(s) exited without being signalled and were restarted: ${JSON.stringify(collateral)} (see their logs)`,
        });
      }
    } catch {
      collateral = null;
    }
  }
  if (opts.strict) findings.push(...checks.warnings.splice(0));
  const line = {
    ok: findings.length === 0,
    run: runId,
    target: target.kind,
    size: opts.size,
    seed: opts.seed,
    notes,
    durations_s: { total: secs(Date.now() - t0), prepare: secs(prepareMs), load: secs(loadMs), settle_and_verify: secs(settleMs) },
    load: loadStats,
    counts: summary(run, statuses),
    // Unexpected answers (500s, unknown shapes) are listed under warnings.
    http: { requests: http.stats.requests, retries: http.stats.retries, by_status: http.stats.byStatus, unexpected: http.stats.unexpectedCount },
    faults: {
      planned: plan.length,
      injected: faults.filter((f) => !f.error).length,
      by_kind: tally(
        faults.filter((f) => !f.error),
        (f) => f.kind,
      ),
      during_load: faults.filter((f) => f.during_load && !f.error).length,
      collateral_restarts: collateral,
      list: faults,
    },
    settle: settled,
    decisions: run.decisions,
    checks: checks.report,
    findings_count: findings.length,
    findings: findings.slice(0, 50),
    warnings_count: checks.warnings.length,
    warnings: checks.warnings.slice(0, 20),
    record: runFile,
  };
  console.log(JSON.stringify(line));
  return findings.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.log(JSON.stringify({ ok: false, error: (err as Error).message }));
    log((err as Error).stack ?? String(err));
    process.exit(2);
  },
);
