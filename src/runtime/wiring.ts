import type { LinkMail } from '../http/console-links';
import { smtpMailer } from '../platform/mailer';
import { parseAmount } from '../domain/money/money';
import type { Client as TemporalClient } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { ActivityDeps } from '../../activities';
import type { Health } from '../health/model';
import type { DocumentSettings } from '../domain/documents/issuer';
import type { ScheduleChangeSettings } from '../domain/flights/schedule-changes';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { placeIds } from '../db/place-ids';
import type { AdminDeps } from '../http/admin/app';
import type { ApiDeps } from '../http/deps';
import type { MetricsSource } from '../http/metrics';
import { clientAddressOf } from '../http/client-address';
import { createRateLimits, type RateBudgets } from '../http/rate-limit';
import type { SecretBox } from '../platform/secret-box';
import type { WebhookUrlPolicy } from '../platform/webhook-address';
import type { PricingDeps } from '../domain/money/pricing';
import { suppliersFor, type SupplierChoice, type Suppliers } from '../suppliers';
import { SupplierBreakers } from '../suppliers/breakers';
import { memoryBudget, sharedBudget } from '../domain/search/budget';
import { boundDerived, derivedBytes } from '../domain/search/derived';
import { createSearchLayer } from '../domain/search/layer';
import type { SearchSettings } from '../domain/search/settings';
import { sharedSearchAnswers } from '../domain/search/shared';
import { flightSearchesThrough, hotelSearchesThrough } from '../domain/search/suppliers';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { reportMemory } from '../platform/metrics';

/**
 * The composition root: how the engine's parts are wired to each other, from the
 * configuration and what a process has already opened. The processes (serve-http.ts,
 * worker/worker.ts) and the tests' stack (test/support/stack.ts) build their apps and
 * workers through these functions alone.
 */

/** What both APIs (the public and the admin one) are built on, opened or made once per process. */
export interface SharedApiDeps {
  database: Database;
  /** The API's Temporal client (src/temporal/connection.ts, temporalClient). */
  temporal: TemporalClient;
  health: Health;
  /** What webhook signing secrets are sealed with (./secrets-key.ts). */
  secrets: SecretBox;
  /** The circuit breakers of the suppliers' searches, which the API trips and the admin API shows. */
  breakers: SupplierBreakers;
}

/** The circuit breakers of the suppliers' searches (SUPPLIER_BREAKER_*). */
export const supplierBreakers = (config: Config): SupplierBreakers =>
  new SupplierBreakers({ failures: config.SUPPLIER_BREAKER_FAILURES, coolDownMs: config.SUPPLIER_BREAKER_COOL_DOWN_MS });

/** How supplier amounts are priced for partners: into CURRENCY, with rates no older than FX_RATE_MAX_AGE_HOURS. */
const pricingOf = (config: Config, db: PricingDeps['db'], codes: SecretBox): PricingDeps => ({
  db,
  currency: config.CURRENCY,
  catalogueCurrency: config.CURRENCY,
  maxRateAgeMs: config.FX_RATE_MAX_AGE_HOURS * 3_600_000,
  codes,
});

/** Where webhook endpoints may point: https outside the sandbox, private hosts only as WEBHOOK_ALLOWED_PRIVATE_HOSTS names them. */
const webhookUrlPolicy = (config: Config): WebhookUrlPolicy => ({ sandbox: config.SANDBOX, allowedPrivateHosts: config.WEBHOOK_ALLOWED_PRIVATE_HOSTS });

/** The rate limits' budgets (RATE_LIMIT_*). */
export const rateBudgets = (config: Config): RateBudgets => ({
  perMinute: config.RATE_LIMIT_PER_MINUTE,
  payRetriesPerMinute: config.RATE_LIMIT_PAY_RETRIES_PER_MINUTE,
  unauthenticatedPerMinute: config.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
  authFailuresPerMinute: config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
});

