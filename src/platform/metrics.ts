import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The engine's Prometheus series, grouped by the process that records them, so that a
 * process serves only the series it can move (an API process would otherwise report a
 * `saga_compensations_total` stuck at 0 next to the worker's real one):
 *
 * - `processMetrics`: Node's own (CPU, memory, event loop); every process has them once.
 * - `apiMetrics`: recorded while serving HTTP; the API process (`npm run api`).
 * - `workerMetrics`: recorded in activities; the worker process (`npm run worker`).
 *
 * `npm start` runs both and serves all three on the admin port; see {@link registryFor}.
 * A series recorded in a new place goes into the registry of the process that runs it.
 */
export const processMetrics = new Registry();
collectDefaultMetrics({ register: processMetrics });

/** The parts of this process whose memory the engine can tell, each read at a scrape. */
const memoryParts = new Map<string, () => number>();

/**
 * Says what `part` of this process holds in memory (an embedded database's WebAssembly memory,
 * the search cache), read at each scrape; a part told again is read from its newest teller.
 */
export function reportMemory(part: string, bytes: () => number): void {
  memoryParts.set(part, bytes);
}

new Gauge({
  name: 'engine_memory_bytes',
  help: "Memory held by the parts of this process the engine can tell apart (pglite: the embedded database's WebAssembly memory; search_cache: the search answers and what is made from them); Node's heap is nodejs_heap_size_*",
  labelNames: ['part'] as const,
  registers: [processMetrics],
  collect() {
    for (const [part, bytes] of memoryParts) this.set({ part }, bytes());
  },
});
export const apiMetrics = new Registry();
export const workerMetrics = new Registry();

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by interface, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [apiMetrics],
});

export const payOutcomes = new Counter({
  name: 'pay_outcomes_total',
  help: 'Answers of POST /api/partners/pay/ by outcome',
  labelNames: ['outcome'] as const,
  registers: [apiMetrics],
});

/** Set by the admin app just before it renders a scrape (it asks Temporal for the count). */
export const paymentsNeedsAttention = new Gauge({
  name: 'payments_needs_attention',
  help: 'Payments and cancellations parked for an operator (Stage = "needs_attention")',
  registers: [apiMetrics],
});

/** Set by the admin app just before it renders a scrape, from the wallets (src/http/admin/near-limit-watch.ts). */
export const partnersNearLimitGauge = new Gauge({
  name: 'partners_near_limit',
  help: 'Partners whose credit left is below their highest credit-alert threshold',
  registers: [apiMetrics],
});

/** Sales refused for want of a current exchange rate (src/domain/money/fx.ts, rateFor): `reason` is missing or stale. */
export const fxRateRefusals = new Counter({
  name: 'fx_rate_refusals_total',
  help: 'Sales refused because the supplier currency had no exchange rate into the wallet currency (missing) or only one older than FX_RATE_MAX_AGE_HOURS (stale)',
  labelNames: ['currency', 'reason'] as const,
  registers: [apiMetrics],
});

export const workflowStarts = new Counter({
  name: 'workflow_starts_total',
  help: 'Workflows this process started, by type and whether the server started them eagerly on the local worker',
  labelNames: ['workflow', 'eager'] as const,
  registers: [apiMetrics],
});

export const workflowOutcomesHeard = new Counter({
  name: 'workflow_outcomes_heard_total',
  help: 'Outcomes of workflows the API waited for, by where it heard them: from the worker in its own process (a success), or from Temporal (history long-poll; every failure)',
  labelNames: ['via'] as const,
  registers: [apiMetrics],
});

export const sagaCompensations = new Counter({
  name: 'saga_compensations_total',
  help: 'Payments whose debit was reversed (the saga compensated)',
  registers: [workerMetrics],
});

export const walletDebitDuration = new Histogram({
  name: 'wallet_debit_duration_seconds',
  help: 'Time of the debit transaction (order and wallet row locks, ledger row, balance)',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [workerMetrics],
});

export const webhookAttempts = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered (2xx), refused (another status), unreachable (no answer, or an address refused)',
  labelNames: ['outcome'] as const,
  registers: [workerMetrics],
});

