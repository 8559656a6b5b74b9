import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_FINALIZE_ATTEMPTS, MAX_FINALIZE_ATTEMPTS } from '../workflows/activity-options';
import { ORDER_SERVICES } from './db/schema';
import { currencyDefinition } from './platform/currency';
import { MINOR_DIGITS } from './domain/money/money';
import { MAX_RATE_LIMIT_PER_MINUTE } from './domain/partners';
import { parseAddressSet } from './platform/addresses';
import { envMs } from './platform/env';
import { isLoopbackHost } from './platform/listen';
import { MIN_BOOTSTRAP_TOKEN_LENGTH } from './domain/operator-tokens';
import { parseSecretKey, parseSecretKeys } from './platform/secret-box';
import { parseAllowedHosts } from './platform/webhook-address';
import { SIMULATOR_SETTINGS } from './suppliers/simulator/settings';
import { SEARCH_BUDGET_DEFAULTS, SEARCH_TTL_DEFAULTS } from './domain/search/settings';

type Service = (typeof ORDER_SERVICES)[number];

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => ['true', '1', 'yes', 'on'].includes(v));
const port = z.coerce.number().int().min(0).max(65535);
const finalizeAttempts = z.coerce.number().int().min(1).max(MAX_FINALIZE_ATTEMPTS);
const perMinute = z.coerce.number().int().min(1).max(MAX_RATE_LIMIT_PER_MINUTE);

/**
 * `name=number` pairs, comma-separated, over `defaults`: each must match `pattern` (its first
 * group the name, its second the number), else the setting is refused saying `form`.
 */