/** Which supplier sells what (FLIGHT_SUPPLIER, HOTEL_SUPPLIER; Duffel's token and address). */
const supplierChoice = (config: Config, simulatorUrl: string, database: Database): SupplierChoice => ({
  simulatorUrl,
  flights: config.FLIGHT_SUPPLIER,
  hotels: config.HOTEL_SUPPLIER,
  places: (supplier) => placeIds(database.db, supplier),
  callTimeoutMs: config.SUPPLIER_CALL_TIMEOUT_MS,
  ...(config.DUFFEL_ACCESS_TOKEN
    ? {
        duffel: {
          token: config.DUFFEL_ACCESS_TOKEN,
          timeoutMs: config.SUPPLIER_CALL_TIMEOUT_MS,
          ...(config.DUFFEL_API_URL ? { apiUrl: config.DUFFEL_API_URL } : {}),
        },
      }
    : {}),
});

/** The search layer's settings (SEARCH_*). */
export const searchSettings = (config: Config): SearchSettings => ({
  ttls: config.SEARCH_TTLS,
  staleSeconds: config.SEARCH_STALE_SECONDS,
  budgets: config.SEARCH_BUDGETS,
  queueMs: config.SEARCH_QUEUE_MS,
  deadlineMs: config.SEARCH_DEADLINE_MS,
  memoryBytes: config.SEARCH_CACHE_MB * 1024 * 1024,
});

/**
 * The suppliers the API searches, their searches through one search layer: kept in this
 * process's memory, and on PostgreSQL shared with every other API process (answers, claims
 * and the budget in the database); with PGlite this process is the only one.
 */
function searchingSuppliers(config: Config, database: Database, breakers: SupplierBreakers, suppliers: Suppliers): Suppliers {
  const shared = database.kind === 'postgres';
  const settings = searchSettings(config);
  boundDerived(settings.memoryBytes);
  const layer = createSearchLayer({
    settings,
    budget: shared ? sharedBudget(database.db) : memoryBudget(),
    shared: shared ? sharedSearchAnswers(database.db) : null,
    breakers,
  });
  reportMemory('search_cache', () => layer.keptBytes() + derivedBytes());
  return {
    ...suppliers,
    hotelSupplier: hotelSearchesThrough(layer, suppliers.hotelSupplier),
    flightSupplier: flightSearchesThrough(layer, suppliers.flightSupplier),
  };
}

/** The public API's dependencies (src/http/app.ts, createApp). */
/** Mailing the console's links: when SMTP_URL is set (PUBLIC_URL comes with it, src/config.ts). */
const linkMailOf = (config: Config): LinkMail | null =>
  config.SMTP_URL ? { mailer: smtpMailer(config.SMTP_URL, config.MAIL_FROM), publicUrl: config.PUBLIC_URL! } : null;

export function apiDependencies(
  config: Config,
  deps: SharedApiDeps & {
    /** The supplier the API reads from (search, rate checks). */
    supplierUrl: string;
    /** The client shares this process's worker connection, so payments can start eagerly. */
    eagerStart?: boolean;
    /** What the worker of this same process tells of the runs it closes. */
    outcomes?: WorkflowOutcomes;
  },
): ApiDeps {
  return {
    db: deps.database.db,
    temporal: deps.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    payWaitMs: config.PAY_WAIT_MS,
    ...(deps.eagerStart ? { eagerStart: true } : {}),
    ...(deps.outcomes ? { outcomes: deps.outcomes } : {}),
    sandbox: config.SANDBOX,
    currency: config.CURRENCY,
    ...(config.AGENCY_CONTACT_PHONE ? { agencyContactPhone: config.AGENCY_CONTACT_PHONE } : {}),
    pricing: pricingOf(config, deps.database.db, deps.secrets),
    holds: {
      tourPrebookMs: config.TOUR_PREBOOK_TTL_MS,
      residenceMs: config.RESIDENCE_HOLD_TTL_MS,
      visaDecisionMs: config.SANDBOX_VISA_DECISION_MS,
      hostAcceptMs: config.SANDBOX_HOST_ACCEPT_MS,
    },
    ...searchingSuppliers(config, deps.database, deps.breakers, suppliersFor(supplierChoice(config, deps.supplierUrl, deps.database))),
    health: deps.health,
    rateLimits: createRateLimits(deps.database, rateBudgets(config)),
    clientAddress: clientAddressOf(config.TRUSTED_PROXIES),
    secrets: deps.secrets,
    webhookUrls: webhookUrlPolicy(config),
    documents: documentSettings(config),
    linkMail: linkMailOf(config),
    ...(config.DUFFEL_WEBHOOK_SECRET ? { duffelWebhookSecret: config.DUFFEL_WEBHOOK_SECRET } : {}),
  };
}

