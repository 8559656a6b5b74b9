import type { Client } from '@temporalio/client';
import type { Health, HealthReport } from '../health/model';
import type { Db } from '../db/client';
import type { SecretBox } from '../platform/secret-box';
import type { Suppliers } from '../suppliers';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import type { RateLimits } from './rate-limit';

export type { Health, HealthReport };

/**
 * What the HTTP layer needs; built once by the process entry point (or by a test). The
 * supplier adapters are what the API reads from (search, rate checks); changes go through workflows.
 */
export interface ApiDeps extends Pick<Suppliers, 'hotelSupplier' | 'flightSupplier'> {
  db: Db;
  temporal: Client;
  taskQueue: string;
  payWaitMs: number;
  /** The Temporal client shares this process's worker connection (npm start): payments start eagerly on that worker. */
  eagerStart?: boolean;
  /** What the worker of this same process tells of the runs it closes (npm start; src/temporal/outcomes.ts). */
  outcomes?: WorkflowOutcomes;
  sandbox: boolean;
  currency: string;
  /** How long unpaid holds we place ourselves last (tour seats, residence dates); how long the sandbox embassy takes. */
  holds: { tourPrebookMs: number; residenceMs: number; visaDecisionMs: number; hostAcceptMs: number };
  health: Health;
  /** Requests per minute per partner and interface (src/http/rate-limit.ts). */
  rateLimits: RateLimits;
  /** What webhook signing secrets are sealed with (src/runtime/secrets-key.ts). */
  secrets: SecretBox;
}

/** What a route hands the domain to start a workflow and wait for it within the pay bound. */
export const workflowDeps = (deps: ApiDeps) => ({
  db: deps.db,
  temporal: deps.temporal,
  taskQueue: deps.taskQueue,
  waitMs: deps.payWaitMs,
  ...(deps.outcomes ? { outcomes: deps.outcomes } : {}),
});
