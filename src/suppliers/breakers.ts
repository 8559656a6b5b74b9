import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { logger } from '../platform/log';
import { supplierBreakerOpenings, supplierBreakerState } from '../platform/metrics';
import { SearchBudgetSpentError, SupplierUnavailableError } from './errors';

/** A supplier operation whose breaker is open: answered at once, 503 with the cool-down left as Retry-After. */
export class SupplierBreakerOpenError extends SupplierUnavailableError {
  constructor(supplier: string, operation: string, retryAfterSeconds: number) {
    super(`${supplier} ${operation} failed repeatedly; not asked again for ${retryAfterSeconds} s`, retryAfterSeconds);
    this.name = 'SupplierBreakerOpenError';
  }
}

export interface BreakerSettings {
  /** Consecutive outages (timeouts, 5xx, no answer) that open a breaker (SUPPLIER_BREAKER_FAILURES). */
  failures: number;
  /** How long an open breaker answers at once before one probe goes through (SUPPLIER_BREAKER_COOL_DOWN_MS). */
  coolDownMs: number;
}

/** A breaker as `/admin/healthz` shows it. */
export interface BreakerView {
  supplier: string;
  operation: string;
  state: 'closed' | 'open' | 'half_open';
  /** While open: seconds until a probe may go through. */
  retry_after_s?: number;
}

const STATE = { [CircuitState.Closed]: 'closed', [CircuitState.Open]: 'open', [CircuitState.HalfOpen]: 'half_open', [CircuitState.Isolated]: 'open' } as const;
const GAUGE = { closed: 0, open: 1, half_open: 2 } as const;

/**
 * An outage counts against a breaker: the supplier did not answer, or answered 5xx, 429 or
 * what is not its contract. A refusal (4xx) is an answer; the engine's own search budget
 * spent says nothing of the supplier.
 */
const isOutage = (err: Error) =>
  err instanceof SupplierUnavailableError && !(err instanceof SearchBudgetSpentError) && !(err instanceof SupplierBreakerOpenError);

interface Entry {
  supplier: string;
  operation: string;
  policy: CircuitBreakerPolicy;
  openedAt: number;
}

/**
 * One circuit breaker per supplier and operation (cockatiel's, docs/decisions/supplier-deadlines.md):
 * after `failures` outages in a row it opens, and every call is answered at once with
 * SupplierBreakerOpenError for `coolDownMs`; then one call goes through as a probe, which
 * closes it when answered or opens it again. Only reads are put behind one (searches and
 * reference lists): a booking's, payment's or cancellation's outcome is looked up, never
 * guessed from a neighbour's failures.
 */
export class SupplierBreakers {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly settings: BreakerSettings) {}

  /** `run` through the breaker of `supplier`'s `operation`. */
  async run<T>(supplier: string, operation: string, run: () => Promise<T>): Promise<T> {
    const entry = this.entry(supplier, operation);
    try {
      return await entry.policy.execute(run);
    } catch (err) {
      if (err instanceof BrokenCircuitError) throw new SupplierBreakerOpenError(supplier, operation, this.retryAfterSeconds(entry));
      throw err;
    }
  }

  /** Every breaker used so far, as operators see it. */
  views(): BreakerView[] {
    return [...this.entries.values()].map((e) => {
      const state = STATE[e.policy.state];
      return { supplier: e.supplier, operation: e.operation, state, ...(state === 'open' ? { retry_after_s: this.retryAfterSeconds(e) } : {}) };
    });
  }

  private retryAfterSeconds(entry: Entry): number {
    return Math.max(Math.ceil((entry.openedAt + this.settings.coolDownMs - Date.now()) / 1000), 1);
  }

  private entry(supplier: string, operation: string): Entry {
    const key = `${supplier} ${operation}`;
    const kept = this.entries.get(key);
    if (kept) return kept;
    const policy = circuitBreaker(handleWhen(isOutage), { halfOpenAfter: this.settings.coolDownMs, breaker: new ConsecutiveBreaker(this.settings.failures) });
    const made: Entry = { supplier, operation, policy, openedAt: 0 };
    const labels = { supplier, operation };
    policy.onStateChange((state) => supplierBreakerState.set(labels, GAUGE[STATE[state]]));
    policy.onBreak(() => {
      made.openedAt = Date.now();
      supplierBreakerOpenings.inc(labels);
      logger.warn(
        { supplier, operation, coolDownMs: this.settings.coolDownMs },
        'a supplier breaker opened: calls are answered 503 at once until a probe gets an answer',
      );
    });
    policy.onReset(() => logger.info({ supplier, operation }, 'a supplier breaker closed: its probe was answered'));
    supplierBreakerState.set(labels, 0);
    this.entries.set(key, made);
    return made;
  }
}
