import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { listen, type RunningServer } from '../../src/platform/listen';
import { createSimulatorApp } from '../../src/suppliers/simulator/app';
import { freePort } from '../support/global-setup';
import { startReceiver } from '../support/receiver';

/**
 * The production shape as operators run it: `npm run api` and `npm run worker` as separate
 * processes on one PostgreSQL database and the test Temporal server. A worker killed with
 * SIGKILL says no goodbye; the API must still learn within seconds that no worker is left
 * (its heartbeat goes stale), refuse pays with 503 at once, and take them again when a
 * worker is back. Two API replicas share one partner's rate limit, and a worker killed in the
 * middle of a webhook delivery costs a duplicate with the same webhook-id, nothing more.
 * Needs PostgreSQL (DATABASE_URL): two processes cannot share one PGlite.
 */
const withPostgres = process.env.DATABASE_URL ? describe : describe.skip;

const ROOT = path.resolve(__dirname, '../..');
const ADMIN_TOKEN = 'split-admin-token-0123456789abcdefghij';
/** 3 missed 2 s heartbeats + a 1 s round (docs/decisions/availability.md), and a margin. */
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

let adminUrl: string;

/** `/healthz` of a worker's port; of an API's admin port, `/admin/healthz` with the admin token (each part's check). */
async function healthz(url: string): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const detail = url === adminUrl;
  const res = await fetch(`${url}${detail ? '/admin/healthz' : '/healthz'}`, detail ? { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } } : {}).catch(
    () => null,
  );
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

withPostgres('npm run api ×2 + npm run worker: replicas share limits, workers killed', () => {
  let simulator: RunningServer;
  let dbName: string;
  let env: NodeJS.ProcessEnv;
  let api: Proc;
  let api2: Proc;
  let worker: Proc | undefined;
  let apiUrl: string;
  let api2Url: string;
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
    const [port2, adminPort2] = [await freePort(), await freePort()];
    apiUrl = `http://127.0.0.1:${port}`;
    api2Url = `http://127.0.0.1:${port2}`;
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
      // Webhook receivers here listen on 127.0.0.1, allowed by name; retries quick.
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_INITIAL_MS: '200',
      WEBHOOK_RETRY_MAX_MS: '1000',
    };
    await startWorker();
    api = run('src/api.ts', env);
    // A second replica, as operators scale the API: same database, its own ports.
    api2 = run('src/api.ts', { ...env, PORT: String(port2), ADMIN_PORT: String(adminPort2) });
    await until('the API is healthy', async () => (await healthz(apiUrl)).status === 200, 90_000, api);
    await until('the second API is healthy', async () => (await healthz(api2Url)).status === 200, 90_000, api2);
  }, 200_000);

  afterAll(async () => {
    for (const proc of [api, api2, worker]) {
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

  const adminAuth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  async function newPartner(name: string) {
    const created = await fetch(`${adminUrl}/admin/partners`, { method: 'POST', headers: adminAuth, body: JSON.stringify({ name, topup: '10000000' }) });
    expect(created.status).toBe(201);
    const creds = (await created.json()) as { partner_id: number; api_key: string; api_secret: string };
    return { creds, auth: { 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'content-type': 'application/json' } };
  }
  const alive = (p?: Proc) => p !== undefined && p.child.exitCode === null && p.child.signalCode === null;

  it("holds a partner's rate limit across two API processes", async () => {
    const { creds, auth } = await newPartner('Limited Agency');
    const set = await fetch(`${adminUrl}/admin/partners/${creds.partner_id}/rate-limit`, {
      method: 'POST',
      headers: adminAuth,
      body: JSON.stringify({ per_minute: 4 }),
    });
    expect(set.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${i % 2 ? api2Url : apiUrl}/api/partners/wallet/`, { headers: auth })).status);
    // Four in all, whichever replica answered; then 429 from both.
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  }, 60_000);

  it('a worker killed mid-delivery: the next worker delivers the same webhook-id, and the receiver takes the event once', async () => {
    if (!alive(worker)) await startWorker();
    const { auth } = await newPartner('Hooked Agency');
    let hanging!: () => void;
    const hung = new Promise<void>((resolve) => (hanging = resolve));
    const receiver = await startReceiver((_, nth) => {
      if (nth > 1) return 200;
      hanging();
      return 'hang';
    });
    try {
      const post = (p: string, body: unknown) => fetch(`${apiUrl}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      const made = await post('/api/partners/webhooks/', { url: receiver.url, event_types: ['product_order.shipped'] });
      expect(made.status).toBe(201);
      receiver.setSecret(((await made.json()) as { data: { secret: string } }).data.secret);
      expect((await post('/api/products/basket/items/', { product: 1, variant: 1, quantity: 1 })).status).toBe(201);
      const order = ((await (await post('/api/products/checkout/', { payment_method: 'PARTNER_CREDIT' })).json()) as { data: { id: number } }).data;
      expect((await post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'hook-1' })).status).toBe(200);

      await hung;
      worker!.child.kill('SIGKILL');
      await worker!.exited();
      await startWorker();
      // The attempt's 5 s heartbeat lapses, and the retry goes out from the new worker.
      await until('the delivery after the kill', async () => receiver.accepted().length === 1, 30_000, worker);
      expect(receiver.received.map((r) => r.id)).toEqual([receiver.received[0]!.id, receiver.received[0]!.id]);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      expect(receiver.accepted()).toEqual([expect.objectContaining({ type: 'product_order.shipped', order_id: order.id })]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('sees the killed worker within seconds, answers pays 503 at once without moving money, and pays again once a worker is back', async () => {
    if (!alive(worker)) await startWorker();
    // The worker the last test started may be younger than the API's last health round (1 s),
    // and the one it SIGKILLed counts until its heartbeat goes stale: wait for exactly one.
    const oneWorker = { ok: true, detail: `1 worker on task queue ${env.TEMPORAL_TASK_QUEUE}` };
    await until(
      'the API sees exactly the one live worker',
      async () => JSON.stringify((await healthz(adminUrl)).body?.checks?.worker) === JSON.stringify(oneWorker),
      DETECT_KILLED_WORKERS_MS + 5_000,
    );
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

    // A worker still starting up can miss a heartbeat on a busy machine: the kill waits until it is seen again.
    await until(
      'the API sees the one live worker before the kill',
      async () => JSON.stringify((await healthz(adminUrl)).body?.checks?.worker) === JSON.stringify(oneWorker),
      DETECT_KILLED_WORKERS_MS + 5_000,
      worker!,
    );

    worker!.child.kill('SIGKILL');
    await worker!.exited();
    const detected = await until(
      'the API reports no worker',
      async () => {
        const h = await healthz(adminUrl);
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
