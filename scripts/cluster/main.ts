/**
 * `npm run cluster`: the production shape on this machine, without Docker. PostgreSQL, a
 * Temporal cluster (frontend, history, matching and internal worker as four processes over
 * PostgreSQL persistence and SQL visibility, configured by scripts/cluster/temporal/config,
 * the same files docker-compose.yml mounts), Temporal Web, the supplier simulator, CLUSTER_APIS `npm run
 * api` replicas and CLUSTER_WORKERS `npm run worker` processes. Prints where each part
 * listens, restarts any part that dies, writes CLUSTER_DIR/state.json for tools, and stops
 * everything it started on Ctrl-C.
 *
 *   CLUSTER_DIR          .cluster   PostgreSQL data, logs, admin token, state.json (kept between runs)
 *   CLUSTER_PORT_OFFSET  0          added to every port below (run beside `npm start`, or twice)
 *   CLUSTER_APIS / CLUSTER_WORKERS  2 / 2
 *   NUM_HISTORY_SHARDS   the config's (512); fixed when the cluster's database is created
 *   --fresh              start from empty databases
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { ensureAdminToken } from '../../src/runtime/admin-token';
import { ensureDataFile } from '../../src/runtime/data-file';
import { PAYLOAD_KEY_FILE } from '../../src/runtime/payload-key';
import { PERSONAL_DATA_KEY_FILE } from '../../src/runtime/personal-data-key';
import { SECRETS_KEY_FILE } from '../../src/runtime/secrets-key';
import { newSecretKey } from '../../src/platform/secret-box';
import { resolveTemporalBinaries } from './binaries';
import { clusterPostgres } from './postgres';
import { stopOrphans, Supervisor, type PartSpec } from './supervisor';

const ROOT = path.resolve(__dirname, '../..');
const TEMPORAL_DIR = path.join(__dirname, 'temporal');
const log = (msg: string) => process.stderr.write(`[cluster] ${msg}\n`);

const int = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${raw}`);
  return value;
};

const tcpOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * A 2xx within 2 s. Through node:http, not fetch: fetch refuses the "bad ports" of the Fetch
 * standard (10080 among them, which CLUSTER_PORT_OFFSET=2000 gives the first API).
 */
const httpOk = (url: string) =>
  new Promise<boolean>((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 300);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });

