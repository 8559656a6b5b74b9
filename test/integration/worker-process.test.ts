import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/global-setup';
import { typedTwice } from '../support/metrics';

/**
 * `npm run worker` as operators run it, in a child process against the test Temporal
 * server (PGlite in a scratch DATA_DIR): its metrics endpoint serves the worker's own
 * series and the real Temporal Core exporter's, and it stops cleanly on SIGTERM.
 */
const WORKER_ADMIN_TOKEN = 'worker-process-admin-token-0123456789ab';

describe('npm run worker', () => {
  let child: ChildProcess | undefined;
  let output = '';
  let dataDir: string;
  let metricsUrl: string;
  let corePort: number;
  const taskQueue = `worker-process-${crypto.randomBytes(4).toString('hex')}`;
  const exited = () =>
    new Promise<number | null>((resolve) => (child!.exitCode !== null ? resolve(child!.exitCode) : child!.once('exit', (code) => resolve(code))));

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bte-worker-'));
    const metricsPort = await freePort();
    corePort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATA_DIR: dataDir,
      ADMIN_TOKEN: WORKER_ADMIN_TOKEN,
      SUPPLIER_URL: 'http://127.0.0.1:9', // never called: no workflow runs here
      WORKER_METRICS_PORT: String(metricsPort),
      TEMPORAL_CORE_METRICS_PORT: String(corePort),
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL; // its own PGlite, not the suite's PostgreSQL
    child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], { cwd: path.resolve(__dirname, '../..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));

    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = await fetch(`${metricsUrl}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`the worker did not become healthy (exit ${child.exitCode}):\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves its own series and the Temporal Core worker metrics on WORKER_METRICS_PORT, each family once', async () => {
    const res = await fetch(`${metricsUrl}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('\nsaga_compensations_total 0\n');
    expect(text).toContain('wallet_debit_duration_seconds_count 0');
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toMatch(new RegExp(`\\ntemporal_num_pollers\\{[^}]*task_queue="${taskQueue}"[^}]*\\} \\d+`));
    expect(text).not.toContain('http_request_duration_seconds');
    expect(typedTwice(text)).toEqual([]);
    // The Core exporter itself stays on loopback, on its own port.
    expect(await fetch(`http://127.0.0.1:${corePort}/metrics`).then((r) => r.text())).toContain('temporal_num_pollers');
  });

  it('says on /healthz only that it is healthy, and on /admin/healthz (admin token) that it runs and reaches Temporal and its database', async () => {
    const open = await fetch(`${metricsUrl}/healthz`);
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ ok: true });
    expect((await fetch(`${metricsUrl}/admin/healthz`)).status).toBe(401);
    const res = await fetch(`${metricsUrl}/admin/healthz`, { headers: { authorization: `Bearer ${WORKER_ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ok: true,
      checks: { worker: { ok: true, detail: `RUNNING on task queue ${taskQueue}` }, temporal: { ok: true }, database: { ok: true } },
      checked_at: expect.any(String),
    });
  });

  it('drains and exits 0 on SIGTERM', async () => {
    child!.kill('SIGTERM');
    expect(await exited()).toBe(0);
    await expect(fetch(`${metricsUrl}/healthz`)).rejects.toThrow();
  }, 60_000);
});
