import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { REFUSAL_TYPES, DatabaseFailureType, DOMAIN_REFUSALS } from './failure-types';

/**
 * Deterministic database failures (activities/failures.ts): the same statement fails the
 * same way. The activities already raise them as non-retryable; listed here as well so
 * that the policy says so too. `database_unavailable` is the retryable one.
 */
const DATABASE_REFUSALS = [DatabaseFailureType.invalidData, DatabaseFailureType.error];

/**
 * How many times a database step is tried. With the backoff below the retries wait about
 * 4 minutes in all (0.2 + 0.4 + … + 6.4 s, then 10 s each), about 5 with the attempts
 * themselves (an unreachable database fails each within its 3 s connect timeout): a
 * database restart or fail-over is ridden out, an outage longer than that ends the step,
 * and the workflow then fails naming it or parks for an operator. Never for ever.
 */
export const DATABASE_MAX_ATTEMPTS = 30;

/** Database steps: quick, retried for a bounded while; business refusals and deterministic database errors are final. */
export const DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: {
    initialInterval: '200ms',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: DATABASE_MAX_ATTEMPTS,
    nonRetryableErrorTypes: [...DOMAIN_REFUSALS, ...DATABASE_REFUSALS],
  },
};

/**
 * The same database steps as local activities (a payment's debit, completion and reversal):
 * run by the worker that runs the workflow, recorded in its next workflow task instead of
 * being dispatched through the server's activity queue, which saves a round trip per step;
 * retried locally for up to 10 s, then by rescheduling with a timer; the same bounded
 * number of attempts.
 */
export const LOCAL_DATABASE_STEP: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  localRetryThreshold: '10s',
  retry: DATABASE_STEP.retry,
};

/** Supplier calls: transient errors (5xx, timeouts) are retried with backoff; a refusal is final. */
export const SUPPLIER_STEP: ActivityOptions = {
  startToCloseTimeout: '2m',
  // Activities heartbeat every second: a worker that died mid-call is noticed in seconds.
  heartbeatTimeout: '5s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [...REFUSAL_TYPES],
  },
};

/**
 * A payment's supplier step (ship, confirm, ticket, submit). The worker decides when its
 * outcome counts as unknown (FINALIZE_ATTEMPTS, per service): the activity then fails with
 * `outcome_unknown` and the workflow asks the supplier by client reference. The attempt cap
 * here is only the backstop for a worker configured beyond it.
 */
export const DEFAULT_FINALIZE_ATTEMPTS = 5;
export const MAX_FINALIZE_ATTEMPTS = 10;
export const FINALIZE_STEP: ActivityOptions = {
  ...SUPPLIER_STEP,
  retry: { ...SUPPLIER_STEP.retry, maximumAttempts: MAX_FINALIZE_ATTEMPTS },
};

/**
 * A payment's fast path: the debit, the supplier step and the completion in one local
 * activity, in the workflow task that starts the payment; one attempt, answered within a few
 * seconds or abandoned (its supplier call is stopped, and it starts no further step). A
 * supplier that answers in time costs no activity task and no second workflow task; whatever
 * the fast path did not finish runs step by step, the supplier step as an ordinary activity
 * (FINALIZE_STEP) under the same client reference, visible in Temporal Web while it retries.
 * Short enough that the workflow task never needs a heartbeat.
 */
export const FAST_PATH_STEP: LocalActivityOptions = {
  scheduleToCloseTimeout: '3s',
  retry: { maximumAttempts: 1 },
};

/** Asking a supplier what became of a request: a few quick tries, then the answer is "unknown". */
export const LOOKUP_STEP: ActivityOptions = {
  startToCloseTimeout: '30s',
  heartbeatTimeout: '5s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: [...DOMAIN_REFUSALS] },
};

/**
 * A note for operators (the order.needs_attention event of a parked workflow): tried a few
 * times, then given up with a log line. It never holds up what it notes: the workflow is
 * parked, and shows so in Temporal Web, whether or not the note was written.
 */
export const OPERATOR_NOTE_STEP: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumAttempts: 3 },
};