/** What invoices and credit notes say of their issuer and of tax. */
export function documentSettings(config: Config): DocumentSettings {
  return {
    operator: {
      legalName: config.OPERATOR_LEGAL_NAME,
      ...(config.OPERATOR_ADDRESS ? { address: config.OPERATOR_ADDRESS } : {}),
      ...(config.OPERATOR_TAX_ID ? { taxId: config.OPERATOR_TAX_ID } : {}),
    },
    tax: { name: config.INVOICE_TAX_NAME, rateHundredths: config.INVOICE_TAX_RATE },
  };
}

/** The admin API's dependencies (src/http/admin/app.ts, createAdminApp). */
export function adminDependencies(
  config: Config,
  deps: SharedApiDeps & {
    adminToken: string;
    metrics: MetricsSource;
    payloadCodec: PayloadCodec;
    temporalUiOrigin?: string;
    /** The supplier simulator's URL: with it, operators can ask the airlines for schedule changes now. */
    supplierUrl?: string;
  },
): AdminDeps {
  return {
    ...(deps.supplierUrl ? { flightAfterSaleOf: suppliersFor(supplierChoice(config, deps.supplierUrl, deps.database)).flightAfterSaleOf } : {}),
    db: deps.database.db,
    temporal: deps.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    waitMs: config.PAY_WAIT_MS,
    residenceHoldMs: config.RESIDENCE_HOLD_TTL_MS,
    metrics: deps.metrics,
    adminToken: deps.adminToken,
    signIns: createRateLimits(deps.database, rateBudgets(config)).signIns,
    currency: config.CURRENCY,
    health: deps.health,
    breakers: deps.breakers,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    fxRateMaxAgeMs: pricingOf(config, deps.database.db, deps.secrets).maxRateAgeMs,
    adjustmentApprovalThresholdMinor: parseAmount('ADJUSTMENT_APPROVAL_THRESHOLD', config.ADJUSTMENT_APPROVAL_THRESHOLD, { allowZero: true }),
    secrets: deps.secrets,
    webhookUrls: webhookUrlPolicy(config),
    documents: documentSettings(config),
    linkMail: linkMailOf(config),
    payloadCodec: deps.payloadCodec,
    ...((config.TEMPORAL_UI_ORIGIN ?? deps.temporalUiOrigin) ? { temporalUiOrigin: config.TEMPORAL_UI_ORIGIN ?? deps.temporalUiOrigin } : {}),
  };
}

/** The worker's activities' dependencies (activities/index.ts, createActivities). */
export function workerDependencies(config: Config, deps: { database: Database; supplierUrl: string; secrets: SecretBox }): ActivityDeps {
  return {
    db: deps.database.db,
    pricing: pricingOf(config, deps.database.db, deps.secrets),
    ...suppliersFor(supplierChoice(config, deps.supplierUrl, deps.database)),
    finalizeAttempts: { default: config.FINALIZE_ATTEMPTS, byService: config.FINALIZE_ATTEMPTS_BY_SERVICE },
    webhooks: { urls: webhookUrlPolicy(config), secrets: deps.secrets },
    scheduleChanges: scheduleChangeSettings(config),
  };
}

/** How long partners have to decide on an airline's schedule change, and what happens when they do not (SCHEDULE_CHANGE_*). */
export const scheduleChangeSettings = (config: Config): ScheduleChangeSettings => ({
  decisionHours: config.SCHEDULE_CHANGE_DECISION_HOURS,
  reminderHours: config.SCHEDULE_CHANGE_REMINDER_HOURS,
  default: config.SCHEDULE_CHANGE_DEFAULT,
});