async function main(): Promise<void> {
  const dir = path.resolve(process.env.CLUSTER_DIR || '.cluster');
  const offset = int('CLUSTER_PORT_OFFSET', 0);
  const apis = int('CLUSTER_APIS', 2);
  const workers = int('CLUSTER_WORKERS', 2);
  const port = (p: number) => p + offset;
  if (apis < 1 || workers < 1) throw new Error('CLUSTER_APIS and CLUSTER_WORKERS must be at least 1');
  // Temporal keeps each service's membership port in a smallint column (cluster_membership).
  if (port(6939) > 32767)
    throw new Error(
      `CLUSTER_PORT_OFFSET=${offset} puts Temporal's membership ports past 32767, which its PostgreSQL schema cannot store; use at most ${32767 - 6939}`,
    );

  fs.mkdirSync(dir, { recursive: true });
  stopOrphans(path.join(dir, 'state.json'), log);
  if (process.argv.includes('--fresh')) {
    log(`--fresh: removing ${path.join(dir, 'postgres')}`);
    fs.rmSync(path.join(dir, 'postgres'), { recursive: true, force: true });
  }
  const bins = await resolveTemporalBinaries(log);
  const admin = ensureAdminToken(process.env.ADMIN_TOKEN, dir);
  // One key for every API and worker process: each has a DATA_DIR of its own.
  const secretsKey = process.env.WEBHOOK_SECRETS_KEY || ensureDataFile(dir, SECRETS_KEY_FILE, newSecretKey).value;
  const payloadKey = process.env.TEMPORAL_PAYLOAD_KEY || ensureDataFile(dir, PAYLOAD_KEY_FILE, newSecretKey).value;
  const personalDataKey = process.env.PERSONAL_DATA_KEY || ensureDataFile(dir, PERSONAL_DATA_KEY_FILE, newSecretKey).value;
  const pg = clusterPostgres(path.join(dir, 'postgres'), port(5433));
  const frontend = `127.0.0.1:${port(7233)}`;
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  const taskQueue = process.env.TEMPORAL_TASK_QUEUE || 'booking-engine';
  const supplierUrl = `http://127.0.0.1:${port(8090)}`;
  const apiUrls = Array.from({ length: apis }, (_, i) => ({
    name: `api-${i + 1}`,
    url: `http://127.0.0.1:${port(8080 + 2 * i)}`,
    adminUrl: `http://127.0.0.1:${port(8081 + 2 * i)}`,
  }));

  const supervisor = new Supervisor(
    dir,
    {
      databaseUrl: pg.engineUrl,
      adminDatabaseUrl: pg.adminUrl,
      temporalAddress: frontend,
      namespace,
      taskQueue,
      supplierUrl,
      sandbox: true,
      adminToken: admin.token,
      apis: apiUrls,
    },
    log,
  );
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping: APIs, workers, simulator, Temporal, PostgreSQL');
    await supervisor.stopAll();
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGHUP', () => void stop(0)); // its terminal went away

  try {
    log(`PostgreSQL on 127.0.0.1:${port(5433)} (${path.join(dir, 'postgres')})`);
    await supervisor.start([pg.spec]);
    await pg.provision();

    // Temporal's services and its set-up script read the committed configuration through these.
    const temporalEnv: NodeJS.ProcessEnv = {
      ...process.env,
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: String(port(5433)),
      POSTGRES_USER: 'temporal',
      POSTGRES_PWD: 'temporal',
      DYNAMIC_CONFIG_FILE_PATH: path.join(TEMPORAL_DIR, 'config', 'dynamicconfig.yaml'),
      FRONTEND_GRPC_PORT: String(port(7233)),
      FRONTEND_HTTP_PORT: String(port(7243)),
      HISTORY_GRPC_PORT: String(port(7234)),
      MATCHING_GRPC_PORT: String(port(7235)),
      WORKER_GRPC_PORT: String(port(7239)),
      FRONTEND_MEMBERSHIP_PORT: String(port(6933)),
      HISTORY_MEMBERSHIP_PORT: String(port(6934)),
      MATCHING_MEMBERSHIP_PORT: String(port(6935)),
      WORKER_MEMBERSHIP_PORT: String(port(6939)),
      TEMPORAL_ADDRESS: frontend,
      TEMPORAL_NAMESPACE: namespace,
      SQL_TOOL: bins.sqlTool,
      TEMPORAL_CLI: bins.cli,
      TEMPORAL_ALLOW_NO_AUTH: 'true',
    };
    const setup = async (step: 'schema' | 'namespace') => {
      const out = supervisor.logFile(`temporal-setup-${step}`);
      try {
        const { stdout, stderr } = await promisify(execFile)(path.join(TEMPORAL_DIR, 'setup.sh'), [step], { env: temporalEnv, maxBuffer: 64 * 1024 * 1024 });
        fs.writeFileSync(out, stdout + stderr);
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string; message: string };
        fs.writeFileSync(out, `${e.stdout ?? ''}${e.stderr ?? ''}`);
        throw new Error(`scripts/cluster/temporal/setup.sh ${step} failed (log: ${out}): ${e.message.split('\n')[0]}`);
      }
    };
    log('Temporal schemas (temporal, temporal_visibility)');
    await setup('schema');

    // The internal worker serves no gRPC, only membership: that port tells it is up.
    // CLUSTER_PPROF_PORT=N: each service serves Go's pprof on its own port from N (history N,
    // matching N+1, frontend N+2, worker N+3), for `go tool pprof` (docs/performance.md).
    const pprofBase = Number(process.env.CLUSTER_PPROF_PORT ?? 0);
    const pprofPort = (service: string) => (pprofBase ? String(pprofBase + ['history', 'matching', 'frontend', 'worker'].indexOf(service)) : '0');
    const temporalService = (service: string, listenPort: number, listens: string): PartSpec => ({
      name: `temporal-${service}`,
      command: bins.server,
      args: ['--root', TEMPORAL_DIR, '--config', 'config', '--env', 'cluster', 'start', '--service', service],
      env: { ...temporalEnv, PPROF_PORT: pprofPort(service) },
      listens,
      ready: service === 'frontend' ? () => frontendServing(frontend) : () => tcpOpen(listenPort),
    });
    log('Temporal services: history, matching, frontend, worker (they join each other within ~20 s)');
    // History first: on a fresh database the first service to start writes the cluster's
    // metadata, and services starting at the same moment would race to (one loses and exits).
    await supervisor.start([temporalService('history', port(7234), `127.0.0.1:${port(7234)}`)]);
    await supervisor.start([
      temporalService('matching', port(7235), `127.0.0.1:${port(7235)}`),
      temporalService('frontend', port(7233), `${frontend} (gRPC), http://127.0.0.1:${port(7243)} (HTTP API)`),
      temporalService('worker', port(6939), `membership 127.0.0.1:${port(6939)}`),
    ]);
    await setup('namespace');
    const uiPort = port(8233);
    await supervisor.start([
      {
        name: 'temporal-ui',
        command: bins.ui,
        args: ['--root', path.join(TEMPORAL_DIR, 'ui'), '--config', '.', '--env', 'cluster', 'start'],
        env: { ...process.env, TEMPORAL_ADDRESS: frontend, TEMPORAL_UI_PORT: String(uiPort), TEMPORAL_DEFAULT_NAMESPACE: namespace },
        listens: `http://127.0.0.1:${uiPort} (Temporal Web)`,
        ready: () => httpOk(`http://127.0.0.1:${uiPort}/`),
      },
    ]);

    const node = (name: string, script: string, env: NodeJS.ProcessEnv, listens: string, ready: () => Promise<boolean>): PartSpec => ({
      name,
      command: process.execPath,
      args: ['--import', 'tsx', script],
      cwd: ROOT,
      env: { ...process.env, ...env },
      listens,
      ready,
    });
    await supervisor.start([
      node('simulator', 'src/suppliers/simulator/main.ts', { SIMULATOR_PORT: String(port(8090)) }, supplierUrl, () => tcpOpen(port(8090))),
    ]);

    const engineEnv: NodeJS.ProcessEnv = {
      DATABASE_URL: pg.engineUrl,
      TEMPORAL_ADDRESS: frontend,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SUPPLIER_URL: supplierUrl,
      ADMIN_TOKEN: admin.token,
      WEBHOOK_SECRETS_KEY: secretsKey,
      TEMPORAL_PAYLOAD_KEY: payloadKey,
      PERSONAL_DATA_KEY: personalDataKey,
      SANDBOX: process.env.SANDBOX ?? 'true',
    };
    const worker = (i: number): PartSpec => {
      const metrics = port(9464 + 2 * i);
      return node(
        `worker-${i + 1}`,
        'worker/main.ts',
        { ...engineEnv, DATA_DIR: path.join(dir, `worker-${i + 1}`), WORKER_METRICS_PORT: String(metrics), TEMPORAL_CORE_METRICS_PORT: String(metrics + 1) },
        `metrics and /healthz http://127.0.0.1:${metrics}`,
        () => httpOk(`http://127.0.0.1:${metrics}/healthz`),
      );
    };
    const api = (i: number): PartSpec => {
      const { name, url, adminUrl } = apiUrls[i]!;
      return node(
        name,
        'src/api.ts',
        { ...engineEnv, DATA_DIR: path.join(dir, name), PORT: String(port(8080 + 2 * i)), ADMIN_PORT: String(port(8081 + 2 * i)), ADMIN_HOST: '127.0.0.1' },
        `${url}/api/ (admin ${adminUrl})`,
        () => httpOk(`${url}/healthz`),
      );
    };
    // The first worker migrates the engine's database alone; the rest start together.
    await supervisor.start([worker(0)]);
    await supervisor.start([...Array.from({ length: workers - 1 }, (_, i) => worker(i + 1)), ...apiUrls.map((_, i) => api(i))]);
    supervisor.markReady();
    printTable(supervisor, { dir, adminUrl: apiUrls[0]!.adminUrl, frontend, adminUrlDb: pg.adminUrl });
  } catch (err) {
    if (stopping) return; // Ctrl-C while starting: the parts are being stopped already.
    log(`failed: ${(err as Error).message}`);
    await stop(1);
  }
}

