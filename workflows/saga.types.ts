/**
 * A saga's steps as activities, in order: the activity each runs and its argument, built
 * from the saga's input and what the steps before it returned. Pure data and functions, so
 * the workflow (which runs a step as its own activity) and the worker (which may run the
 * first steps together in one local activity, activities/saga-locally.ts) read the same
 * definition. The record's key order is the steps' order.
 */
export type StepDefinitions<Input, Results> = {
  readonly [Name in keyof Results]: { activity: string; args: (input: Input, done: Partial<Results>) => unknown };
};

/** How a step of a local run failed: as the step raised it (its failure type, message, whether it is final, its details). */
export interface StepStop {
  type?: string;
  message: string;
  /** Final (a refusal, a deterministic database error, an outcome counted unknown); otherwise worth another try. */
  nonRetryable: boolean;
  details?: unknown[];
}

/**
 * How far a local run of a saga's first steps got: the result of each step it finished, in
 * order, and, when a step failed, that step's failure (the steps after it did not run).
 */
export interface LocalRun {
  done: unknown[];
  stopped?: StepStop;
}
