import type { Client as TemporalClient } from '@temporalio/client';
import type { Health } from '../availability';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { createAdminApp } from '../http/admin/app';
import { createApp } from '../http/app';
import { createBareApp } from '../http/bare';
import { createRateLimits } from '../http/rate-limit';
import type { MetricsSource } from '../http/metrics';
import { listen, type RunningServer } from '../platform/listen';
import { httpSuppliers } from '../suppliers';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { webhookSecrets } from './secrets-key';
import type { Stack } from './stack';

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
  },
  stack: Stack,
): Promise<{ api: RunningServer; admin: RunningServer }> {
  const secrets = webhookSecrets(config);
  const api = await listen(
    createApp({
      db: deps.database.db,
      temporal: deps.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      payWaitMs: config.PAY_WAIT_MS,
      ...(deps.eagerStart ? { eagerStart: true } : {}),
      ...(deps.outcomes ? { outcomes: deps.outcomes } : {}),
      sandbox: config.SANDBOX,
      currency: config.CURRENCY,
      holds: {
        tourPrebookMs: config.TOUR_PREBOOK_TTL_MS,
        residenceMs: config.RESIDENCE_HOLD_TTL_MS,
        visaDecisionMs: config.SANDBOX_VISA_DECISION_MS,
        hostAcceptMs: config.SANDBOX_HOST_ACCEPT_MS,
      },
      ...httpSuppliers(deps.supplierUrl),
      health: deps.health,
      rateLimits: createRateLimits(deps.database, config.RATE_LIMIT_PER_MINUTE),
      secrets,
      ...(config.BENCH_BARE_PORT !== undefined ? { benchRoutes: true } : {}),
    }).fetch,
    config.PORT,
    '0.0.0.0',
  );
  stack.add(() => api.close());
  const admin = await listen(
    createAdminApp({
      db: deps.database.db,
      temporal: deps.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      waitMs: config.PAY_WAIT_MS,
      residenceHoldMs: config.RESIDENCE_HOLD_TTL_MS,
      metrics: deps.metrics,
      adminToken: deps.adminToken,
      currency: config.CURRENCY,
      health: deps.health,
      rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
      secrets,
    }).fetch,
    config.ADMIN_PORT,
    config.ADMIN_HOST,
  );
  stack.add(() => admin.close());
  if (config.BENCH_BARE_PORT !== undefined) {
    const floor = {
      temporal: deps.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      waitMs: config.PAY_WAIT_MS,
      ...(deps.eagerStart ? { eagerStart: true } : {}),
      ...(deps.outcomes ? { outcomes: deps.outcomes } : {}),
    };
    const bare = await listen(createBareApp(floor).fetch, config.BENCH_BARE_PORT, '127.0.0.1');
    stack.add(() => bare.close());
  }
  return { api, admin };
}