/** The frontend serves once its gRPC health check says so (it answers "Not enough hosts" before). */
async function frontendServing(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    const res = await connection.healthService.check({ service: 'temporal.api.workflowservice.v1.WorkflowService' });
    return res.status === 1; // SERVING
  } finally {
    await connection.close();
  }
}

function printTable(supervisor: Supervisor, where: { dir: string; adminUrl: string; frontend: string; adminUrlDb: string }): void {
  const rows = [['part', 'pid', 'where'], ...supervisor.table()];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd(),
  );
  const rel = path.relative(process.cwd(), where.dir) || '.';
  console.log(
    [
      '',
      ...lines,
      '',
      `admin CLI:   ADMIN_URL=${where.adminUrl} DATA_DIR=${rel} npm run --silent admin -- partner create --name "Acme Travel" --topup 5000000 --json`,
      `Temporal:    temporal workflow list --address ${where.frontend} -q 'Stage="needs_attention"'`,
      `tests:       TEMPORAL_ADDRESS=${where.frontend} DATABASE_URL=${where.adminUrlDb} npm test`,
      `logs:        ${path.join(rel, 'logs')}/<part>.log   state: ${path.join(rel, 'state.json')}`,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  log(`failed: ${(err as Error).message}`);
  process.exit(1);
});
