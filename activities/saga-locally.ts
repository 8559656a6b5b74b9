import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInterceptorsFactory } from '@temporalio/worker';
import { activityContext, withLogContext } from '../src/platform/request-context';
import type { LocalRun, StepDefinitions, StepStop } from '../workflows/saga.types';

/** How a step failed, as the workflow would have met it: its failure type, message, whether it is final, its details. */
function stopOf(err: unknown): StepStop {
  if (err instanceof ApplicationFailure) {
    return {
      type: err.type ?? undefined,
      message: err.message,
      nonRetryable: err.nonRetryable === true,
      ...(err.details?.length ? { details: [...err.details] } : {}),
    };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { type: e.name, message: e.message, nonRetryable: false };
}

/**
 * Runs `step` as if it were the activity `name` of its own: what it logs carries that
 * activity type, and the worker's extra activity interceptors (given to the worker, e.g. a
 * test's fault injection) see it under that name, with its argument.
 */
function asActivity<A, R>(name: string, step: (arg: A) => Promise<R>, arg: A, interceptors: readonly ActivityInterceptorsFactory[]): Promise<R> {
  const ctx = Context.current();
  const named: Context = Object.create(ctx, { info: { value: { ...ctx.info, activityType: name } } });
  let next = (input: ActivityExecuteInput): Promise<unknown> => step(input.args[0] as A);
  for (const factory of [...interceptors].reverse()) {
    const inbound = factory(named).inbound;
    if (!inbound?.execute) continue;
    const inner = next;
    next = (input) => inbound.execute!(input, inner);
  }
  return withLogContext({ ...activityContext(), activityType: name }, () => next({ args: [arg], headers: {} }) as Promise<R>);
}

/**
 * Each step's function in a local run, by the activity it runs as: that activity's own
 * function, which may take what the steps before it in the same run left in `carried`
 * (what one read that the next needs).
 */
export type LocalSteps<Activity extends string, Carried> = Record<Activity, (arg: never, carried: Carried) => Promise<unknown>>;

/**
 * A saga's first steps run together in one local activity (workflows/saga.ts, runLocally):
 * each step, by its definition, is the same idempotent function as the activity of its name,
 * run in order. It answers how far it got: each finished step's result, or the failure that
 * stopped it (a step's failure is an answer here, never thrown). Once it is cancelled or
 * timed out it starts no further step; the workflow, which then hears nothing from it, runs
 * the steps one by one from the first.
 */
export function runLocally<Input, Results, Defs extends StepDefinitions<Input, Results>, Carried>(
  definitions: Defs,
  functions: LocalSteps<Defs[keyof Defs]['activity'], Carried>,
  carried: () => Carried,
  interceptors: readonly ActivityInterceptorsFactory[],
): (input: Input) => Promise<LocalRun> {
  const steps = Object.entries(definitions) as [keyof Results, Defs[keyof Defs]][];
  return async (input) => {
    const abandoned = Context.current().cancellationSignal;
    const run: LocalRun = { done: [] };
    const done: Partial<Results> = {};
    const carry = carried();
    for (const [i, [name, step]] of steps.entries()) {
      if (i > 0 && abandoned.aborted) break;
      const fn = functions[step.activity as Defs[keyof Defs]['activity']];
      try {
        const result = await asActivity(step.activity, (arg: never) => fn(arg, carry), step.args(input, done) as never, interceptors);
        done[name] = result as Results[keyof Results];
        run.done.push(result);
      } catch (err) {
        return { ...run, stopped: stopOf(err) };
      }
    }
    return run;
  };
}
