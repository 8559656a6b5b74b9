import type { Sinks } from '@temporalio/workflow';

/**
 * How a workflow closed, as it tells its own worker's process on the way out (the
 * `outcomes` sink, workflows/interceptors.ts): the result it returned, or the typed
 * failure it failed with (the first ApplicationFailure with a type down the cause chain,
 * as src/temporal/workflows.ts `businessFailure` reads it from Temporal). A workflow that
 * fails without a typed failure, is cancelled or continues as new tells nothing.
 */
export type WorkflowOutcome = { ok: true; result: unknown } | { ok: false; type: string; message: string };

/** The sink the worker registers (worker/worker.ts); the API of the same process hears it (src/temporal/outcomes.ts). */
export interface OutcomeSinks extends Sinks {
  outcomes: {
    settled(outcome: WorkflowOutcome): void;
    /** The run parked for an operator (workflows/park.ts): whoever waits for it answers "under way" now. */
    parked(): void;
    /** The parked run took an operator's decision and goes on. */
    resumed(): void;
  };
}
