import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The engine's Prometheus series, served on the admin port at /metrics (with the Temporal
 * worker's own metrics appended when the worker runs in the same process).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by interface, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const payOutcomes = new Counter({
  name: 'pay_outcomes_total',
  help: 'Answers of POST /api/partners/pay/ by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const sagaCompensations = new Counter({
  name: 'saga_compensations_total',
  help: 'Payments whose debit was reversed (the saga compensated)',
  registers: [registry],
});

export const workflowStarts = new Counter({
  name: 'workflow_starts_total',
  help: 'Workflows this process started, by type and whether the server started them eagerly on the local worker',
  labelNames: ['workflow', 'eager'] as const,
  registers: [registry],
});

export const walletDebitDuration = new Histogram({
  name: 'wallet_debit_duration_seconds',
  help: 'Time of the debit transaction (order and wallet row locks, ledger row, balance)',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [registry],
});

/** Times an async step into a histogram. */
export async function timed<T>(histogram: Histogram, step: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer();
  try {
    return await step();
  } finally {
    end();
  }
}
