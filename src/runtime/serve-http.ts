import { NEAR_LIMIT_WATCH_MS, nearLimitWatch } from '../http/admin/near-limit-watch';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Health } from '../health/model';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { createAdminApp } from '../http/admin/app';
import { createApp } from '../http/app';
import type { MetricsSource } from '../http/metrics';
import fs from 'node:fs';
import { isLoopbackHost, listen, type RunningServer, type TlsFiles } from '../platform/listen';
import { logger } from '../platform/log';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { temporalPayloadCodec } from './payload-key';
import { webhookSecrets } from './secrets-key';
import type { ShutdownList } from '../platform/shutdown-list';
import { adminDependencies, apiDependencies, supplierBreakers, type SharedApiDeps } from './wiring';

/** The public HTTP app (src/http/app.ts). */
export type PublicApp = ReturnType<typeof createApp>;
/** Adds routes to the public app after its own: they answer behind its whole stack (request id, logging, and each interface's middleware). */
export type PublicRoutes = (app: PublicApp) => void;

/**
 * The admin API's certificate and key (ADMIN_TLS_CERT, ADMIN_TLS_KEY), read at start-up; none
 * on plain HTTP, which the configuration allows off loopback only with ADMIN_ALLOW_PLAIN_HTTP
 * (src/config.ts), said here as a warning.
 */
export function adminTls(config: Pick<Config, 'ADMIN_HOST' | 'ADMIN_TLS_CERT' | 'ADMIN_TLS_KEY'>): TlsFiles | undefined {
  if (config.ADMIN_TLS_CERT && config.ADMIN_TLS_KEY) {
    return { cert: fs.readFileSync(config.ADMIN_TLS_CERT), key: fs.readFileSync(config.ADMIN_TLS_KEY) };
  }
  if (!isLoopbackHost(config.ADMIN_HOST)) {
    logger.warn(
      { host: config.ADMIN_HOST },
      'the admin API serves plain HTTP off loopback (ADMIN_ALLOW_PLAIN_HTTP=true): operator tokens cross the network in clear',
    );
  }
  return undefined;
}

/** Serves the public API on PORT (all interfaces) and the admin API on ADMIN_HOST:ADMIN_PORT. */
export async function serveHttp(
  config: Config,
  deps: {
    database: Database;
    temporal: TemporalClient;
    health: Health;
    adminToken: string;
    supplierUrl: string;
    metrics: MetricsSource;
    /** The client shares this process's worker connection, so payments can start eagerly. */
    eagerStart?: boolean;
    /** What the worker of this same process tells of the runs it closes. */
    outcomes?: WorkflowOutcomes;
    /** Routes a composing entry point adds to the public app. */
    routes?: PublicRoutes;
    /** The Temporal Web UI of the dev server this process started, allowed to call the codec endpoint (unless TEMPORAL_UI_ORIGIN says another). */
    temporalUiUrl?: string | null;
  },
  shutdown: ShutdownList,
): Promise<{ api: RunningServer; admin: RunningServer }> {
  const shared: SharedApiDeps = {
    database: deps.database,
    temporal: deps.temporal,
    health: deps.health,
    secrets: webhookSecrets(config),
    breakers: supplierBreakers(config),
  };
  const watchNearLimit = nearLimitWatch(deps.database.db);
  const watching = setInterval(() => void watchNearLimit(), NEAR_LIMIT_WATCH_MS).unref();
  shutdown.add(async () => clearInterval(watching));
  const app = createApp(apiDependencies(config, { ...shared, supplierUrl: deps.supplierUrl, eagerStart: deps.eagerStart, outcomes: deps.outcomes }));
  deps.routes?.(app);
  const api = await listen(app.fetch, config.PORT, '0.0.0.0');
  shutdown.add(() => api.close());
  const admin = await listen(
    createAdminApp({
      ...adminDependencies(config, {
        ...shared,
        adminToken: deps.adminToken,
        metrics: deps.metrics,
        payloadCodec: temporalPayloadCodec(config),
        supplierUrl: deps.supplierUrl,
        ...(deps.temporalUiUrl ? { temporalUiOrigin: deps.temporalUiUrl } : {}),
      }),
      nearLimitWatch: watchNearLimit,
    }).fetch,
    config.ADMIN_PORT,
    config.ADMIN_HOST,
    { tls: adminTls(config) },
  );
  shutdown.add(() => admin.close());
  return { api, admin };
}