const settingPairs = (defaults: Readonly<Record<string, number>>, pattern: RegExp, form: string) =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      const pairs: Record<string, number> = { ...defaults };
      for (const part of v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const m = pattern.exec(part);
        if (!m) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not ${form}` });
          return z.NEVER;
        }
        pairs[m[1]!] = Number(m[2]);
      }
      return pairs;
    });

/**
 * Every setting the engine reads, parsed once at start-up. Defaults make
 * `npm start` work on a fresh clone; production overrides them. docs/configuration.md
 * lists them all (test/unit/configuration-table.test.ts keeps it true).
 */
const ConfigSchema = z
  .object({
    PORT: port.default(8080),
    ADMIN_PORT: port.default(8081),
    /** Loopback unless TLS is configured or ADMIN_ALLOW_PLAIN_HTTP is true (refused at start-up otherwise). */
    ADMIN_HOST: z.string().default('127.0.0.1'),
    /** The bootstrap operator's token; named operators get their own (`admin operator add`). */
    ADMIN_TOKEN: z.string().min(MIN_BOOTSTRAP_TOKEN_LENGTH, `must be at least ${MIN_BOOTSTRAP_TOKEN_LENGTH} characters (openssl rand -base64 32)`).optional(),
    /** The admin API over HTTPS: PEM files of its certificate (chain) and private key. */
    ADMIN_TLS_CERT: z.string().optional(),
    ADMIN_TLS_KEY: z.string().optional(),
    /** Serves the admin API in plain HTTP on a non-loopback ADMIN_HOST (a private network, a TLS proxy in front); logged as a warning. */
    ADMIN_ALLOW_PLAIN_HTTP: bool.default(false),
    /**
     * The key webhook signing secrets are sealed under in the database (base64 of 32 bytes:
     * `openssl rand -base64 32`); the same in every API and worker process. Unset: the key in
     * DATA_DIR/webhook-secrets-key, made on the first start (src/runtime/secrets-key.ts).
     */
    WEBHOOK_SECRETS_KEY: z
      .string()
      .refine((v) => parseSecretKey(v) !== null, 'must be base64 of 32 bytes (openssl rand -base64 32)')
      .optional(),
    /**
     * While WEBHOOK_SECRETS_KEY is being changed: the old key (or keys, comma-separated). Secrets
     * sealed under them are opened, and sealed again under WEBHOOK_SECRETS_KEY at start-up
     * (docs/operations.md, "The webhook secrets key").
     */
    WEBHOOK_SECRETS_PREVIOUS_KEYS: z
      .string()
      .refine((v) => parseSecretKeys(v) !== null, 'must be base64 keys of 32 bytes, comma-separated')
      .optional(),
    /**
     * The key travellers' personal data is sealed under in the database (base64 of 32 bytes:
     * `openssl rand -base64 32`); the same in every API and worker process. Unset: the key in
     * DATA_DIR/personal-data-key, made on the first start (src/runtime/personal-data-key.ts).
     */
    PERSONAL_DATA_KEY: z
      .string()
      .refine((v) => parseSecretKey(v) !== null, 'must be base64 of 32 bytes (openssl rand -base64 32)')
      .optional(),
    /**
     * While PERSONAL_DATA_KEY is being changed: the old key (or keys, comma-separated). Data
     * sealed under them is opened, and sealed again under PERSONAL_DATA_KEY by the workers'
     * upkeep (docs/operations.md, "Travellers' personal data").
     */
    PERSONAL_DATA_PREVIOUS_KEYS: z
      .string()
      .refine((v) => parseSecretKeys(v) !== null, 'must be base64 keys of 32 bytes, comma-separated')
      .optional(),
    /** Days after a trip ends (check-out, the last flight's arrival, the tour's last day, the visa's travel end) when its travellers' personal data is erased. */
    PERSONAL_DATA_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    DATA_DIR: z.string().default('.data'),
    DATABASE_URL: z.string().url().optional(),
    /** The embedded database (no DATABASE_URL): how often tables are checked for vacuum and analyze (0: never). */
    PGLITE_MAINTENANCE_INTERVAL_S: z.coerce.number().int().min(0).max(86_400).default(300),
    TEMPORAL_ADDRESS: z.string().optional(),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('booking-engine'),
    TEMPORAL_CLI_PATH: z.string().optional(),
    /**
     * The key every payload the engine gives Temporal is encrypted under (base64 of 32 bytes:
     * `openssl rand -base64 32`); the same in every API and worker process. Unset: the key in
     * DATA_DIR/temporal-payload-key, made on the first start (src/runtime/payload-key.ts).
     */
    TEMPORAL_PAYLOAD_KEY: z
      .string()
      .refine((v) => parseSecretKey(v) !== null, 'must be base64 of 32 bytes (openssl rand -base64 32)')
      .optional(),
    /**
     * Older payload keys (comma-separated), kept while histories written under them are read:
     * they decrypt, TEMPORAL_PAYLOAD_KEY encrypts (docs/operations.md, "The Temporal payload key").
     */
    TEMPORAL_PAYLOAD_PREVIOUS_KEYS: z
      .string()
      .refine((v) => parseSecretKeys(v) !== null, 'must be base64 keys of 32 bytes, comma-separated')
      .optional(),
    /** Connect to TEMPORAL_ADDRESS over TLS (implied by any TEMPORAL_TLS_* file below). */
    TEMPORAL_TLS: bool.default(false),
    /** The CA certificate (PEM file) the Temporal frontend's certificate is checked against; unset: the system's. */
    TEMPORAL_TLS_CA: z.string().optional(),
    /** mTLS: this client's certificate and private key (PEM files), both or neither. */
    TEMPORAL_TLS_CERT: z.string().optional(),
    TEMPORAL_TLS_KEY: z.string().optional(),
    /** The name the frontend's certificate is checked for, when it is not TEMPORAL_ADDRESS's host. */
    TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
    /** The origin of the Temporal Web UI allowed to call the admin API's codec endpoint (CORS), e.g. http://127.0.0.1:8233. */
    TEMPORAL_UI_ORIGIN: z.string().url().optional(),
    /** With TEMPORAL_ADDRESS: how long start-up waits for the cluster (and its search attributes) to be usable. */
    TEMPORAL_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
    TEMPORAL_DEV_PORT: port.default(7233),
    TEMPORAL_UI_PORT: port.default(8233),
    SUPPLIER_URL: z.string().url().optional(),
    /** Who sells the flights: the simulator (at SUPPLIER_URL, or built in) or Duffel (DUFFEL_ACCESS_TOKEN, DUFFEL_API_URL). */
    FLIGHT_SUPPLIER: z.enum(['simulator', 'duffel']).default('simulator'),
    /** Who sells the hotels: the simulator (at SUPPLIER_URL, or built in) or Duffel Stays (DUFFEL_ACCESS_TOKEN, DUFFEL_API_URL). */
    HOTEL_SUPPLIER: z.enum(['simulator', 'duffel']).default('simulator'),
    /**
     * How long a supplier's search answer is served from the search layer's cache, per
     * supplier and service, in seconds: `<supplier>.<hotels|flights>=<seconds>` pairs over the
     * defaults (SEARCH_TTL_DEFAULTS); 0 never caches that one. A flight offer's own expiry
     * shortens it.
     */
    SEARCH_TTLS: settingPairs(SEARCH_TTL_DEFAULTS, /^([a-z][a-z0-9_-]*\.(?:hotels|flights))\s*=\s*(\d{1,6})$/, '<supplier>.<hotels|flights>=<seconds>'),
    /** How long past its time to live a cached search answer may still be served while a fresh one is fetched (seconds; 0: never). */
    SEARCH_STALE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
    /**
     * Searches a second each supplier may be sent, across every API process:
     * `<supplier>=<per second>` pairs over the defaults (SEARCH_BUDGET_DEFAULTS); 0: no budget.
     */
    SEARCH_BUDGETS: settingPairs(SEARCH_BUDGET_DEFAULTS, /^([a-z][a-z0-9_-]*)\s*=\s*(\d{1,5}(?:\.\d{1,3})?)$/, '<supplier>=<searches per second>'),
    /** How long a search may wait for its supplier's budget before it is refused (503 with Retry-After), in ms. */
    SEARCH_QUEUE_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
    /**
     * Memory each API process gives its copy of the search cache's answers, and as much again
     * what it makes of them for partners, in MiB: a bound, filled only by distinct searches.
     */
    SEARCH_CACHE_MB: z.coerce.number().int().min(1).max(4_096).default(1_024),
    /**
     * How long one call to a supplier (the simulator or Duffel) may take before it counts as
     * unanswered, in ms: a booking's, a payment's or a cancellation's call is then looked up
     * by its step, never guessed.
     */
    SUPPLIER_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
    /**
     * How long a search may take at its supplier, in ms, everything included (its reference
     * list, the search, the supplier's retries); past it the search answers 503 with Retry-After.
     */
    SEARCH_DEADLINE_MS: z.coerce.number().int().min(100).max(60_000).default(20_000),
    /** Timeouts, 5xx or unanswered calls in a row that open a supplier operation's circuit breaker (its searches, its reference lists). */
    SUPPLIER_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1_000).default(5),
    /** How long an open breaker answers 503 at once before one probe goes through, in ms. */
    SUPPLIER_BREAKER_COOL_DOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** A Duffel access token (`duffel_test_…` for Duffel's test mode); required when a supplier is `duffel`. */
    DUFFEL_ACCESS_TOKEN: z.string().optional(),
    /** The phone number Interface B's hotel bookings give a supplier that requires one (Duffel Stays): that interface carries none. */
    AGENCY_CONTACT_PHONE: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in international form, e.g. +982112345678')
      .optional(),
    /** The issuing entity of invoices and credit notes (the engine's company): its legal name, address and tax id, printed as the seller. */
    OPERATOR_LEGAL_NAME: z.string().trim().min(1).max(200).default('Travel Booking Engine Operator'),
    OPERATOR_ADDRESS: z.string().trim().max(500).optional(),
    OPERATOR_TAX_ID: z.string().trim().max(100).optional(),
    /** The tax invoices state (its name, and its rate in percent with up to two decimals, included in the prices); 0: no tax line's amount. */
    INVOICE_TAX_NAME: z.string().trim().min(1).max(40).default('VAT'),
    INVOICE_TAX_RATE: z
      .string()
      .regex(/^(\d{1,2})(\.\d{1,2})?$/, 'must be a percent from 0 to 99.99 with at most two decimals, e.g. 9 or 7.5')
      .default('0')
      .transform((v) => Math.round(Number(v) * 100)),
    /** Duffel's API origin; unset: Duffel's production address, the SDK's own default. */
    DUFFEL_API_URL: z.string().url().optional(),
    /** The secret of our webhook at Duffel, which signs what it sends to POST /webhooks/duffel; unset: that route answers 404. */
    DUFFEL_WEBHOOK_SECRET: z.string().min(16, 'must be the webhook secret Duffel gave (at least 16 characters)').optional(),
    /**
     * Airline schedule changes (docs/decisions/schedule-changes.md): the partner decides until
     * this many hours before the first departure (at once when that has passed), is reminded
     * this many hours before that deadline, and past it the default is applied. Decimals allowed.
     */
    SCHEDULE_CHANGE_DECISION_HOURS: z.coerce.number().min(0).max(8760).default(48),
    SCHEDULE_CHANGE_REMINDER_HOURS: z.coerce.number().min(0).max(8760).default(24),
    SCHEDULE_CHANGE_DEFAULT: z.enum(['accept', 'cancel']).default('accept'),
    /** How often a worker asks the airlines for the changes to orders still to fly (catching what a lost webhook missed), in minutes; 0: never. */
    SCHEDULE_CHANGE_POLL_MINUTES: z.coerce.number().min(0).max(1440).default(30),
    /** `npm run worker`'s Prometheus endpoint (its own series and the Temporal Core metrics); 0: none. */
    WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
    WORKER_METRICS_PORT: port.default(9464),
    /** The Temporal Core exporter inside a worker process, on loopback, read by that process only; 0: off. */
    TEMPORAL_CORE_METRICS_PORT: port.default(9465),
    /** Worker capacity (unset: the SDK's defaults). */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).optional(),
    WORKER_WORKFLOW_TASK_POLLERS: z.coerce.number().int().min(2).optional(),
    WORKER_ACTIVITY_TASK_POLLERS: z.coerce.number().int().min(1).optional(),
    /**
     * A worker is a version of a worker deployment (docs/decisions/workflow-versioning.md): the
     * deployment's name, and the version's build id (unset: derived from the workflow code, so
     * workers of the same code are one version and any change to it is a new one).
     */
    WORKER_DEPLOYMENT_NAME: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'letters, digits, _ and -, at most 100')
      .default('booking-engine'),
    WORKER_BUILD_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$/, 'letters, digits, . _ + and -, at most 100')
      .optional(),
    /**
     * A worker whose version was never current makes it current once it polls; new runs start
     * on it, and the pinned runs of the older version finish there. false: a deploy step does it.
     */
    WORKER_BECOMES_CURRENT: bool.default(true),
    ...SIMULATOR_SETTINGS,
    SANDBOX: bool.optional(),
    /**
     * Webhooks (docs/webhooks.md). Endpoints may not point to loopback, private, link-local or
     * metadata addresses, in the sandbox too, unless their host is named here (comma-separated
     * host names or addresses, as written in the endpoint's URL): an operator's opt-in, e.g.
     * `127.0.0.1` for a receiver on this machine (src/platform/webhook-address.ts).
     */
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: z
      .string()
      .default('')
      .transform((v) => parseAllowedHosts(v)),
    /** A failed delivery waits this long before its next attempt, doubling each time up to WEBHOOK_RETRY_MAX_MS. */
    WEBHOOK_RETRY_INITIAL_MS: envMs(100, 10 * 1000),
    WEBHOOK_RETRY_MAX_MS: envMs(100, 60 * 60 * 1000),
    /** How long one event is tried before its endpoint is disabled (3 days). */
    WEBHOOK_GIVE_UP_MS: envMs(1000, 3 * 24 * 60 * 60 * 1000),
    /** How long a receiver has to answer one attempt. */
    WEBHOOK_ATTEMPT_TIMEOUT_MS: envMs(100, 10 * 1000),
    /** How often a worker looks for new deliveries to wake their endpoint's workflow for. */
    WEBHOOK_RELAY_INTERVAL_MS: envMs(50, 1000),
    /** How long events (with their deliveries and attempts) are kept, in days; an event still owed to an endpoint stays until settled. */
    EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    TOUR_PREBOOK_TTL_MS: envMs(1000, 20 * 60 * 1000),
    RESIDENCE_HOLD_TTL_MS: envMs(1000, 15 * 60 * 1000),
    SANDBOX_HOST_ACCEPT_MS: envMs(0, 30 * 1000),
    SANDBOX_VISA_DECISION_MS: envMs(0, 60 * 1000),
    PAY_WAIT_MS: z.coerce.number().int().min(0).default(25000),
    /** Requests per minute per partner on each interface (A and B counted apart), unless an operator set the partner's own. */
    RATE_LIMIT_PER_MINUTE: perMinute.default(600),
    /**
     * Per partner: pay requests that repeat an idempotency key already bound to their order
     * (a retry learning its payment's outcome), counted in a bucket of their own.
     */
    RATE_LIMIT_PAY_RETRIES_PER_MINUTE: perMinute.default(600),
    /**
     * Per client address, across both interfaces: requests without valid credentials, and
     * of those, the ones whose credentials were presented and wrong. Over either, every such
     * request from the address answers 429 until its minute ends; valid credentials from it
     * are still served, in their partner's own limit.
     */
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: perMinute.default(300),
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: perMinute.default(30),
    /**
     * Proxies whose X-Forwarded-For names the client (comma-separated addresses and CIDR
     * networks); unset: none, the socket's peer is the client.
     */
    TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const set = parseAddressSet(v);
        if (set) return set;
        ctx.addIssue({ code: 'custom', message: 'must be IP addresses or CIDR networks, comma-separated (e.g. 10.0.0.0/8,192.0.2.7)' });
        return z.NEVER;
      }),
    /**
     * Every process checks the database, Temporal and the workers in the background every
     * HEALTH_INTERVAL_MS; a check without an answer within HEALTH_TIMEOUT_MS counts as down.
     * Requests that need a part reported down answer 503 at once.
     */
    HEALTH_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
    HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
    /** How often a worker process stamps its heartbeat; the API counts a worker gone after 3 missed ones. */
    WORKER_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
    /** How long a request waits for a PostgreSQL connection (a new one, or a free one of the pool's). */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
    /** The deadline of the API's calls that start, signal, query or describe a workflow. */
    TEMPORAL_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    /**
     * How many times a payment's supplier step (ship, confirm, ticket, submit) is tried before
     * its outcome counts as unknown and the supplier is asked by client reference (then, if
     * it cannot tell, the payment parks in needs_attention). With the 1 s doubling backoff:
     * 3 ≈ 3 s, 5 ≈ 15 s, 7 ≈ 75 s, 10 ≈ 2.5 min. FINALIZE_ATTEMPTS_BY_SERVICE overrides it
     * per service, e.g. `flight:8,product:3`.
     */
    FINALIZE_ATTEMPTS: finalizeAttempts.default(DEFAULT_FINALIZE_ATTEMPTS),
    FINALIZE_ATTEMPTS_BY_SERVICE: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const budget: Partial<Record<Service, number>> = {};
        for (const part of v
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)) {
          const [service, n] = part.split(':').map((x) => x.trim());
          const attempts = finalizeAttempts.safeParse(n);
          if (!ORDER_SERVICES.includes(service as Service) || !attempts.success) {
            ctx.addIssue({
              code: 'custom',
              message: `"${part}" is not <service>:<attempts> with a service of ${ORDER_SERVICES.join('|')} and 1..${MAX_FINALIZE_ATTEMPTS} attempts`,
            });
            return z.NEVER;
          }
          budget[service as Service] = attempts.data;
        }
        return budget;
      }),
    /** The default wallet currency of a new agency, and the currency of the engine's own catalogue (docs/decisions/currency-conversion.md). */
    CURRENCY: z
      .string()
      .regex(/^[A-Z]{3}$/, 'a three-letter currency code')
      .refine(
        (c) => currencyDefinition(c)?.exponent === MINOR_DIGITS,
        `a currency of ${MINOR_DIGITS} minor digits (the wallet keeps ${MINOR_DIGITS}): IRT, or an ISO 4217 code such as EUR`,
      )
      .default('IRT'),
    /**
     * The largest manual wallet adjustment one operator posts alone, in units of CURRENCY
     * (src/domain/money/adjustments.ts; a wallet in another currency is measured through the latest
     * rate); a larger one waits for a second operator's approval.
     */
    ADJUSTMENT_APPROVAL_THRESHOLD: z
      .string()
      .regex(/^\d{1,13}(\.\d{1,2})?$/, 'a non-negative amount in CURRENCY units, at most two decimals, e.g. 1000000 or 2500.50')
      .default('1000000'),
    /** How old an exchange rate may be and still price a sale in the wallet currency (src/domain/money/fx.ts); an older one refuses it. */
    FX_RATE_MAX_AGE_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(24),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    /** Where the console's one-time links are mailed from (src/platform/mailer.ts); unset: links are only shown to whoever made them. */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/\S+$/, 'an smtp:// or smtps:// address, e.g. smtp://user:password@mail.example.com:587')
      .optional(),
    MAIL_FROM: z.string().trim().min(3).max(200).default('Booking console <no-reply@localhost>'),
    /** The address people reach Interface A and the agency console at (https://travel.example.com): what mailed links point to. */
    PUBLIC_URL: z
      .string()
      .regex(/^https?:\/\/[^/\s]+$/, 'an origin: http(s)://host[:port], no path')
      .optional(),
  })
  .refine((c) => c.SMTP_URL === undefined || c.PUBLIC_URL !== undefined, {
    path: ['PUBLIC_URL'],
    message: 'is required with SMTP_URL: a mailed link needs the address people open the console at',
  })
  .refine((c) => c.FLIGHT_SUPPLIER !== 'duffel' || c.DUFFEL_ACCESS_TOKEN !== undefined, {
    path: ['DUFFEL_ACCESS_TOKEN'],
    message: 'is required with FLIGHT_SUPPLIER=duffel (a Duffel access token; duffel_test_… for its test mode)',
  })
  .refine((c) => c.HOTEL_SUPPLIER !== 'duffel' || c.DUFFEL_ACCESS_TOKEN !== undefined, {
    path: ['DUFFEL_ACCESS_TOKEN'],
    message: 'is required with HOTEL_SUPPLIER=duffel (a Duffel access token; duffel_test_… for its test mode)',
  })
  .refine((c) => (c.TEMPORAL_TLS_CERT === undefined) === (c.TEMPORAL_TLS_KEY === undefined), {
    path: ['TEMPORAL_TLS_KEY'],
    message: 'mTLS takes both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (a certificate and its private key), or neither',
  })
  .refine((c) => (c.ADMIN_TLS_CERT === undefined) === (c.ADMIN_TLS_KEY === undefined), {
    path: ['ADMIN_TLS_KEY'],
    message: 'ADMIN_TLS_CERT and ADMIN_TLS_KEY go together (the certificate and its private key)',
  })
  .refine((c) => isLoopbackHost(c.ADMIN_HOST) || c.ADMIN_TLS_CERT !== undefined || c.ADMIN_ALLOW_PLAIN_HTTP, {
    path: ['ADMIN_HOST'],
    message:
      'is not a loopback address: the admin API would take operator tokens in plain HTTP over the network. ' +
      'Set ADMIN_TLS_CERT and ADMIN_TLS_KEY, or ADMIN_ALLOW_PLAIN_HTTP=true when only a private network (or a TLS proxy) reaches it',
  })
  .refine((c) => c.WORKER_METRICS_PORT === 0 || c.WORKER_METRICS_PORT !== c.TEMPORAL_CORE_METRICS_PORT, {
    path: ['TEMPORAL_CORE_METRICS_PORT'],
    message: 'must differ from WORKER_METRICS_PORT (the worker serves its metrics there and reads Core from here)',
  });

/** Every setting's schema by name: docs/configuration.md lists them, with their defaults. */
export const CONFIG_SETTINGS = ConfigSchema.shape;

export type Config = z.infer<typeof ConfigSchema> & { SANDBOX: boolean };

/** Settings no longer read, refused with what replaced them: left set, they must not quietly change what is allowed. */
const REPLACED_SETTINGS: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'is no longer read: name the hosts webhook endpoints may reach on private addresses in WEBHOOK_ALLOWED_PRIVATE_HOSTS',
};

/** Parses the environment; a bad value stops the process with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, defaults: { sandbox: boolean } = { sandbox: false }): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  const replaced = Object.keys(REPLACED_SETTINGS).filter((name) => cleaned[name] !== undefined);
  if (!parsed.success || replaced.length) {
    const lines = [
      ...(parsed.error?.issues ?? []).map((i) => `  ${i.path.join('.')}: ${i.message}`),
      ...replaced.map((name) => `  ${name}: ${REPLACED_SETTINGS[name]}`),
    ];
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const sandbox = cfg.SANDBOX ?? defaults.sandbox;
  return { ...cfg, DATA_DIR: path.resolve(cfg.DATA_DIR), SANDBOX: sandbox };
}