export const webhookLatency = new Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: "Time from sending a webhook delivery to the receiver's answer (or the failure)",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [workerMetrics],
});

export const searchRequests = new Counter({
  name: 'search_requests_total',
  help: 'Supplier searches asked of the search layer, by how each was served: fresh or stale (from the cache), coalesced (joined a call in flight), miss (called the supplier), shed (the supplier budget was spent)',
  labelNames: ['supplier', 'service', 'outcome'] as const,
  registers: [apiMetrics],
});

export const supplierSearchCalls = new Counter({
  name: 'supplier_search_calls_total',
  help: 'Searches the search layer sent to a supplier, by result (ok, rejected, failed)',
  labelNames: ['supplier', 'service', 'result'] as const,
  registers: [apiMetrics],
});

/** The circuit breaker of each supplier's searches and reference lists (src/suppliers/breakers.ts): 0 closed, 1 open, 2 half open (one probe through). */
export const supplierBreakerState = new Gauge({
  name: 'supplier_breaker_state',
  help: "A supplier operation's circuit breaker: 0 closed, 1 open (answered 503 at once), 2 half open (one probe through)",
  labelNames: ['supplier', 'operation'] as const,
  registers: [apiMetrics],
});

/** How often each supplier operation's breaker opened. */
export const supplierBreakerOpenings = new Counter({
  name: 'supplier_breaker_openings_total',
  help: "Times a supplier operation's circuit breaker opened after repeated timeouts or 5xx",
  labelNames: ['supplier', 'operation'] as const,
  registers: [apiMetrics],
});

export const supplierSearchBudget = new Gauge({
  name: 'supplier_search_budget_per_second',
  help: 'Searches a second each supplier may be sent, across every API process (SEARCH_BUDGETS; 0: no budget)',
  labelNames: ['supplier'] as const,
  registers: [apiMetrics],
});

/** Which entry point a process is: it decides which series the process serves. */
export type MetricsRole = 'api' | 'worker' | 'all-in-one';

// Every series above is served; one defined below this line would be in no registry a scrape reads.
const registries: Record<MetricsRole, Registry> = {
  api: Registry.merge([processMetrics, apiMetrics]),
  worker: Registry.merge([processMetrics, workerMetrics]),
  'all-in-one': Registry.merge([processMetrics, apiMetrics, workerMetrics]),
};

/** The series a process of this role serves, each once. */
export function registryFor(role: MetricsRole): Registry {
  return registries[role];
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** How long a scrape waits for the Temporal Core exporter before going on without it. */
const CORE_TIMEOUT_MS = 3000;

/** The metric family a sample line or a `# HELP`/`# TYPE` line belongs to. */
function familyOf(line: string, families: Set<string>): string | undefined {
  const name = line.startsWith('# HELP ') || line.startsWith('# TYPE ') ? line.split(' ')[2] : /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  if (!name) return undefined;
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count|total|created)$/, '');
  return families.has(base) ? base : undefined;
}

/**
 * One Prometheus scrape of a process: the registry's series, then the Temporal Core
 * worker exporter's text fetched from `coreMetricsUrl` (the worker runtime's own
 * exporter on loopback) when the process runs a worker. A family the registry already
 * has is dropped from the Core text: a second `# TYPE` line for one name makes Prometheus
 * reject the whole scrape. Used by the admin app and by the worker's metrics server.
 */
export async function renderMetrics(registry: Registry, coreMetricsUrl?: string): Promise<string> {
  const own = await registry.metrics();
  if (!coreMetricsUrl) return own;
  const core = await fetch(coreMetricsUrl, { signal: AbortSignal.timeout(CORE_TIMEOUT_MS) })
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .catch((err: Error) => `# Temporal worker metrics unavailable: ${err.message.replace(/\s+/g, ' ')}\n`);
  const families = new Set(registry.getMetricsAsArray().map((m) => m.name));
  const kept = core.split('\n').filter((line) => !familyOf(line, families));
  return `${own.replace(/\n*$/, '\n')}${kept.join('\n')}`;
}

/** Times an async step into a histogram. */
export async function timed<T>(histogram: Histogram, step: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer();
  try {
    return await step();
  } finally {
    end();
  }
}
