import path from 'node:path';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { Availability } from '../health/model';
import { engineClientInterceptors } from './availability';
import { resolveTemporalCli } from './cli';
import { startDevServer } from './dev-server';
import { CODEC_ENDPOINT_PATH, engineDataConverter } from './payload-codec';
import { ensureSearchAttributes } from './search-attributes';
import { temporalTls, type TemporalTlsSettings } from './tls';

/** The settings (src/config.ts) that say which Temporal to use, or which dev server to start. */
export interface TemporalSettings extends TemporalTlsSettings {
  TEMPORAL_NAMESPACE: string;
  TEMPORAL_CONNECT_TIMEOUT_MS: number;
  TEMPORAL_CLI_PATH?: string | undefined;
  TEMPORAL_DEV_PORT: number;
  TEMPORAL_UI_PORT: number;
  DATA_DIR: string;
  /** The admin API, whose codec endpoint the dev server's Web UI calls (port 0: none). */
  ADMIN_HOST: string;
  ADMIN_PORT: number;
}

/** The settings (src/config.ts) of the API's Temporal client. */
export interface TemporalClientSettings {
  TEMPORAL_NAMESPACE: string;
  TEMPORAL_CALL_TIMEOUT_MS: number;
}

export interface TemporalEndpoint {
  address: string;
  uiUrl: string | null;
  /** The dev server's process id, when this process started one (its stop is on the caller's shutdown list). */
  pid?: number;
}

/**
 * A cluster whose services were just started answers "Not enough hosts to serve the
 * request" until the frontend, history and matching have all joined (about 20 s), and a
 * restarted one refuses connections for a moment: wait for it, up to `timeoutMs`. A
 * namespace that does not exist is an operator's step, not something to wait for.
 */
async function connectToCluster(
  address: string,
  namespace: string,
  timeoutMs: number,
  log: (msg: string) => void,
  tls: TLSConfig | undefined,
): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  let waiting = false;
  for (;;) {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 5000, tls });
      await connection.workflowService.describeNamespace({ namespace });
      return connection;
    } catch (err) {
      await connection?.close();
      if (isNotFound(err)) {
        throw new Error(
          `namespace ${namespace} does not exist on the Temporal cluster at ${address}: create it with ` +
            `\`temporal operator namespace create -n ${namespace} --retention 72h --address ${address}\` (or scripts/cluster/temporal/setup.sh namespace)`,
        );
      }
      if (Date.now() > deadline)
        throw new Error(`the Temporal cluster at ${address} did not answer within ${Math.round(timeoutMs / 1000)} s: ${(err as Error).message}`);
      if (!waiting) log(`waiting for the Temporal cluster at ${address}: ${(err as Error).message}`);
      waiting = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** gRPC status 5, NOT_FOUND. */
const isNotFound = (err: unknown) => (err as { code?: number }).code === 5;

/**
 * TEMPORAL_ADDRESS set: use that cluster (registering the search attributes if missing).
 * Unset: start the Temporal CLI dev server, persisted under DATA_DIR, and register its stop
 * on `shutdown` the moment it is spawned (a stop during its start-up ends it as well);
 * `onSpawn` learns its process id then.
 */
export async function ensureTemporal(
  config: TemporalSettings,
  log: (msg: string) => void,
  shutdown: { add(stop: () => Promise<unknown>): void },
  onSpawn?: (pid: number) => void,
): Promise<TemporalEndpoint> {
  if (config.TEMPORAL_ADDRESS) {
    const connection = await connectToCluster(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE, config.TEMPORAL_CONNECT_TIMEOUT_MS, log, temporalTls(config));
    try {
      await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE, { log, timeoutMs: config.TEMPORAL_CONNECT_TIMEOUT_MS });
    } finally {
      await connection.close();
    }
    return { address: config.TEMPORAL_ADDRESS, uiUrl: null };
  }
  const cli = await resolveTemporalCli(config.TEMPORAL_CLI_PATH, log);
  log(`starting the Temporal dev server (${cli})`);
  return startDevServer({
    cli,
    port: config.TEMPORAL_DEV_PORT,
    uiPort: config.TEMPORAL_UI_PORT,
    dbFile: devServerDbFile(config.DATA_DIR),
    namespace: config.TEMPORAL_NAMESPACE,
    log,
    sqlitePragmas: DEV_SERVER_SQLITE_PRAGMAS,
    // Eager start: npm start's API shares its worker's connection and starts payments on it.
    dynamicConfig: [...DEV_SERVER_DYNAMIC_CONFIG, 'system.enableEagerWorkflowStart=true'],
    ...(config.ADMIN_PORT !== 0 ? { uiCodecEndpoint: devCodecEndpoint(config.ADMIN_HOST, config.ADMIN_PORT) } : {}),
    shutdown,
    ...(onSpawn ? { onSpawn } : {}),
  });
}

