import type { Client as TemporalClient } from '@temporalio/client';
import type { Health } from '../availability';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { createAdminApp } from '../http/admin/app';
import { createApp } from '../http/app';
import { createRateLimits } from '../http/rate-limit';
import type { MetricsSource } from '../http/metrics';
import { listen, type RunningServer } from '../platform/listen';
import { httpSuppliers } from '../suppliers';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { webhookSecrets } from './secrets-key';
import type { Stack } from './stack';

/** The public HTTP app (src/http/app.ts). */
export type PublicApp = ReturnType<typeof createApp>;
/** Adds routes to the public app after its own: they answer behind its whole stack (request id, logging, and each interface's middleware). */
export type PublicRoutes = (app: PublicApp) => void;

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
  },
  stack: Stack,
): Promise<{ api: RunningServer; admin: RunningServer }> {
  const secrets = webhookSecrets(config);
  const app = createApp({
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
  });
  deps.routes?.(app);
  const api = await listen(app.fetch, config.PORT, '0.0.0.0');
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
  return { api, admin };
}
