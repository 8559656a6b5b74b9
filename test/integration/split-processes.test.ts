import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { listen, type RunningServer } from '../../src/platform/listen';
import { createSimulatorApp } from '../../src/suppliers/simulator/app';
import { freePort } from '../support/global-setup';

/**
 * The production shape as operators run it: `npm run api` and `npm run worker` as separate
 * processes on one PostgreSQL database and the test Temporal server. A worker killed with
 * SIGKILL says no goodbye; the API must still learn within seconds that no worker is left
 * (its heartbeat goes stale), refuse pays with 503 at once, and take them again when a
 * worker is back. Needs PostgreSQL (DATABASE_URL): two processes cannot share one PGlite.
 */
const withPostgres = process.env.DATABASE_URL ? describe : describe.skip;

const ROOT = path.resolve(__dirname, '../..');
const ADMIN_TOKEN = 'split-admin-token-0123456789';
/** 3 missed 2 s heartbeats + a 1 s round (docs/decisions.md), and a margin. */
const DETECT_KILLED_WORKERS_MS = 10_000;
const FAIL_FAST_MS = 1_000;

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: () => Promise<number | null>;
}

function run(script: string, env: NodeJS.ProcessEnv): Proc {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = () =>
    new Promise<number | null>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
    );
  return { child, output: () => output, exited };
}

async function healthz(url: string): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${url}/healthz`).catch(() => null);
  return { status: res?.status ?? 0, body: res ? await res.json() : null, ms: Date.now() - started };
}

async function until(what: string, check: () => Promise<boolean>, boundMs: number, proc?: Proc): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (proc && proc.child.exitCode !== null) throw new Error(`${what}: the process exited ${proc.child.exitCode}:\n${proc.output().slice(-4000)}`);
    if (Date.now() - started > boundMs) throw new Error(`${what}: not within ${boundMs} ms${proc ? `:\n${proc.output().slice(-4000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

withPostgres('npm run api + npm run worker: every worker killed', () => {
  let simulator: RunningServer;
  let dbName: string;
  let env: NodeJS.ProcessEnv;
  let api: Proc;
  let worker: Proc | undefined;
  let apiUrl: string;
  let adminUrl: string;
  let workerUrl: string;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bte-split-'));

  const startWorker = async () => {
    worker = run('worker/main.ts', env);
    await until('the worker is healthy', async () => (await healthz(workerUrl)).status === 200, 90_000, worker);
  };

  beforeAll(async () => {
    dbName = `bte_split_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new PgClient({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${dbName}`;
    simulator = await listen(createSimulatorApp({ slowMs: 3000 }).fetch, 0, '127.0.0.1');
    const [port, adminPort, metricsPort, corePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    apiUrl = `http://127.0.0.1:${port}`;
    adminUrl = `http://127.0.0.1:${adminPort}`;
    workerUrl = `http://127.0.0.1:${metricsPort}`;
    env = {
      ...process.env,
      DATABASE_URL: url.toString(),
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: `split-${crypto.randomBytes(4).toString('hex')}`,
      SUPPLIER_URL: simulator.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN,
      WORKER_METRICS_PORT: String(metricsPort),
      TEMPORAL_CORE_METRICS_PORT: String(corePort),
      SANDBOX: 'true',
      LOG_LEVEL: 'warn',
    };
    await startWorker();
    api = run('src/api.ts', env);
    await until('the API is healthy', async () => (await healthz(apiUrl)).status === 200, 90_000, api);
  }, 200_000);

  afterAll(async () => {
    for (const proc of [api, worker]) {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGTERM');
        await proc.exited();
      }
    }
    await simulator?.close();
    const admin = new PgClient({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('sees the killed worker within seconds, answers pays 503 at once without moving money, and pays again once a worker is back', async () => {
    const adminAuth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = await fetch(`${adminUrl}/admin/partners`, {
      method: 'POST',
      headers: adminAuth,
      body: JSON.stringify({ name: 'Split Agency', topup: '10000000' }),
    });
    expect(created.status).toBe(201);
    const creds = (await created.json()) as { partner_id: number; api_key: string; api_secret: string };
    const auth = { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'content-type': 'application/json' };
    const post = (p: string, body: unknown) => fetch(`${apiUrl}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    expect((await post('/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 })).status).toBe(201);
    const checkout = await post('/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' });
    const order = ((await checkout.json()) as { data: { id: number } }).data;
    const wallet = async () => (await (await fetch(`${adminUrl}/admin/partners/${creds.partner_id}/wallet`, { headers: adminAuth })).json()) as unknown;
    const before = await wallet();

    const ready = await healthz(apiUrl);
    expect(ready.body.checks.worker).toEqual({ ok: true, detail: `1 worker on task queue ${env.TEMPORAL_TASK_QUEUE}` });

    worker!.child.kill('SIGKILL');
    await worker!.exited();
    const detected = await until(
      'the API reports no worker',
      async () => {
        const h = await healthz(apiUrl);
        return h.status === 503 && h.body.checks.worker.ok === false;
      },
      DETECT_KILLED_WORKERS_MS,
    );
    expect(detected).toBeLessThan(DETECT_KILLED_WORKERS_MS);

    const started = Date.now();
    const refused = await post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'split-1' });
    expect(Date.now() - started).toBeLessThan(FAIL_FAST_MS);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ ok: false, error: 'no worker is running; nothing was changed, try again in 5 s' });
    expect(await wallet()).toEqual(before);

    await startWorker();
    await until('the API sees the worker again', async () => (await healthz(apiUrl)).status === 200, 10_000);
    const paid = await post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'split-1' });
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as { data: { order_status: string } }).data.order_status).toBe('completed');

    // A worker stopped on purpose removes its heartbeat first: the API sees it gone at once.
    worker!.child.kill('SIGTERM');
    expect(await worker!.exited()).toBe(0);
    const seen = await until('the API reports the stopped worker', async () => (await healthz(apiUrl)).status === 503, 3_000);
    expect(seen).toBeLessThan(3_000);
  }, 200_000);
});
