import { CancellationScope } from '@temporalio/workflow';

/** The undo of a step, told why it runs when it runs (not what was known when it was registered). */
export type Undo<Why> = (why: Why) => Promise<unknown>;

/**
 * A saga's bookkeeping: its steps, each named, and their undo. A step's undo is registered
 * before the step runs (a step that committed but whose answer was lost must still be
 * undone); an undo that needs what a step returned is registered after it (`undo`). When a
 * step fails for good, `compensate` runs the undos registered so far, last first, in a
 * non-cancellable scope (cancelling the workflow does not stop them), and `failedStep`
 * names the step that failed, for the workflow's own failure. What it does is the
 * workflow's: this records, it schedules nothing of its own.
 */
export class Saga<Step extends string, Why = void> {
  private readonly undos: Undo<Why>[] = [];
  private current: Step | undefined;

  /** The step that runs, or after a failure the one that failed (undefined before the first). */
  get failedStep(): Step | undefined {
    return this.current;
  }

  /**
   * Runs a step named `name`; its undo, if it has one, is registered before it runs. Not an
   * async function: it hands back the step's own promise instead of wrapping it in another.
   */
  step<T>(name: Step, run: () => Promise<T>, undo?: Undo<Why>): Promise<T> {
    this.current = name;
    if (undo) this.undos.push(undo);
    return run();
  }

  /** Registers the undo of what has been done so far (one that needs what a step returned). */
  undo(undo: Undo<Why>): void {
    this.undos.push(undo);
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
