import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HealthMonitor } from '../../src/health/model';
import { loadConfig } from '../../src/config';
import { createWorkerMetricsApp } from '../../src/http/metrics';
import { listen, type RunningServer } from '../../src/platform/listen';
import { httpDuration, registryFor, renderMetrics, sagaCompensations } from '../../src/platform/metrics';
import { typedFamilies, typedTwice } from '../support/metrics';

/** A stand-in for the Temporal Core exporter: serves whatever `body` holds at /metrics. */
async function stubCoreExporter(): Promise<{ url: string; body: { text: string; status: number }; close(): Promise<void> }> {
  const body = { text: '', status: 200 };
  const server = http.createServer((req, res) => {
    res.writeHead(req.url === '/metrics' ? body.status : 404, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(req.url === '/metrics' ? body.text : 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/metrics`, body, close: () => new Promise((done) => server.close(() => done())) };
}

const CORE_TEXT = [
  '# HELP temporal_worker_task_slots_available Current number of available slots per task type',
  '# TYPE temporal_worker_task_slots_available gauge',
  'temporal_worker_task_slots_available{namespace="default",service_name="temporal-core-sdk",task_queue="q",worker_type="ActivityWorker"} 100',
  '# HELP temporal_request_total Count of client request successes by rpc name',
  '# TYPE temporal_request_total counter',
  'temporal_request_total{operation="GetSystemInfo",service_name="temporal-core-sdk"} 1',
  '',
].join('\n');

const ADMIN_TOKEN = 'metrics-test-admin-token-0123456789abcdef';

describe('the worker metrics server', () => {
  let core: Awaited<ReturnType<typeof stubCoreExporter>>;
  let server: RunningServer;
  let state = 'STARTING';
  const health = new HealthMonitor(
    {
      worker: async () => {
        if (state !== 'RUNNING') throw new Error(`the worker is ${state}`);
      },
    },
    { intervalMs: 60_000, timeoutMs: 1000 },
  );
  beforeAll(async () => {
    core = await stubCoreExporter();
    server = await listen(createWorkerMetricsApp({ coreMetricsUrl: core.url, health, adminToken: ADMIN_TOKEN }).fetch, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
    await core.close();
  });
  beforeEach(() => {
    core.body.text = CORE_TEXT;
    core.body.status = 200;
  });

  it('serves the worker prom-client series and the Temporal Core text in one scrape', async () => {
    const before = (await sagaCompensations.get()).values[0]?.value ?? 0;
    sagaCompensations.inc();
    const res = await fetch(`${server.url}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text).toContain(`\nsaga_compensations_total ${before + 1}\n`);
    expect(text).toContain('wallet_debit_duration_seconds_count 0');
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain(
      'temporal_worker_task_slots_available{namespace="default",service_name="temporal-core-sdk",task_queue="q",worker_type="ActivityWorker"} 100',
    );
    expect(text).toContain('temporal_request_total{operation="GetSystemInfo"');
    expect(typedTwice(text)).toEqual([]);
  });

  it('leaves out the series only the API process records', async () => {
    httpDuration.observe({ method: 'GET', route: '/x', status: '200' }, 0.01);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    for (const name of ['http_request_duration_seconds', 'pay_outcomes_total', 'payments_needs_attention']) expect(text).not.toContain(name);
  });

  it('drops a family from the Core text that the registry already has, rather than typing it twice', async () => {
    core.body.text = `# HELP process_cpu_seconds_total clash\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12345\n${CORE_TEXT}`;
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(typedTwice(text)).toEqual([]);
    expect(text).not.toContain('clash');
    expect(text).not.toContain('process_cpu_seconds_total 12345');
    expect(text).toContain('temporal_request_total{');
  });

  it('still answers, with a comment, when the Core exporter does not', async () => {
    core.body.status = 500;
    const res = await fetch(`${server.url}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('# Temporal worker metrics unavailable: HTTP 500');
    expect(text).toContain('saga_compensations_total');
  });

  it('reports the last health round on /healthz: 503 with Retry-After until the worker runs; the detail only with the admin token', async () => {
    state = 'STARTING';
    await health.round();
    const starting = await fetch(`${server.url}/healthz`);
    expect(starting.status).toBe(503);
    expect(starting.headers.get('retry-after')).toBe('5');
    expect(await starting.json()).toEqual({ ok: false });
    expect((await fetch(`${server.url}/admin/healthz`)).status).toBe(401);
    const detail = await fetch(`${server.url}/admin/healthz`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(detail.status).toBe(503);
    expect(await detail.json()).toEqual({ ok: false, checks: { worker: { ok: false, detail: 'the worker is STARTING' } }, checked_at: expect.any(String) });
    state = 'RUNNING';
    // Read from the last round, not probed per request: still 503 until the next round.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
    await health.round();
    const running = await fetch(`${server.url}/healthz`);
    expect(running.status).toBe(200);
    expect(running.headers.get('retry-after')).toBeNull();
  });
});

describe('which process serves which series', () => {
  const families = async (role: Parameters<typeof registryFor>[0]) => typedFamilies(await renderMetrics(registryFor(role)));

  it('gives the API its HTTP series and the worker its saga series, and npm start both, each once', async () => {
    const api = await families('api');
    const worker = await families('worker');
    const all = await families('all-in-one');
    expect(api).toEqual(
      expect.arrayContaining(['http_request_duration_seconds', 'pay_outcomes_total', 'payments_needs_attention', 'process_cpu_seconds_total']),
    );
    expect(api).not.toContain('saga_compensations_total');
    expect(worker).toEqual(expect.arrayContaining(['saga_compensations_total', 'wallet_debit_duration_seconds', 'process_cpu_seconds_total']));
    expect(worker).not.toContain('http_request_duration_seconds');
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...new Set([...api, ...worker])].sort());
  });
});

describe('worker metrics configuration', () => {
  it('serves on 127.0.0.1:9464 and reads Core from 9465 by default, and refuses one port for both', () => {
    expect(loadConfig({})).toMatchObject({ WORKER_METRICS_HOST: '127.0.0.1', WORKER_METRICS_PORT: 9464, TEMPORAL_CORE_METRICS_PORT: 9465 });
    expect(() => loadConfig({ WORKER_METRICS_PORT: '9465' })).toThrow(/TEMPORAL_CORE_METRICS_PORT: must differ from WORKER_METRICS_PORT/);
    expect(loadConfig({ WORKER_METRICS_PORT: '0', TEMPORAL_CORE_METRICS_PORT: '0' }).WORKER_METRICS_PORT).toBe(0);
  });
});
