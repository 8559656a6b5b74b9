import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { FailedBefore } from './park';
import type { LocalRun, StepStop } from './saga.types';

/** The undo of a step, told why it runs when it runs (not what was known when it was registered). */
export type Undo<Why> = (why: Why) => Promise<unknown>;

/** The failure a step raised in a local run, as it raised it: what the saga, a park and the workflow's own failure read. */
const failureOf = (stop: StepStop): ApplicationFailure =>
  ApplicationFailure.create({ message: stop.message, type: stop.type, nonRetryable: stop.nonRetryable, details: stop.details });

/**
 * What the saga's local run did about a step it did not finish: whether it may have tried it
 * (it stopped there, or did not answer), and the failure it met there, if it did.
 */
export class LocalAttempt {
  constructor(
    /** The activity the step runs as. */
    readonly activity: string,
    readonly tried: boolean,
    readonly stopped?: StepStop,
  ) {}

  /** The final failure the local run met in this step (a refusal, a deterministic error), with the activity it ran as; none if it met none. */
  get failedBefore(): FailedBefore | undefined {
    return this.stopped?.nonRetryable ? { activityType: this.activity, failure: failureOf(this.stopped) } : undefined;
  }

  /** The step as its own activity, unless the local run met its final failure, which is then the step's. */
  async orRun<T>(run: () => Promise<T>): Promise<T> {
    const failed = this.failedBefore;
    if (failed) throw failed.failure;
    return run();
  }
}

/** A step the saga's local run did not reach (or a saga without one). */
const NOT_TRIED = new LocalAttempt('', false);

/**
 * A saga: its steps, each named, and their undo. A step's undo is registered before the step
 * runs (a step that committed but whose answer was lost must still be undone). When a step
 * fails for good, `compensate` runs the undos registered so far, last first, in a
 * non-cancellable scope (cancelling the workflow does not stop them), and `failedStep` names
 * the step that failed, for the workflow's own failure. After `pivot` nothing is undone.
 *
 * A saga may run its first steps together in one local activity (`runLocally`), which
 * answers how far it got (activities/saga-locally.ts); it runs when the first step is
 * reached, after that step's undo is registered. A step it finished is not run again; one it
 * did not finish runs as its own activity, told what the local run met there; when the local
 * run did not answer, every step runs as its own activity from the first (each is idempotent:
 * one the local run did answers as it did). What a step does is the workflow's: this
 * records, it schedules nothing of its own.
 */
export class Saga<Step extends string, Why = void> {
  private readonly undos: Undo<Why>[] = [];
  private current: Step | undefined;
  private pivoted = false;
  private local?: { steps: { name: string; activity: string }[]; run: () => Promise<LocalRun>; answer?: Promise<LocalRun | null> };

  /** The step that runs, or after a failure the one that failed (undefined before the first). */
  get failedStep(): Step | undefined {
    return this.current;
  }

  /**
   * Runs the first steps (`steps`, in order, each named with the activity it runs as)
   * together by `run`, a local activity, when the first of them is reached. Only that first
   * step may have an undo: an undo is registered before anything that may do its step runs.
   */
  runLocally(steps: Partial<Record<Step, { activity: string }>>, run: () => Promise<LocalRun>): void {
    this.local = { steps: Object.entries(steps as Record<string, { activity: string }>).map(([name, s]) => ({ name, activity: s.activity })), run };
  }

  /**
   * Runs a step named `name`, its undo registered first; `run` runs it as its own activity,
   * told what the saga's local run did about it. A step the local run finished answers what
   * it answered there, and `run` is not called.
   */
  async step<T>(name: Step, run: (local: LocalAttempt) => Promise<T>, undo?: Undo<Why>): Promise<T> {
    this.current = name;
    const local = this.local;
    const at = local ? local.steps.findIndex((s) => s.name === name) : -1;
    if (undo) {
      if (this.pivoted) throw new Error(`step ${name} has an undo, but comes after the pivot`);
      if (at > 0) throw new Error(`step ${name} has an undo, but is not the first of the local run`);
      this.undos.push(undo);
    }
    if (!local || at < 0) return run(NOT_TRIED);
    local.answer ??= local.run().catch((err: unknown) => {
      // A cancellation of the workflow passes; a local run that did not answer tells nothing.
      if (isCancellation(err)) throw err;
      return null;
    });
    const answer = await local.answer;
    if (answer && at < answer.done.length) return answer.done[at] as T;
    // Where it stopped (or, with no answer, anywhere): the step may have been tried there.
    const stopped = answer && at === answer.done.length ? answer.stopped : undefined;
    return run(new LocalAttempt(local.steps[at]!.activity, answer === null || stopped !== undefined, stopped));
  }

  /** Registers the undo of what has been done so far (one that needs what a step returned). */
  undo(undo: Undo<Why>): void {
    if (this.pivoted) throw new Error('an undo registered after the pivot');
    this.undos.push(undo);
  }

  /** The pivot: what was done stands from here, whatever happens; the undos registered are dropped. */
  pivot(): void {
    this.pivoted = true;
    this.undos.length = 0;
  }

  /**
   * Runs the undos registered, last first, each once, non-cancellably; `each` runs one (the
   * payment tries each until it is done or parks for an operator).
   */
  async compensate(why: Why, each: (undo: () => Promise<unknown>) => Promise<unknown> = (undo) => undo()): Promise<void> {
    const undos = this.undos.splice(0).reverse();
    await CancellationScope.nonCancellable(async () => {
      for (const undo of undos) await each(() => undo(why));
    });
  }
}