/**
 * The admin API's codec endpoint as the dev server's Web UI calls it from the browser: on the
 * same host name as the UI (127.0.0.1), so the codec cookie (src/http/admin/codec.ts) counts as
 * the same site.
 */
export function devCodecEndpoint(adminHost: string, adminPort: number): string {
  const host = adminHost === '0.0.0.0' || adminHost === '::' || adminHost === '127.0.0.1' ? '127.0.0.1' : adminHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${adminPort}${CODEC_ENDPOINT_PATH}`;
}

/**
 * The dev server's SQLite file (`npm start`): a write-ahead log, synced at checkpoints. A
 * crash of the machine may lose the last moments of the dev server's history; a crash of
 * the process does not.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/**
 * The dev server's dynamic configuration:
 * - it keeps the search attributes' definitions in its cache instead of reading them from
 *   its database on every start, task completion and visibility write (the CLI's own
 *   setting, so that attributes added while it runs show at once): the engine registers
 *   its attributes before the server starts and adds none while it runs;
 * - it dispatches activities eagerly: a worker completing a workflow task that schedules an
 *   activity on its own task queue (a payment's supplier step) gets that activity's task
 *   in the answer, not through the server's matching;
 * - its task queues (transfer, timer, visibility) checkpoint every second instead of every
 *   30: the dev server has one history shard, so every workflow's tasks go through the same
 *   queues, and a queue keeps each task it ran in memory until its next checkpoint; at a
 *   hundred payments a second that is thousands, which the queue walks again as new tasks
 *   arrive (its slices' split), at a cost that comes and goes with the checkpoint. A
 *   checkpoint is one write of the shard's state. A cluster spreads its tasks over its
 *   shards (512 in scripts/cluster) and keeps Temporal's default.
 */
export const DEV_SERVER_DYNAMIC_CONFIG = [
  'system.forceSearchAttributesCacheRefreshOnRead=false',
  'system.enableActivityEagerExecution=true',
  'history.transferProcessorUpdateAckInterval="1s"',
  'history.timerProcessorUpdateAckInterval="1s"',
  'history.visibilityProcessorUpdateAckInterval="1s"',
];

/** The compression a worker's connection asks for: none to a Temporal on this machine (a loopback address), where compressing only costs CPU on both ends; gzip otherwise. */
export function grpcCompression(address: string): 'gzip' | 'none' {
  const host = address.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) ? 'none' : 'gzip';
}

/** The dev server's database in DATA_DIR: it also tells a server of this DATA_DIR from any other. */
export const devServerDbFile = (dataDir: string) => path.join(dataDir, 'temporal.db');

/**
 * The API's connection to Temporal: its own (over TLS when `tls` is given), or
 * `workerConnection` (the worker's, in `npm start`) when it should start workflows eagerly on
 * that worker.
 */
export async function temporalConnection(
  address: string,
  shutdown: { add(stop: () => Promise<unknown>): void },
  workerConnection?: NativeConnection,
  tls?: TLSConfig,
): Promise<Connection | NativeConnection> {
  if (workerConnection) return workerConnection;
  const own = await Connection.connect({ address, tls });
  shutdown.add(() => own.close());
  return own;
}

/**
 * The engine's Temporal client: refuses what a part that is down cannot serve
 * (./availability.ts), and encrypts every payload it sends with `codec` (./payload-codec.ts).
 */
export function temporalClient(
  config: TemporalClientSettings,
  connection: Connection | NativeConnection,
  availability: Availability,
  codec: PayloadCodec,
): Client {
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: engineDataConverter(codec),
    interceptors: engineClientInterceptors(availability, connection, config.TEMPORAL_CALL_TIMEOUT_MS),
  });
}
