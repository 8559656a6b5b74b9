import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInterceptorsFactory } from '@temporalio/worker';
import type { OrderWithItems } from '../src/domain/orders';
import { activityContext, withLogContext } from '../src/platform/request-context';
import type { FastPathInput, FastPathStop, PaidFast } from '../workflows/fast-path.types';
import type { finalizeActivities } from './finalize';
import type { paymentActivities } from './payments';

type Steps = Pick<ReturnType<typeof paymentActivities>, 'debitForOrder' | 'completeOrder'> & Pick<ReturnType<typeof finalizeActivities>, 'finalizeOrder'>;

/** How a step failed, as the workflow would have met it: its failure type, message, whether it is final, its details. */
function stopOf(err: unknown): FastPathStop {
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
 * A payment's fast path (workflows/pay.workflow.ts): the debit, the supplier step and the
 * completion, in sequence, each the same idempotent function as the activity of its name,
 * in one local activity; the supplier step takes the order and its lines from the debit's
 * statement instead of reading them again. It answers how far it got: each step's result,
 * or the failure that stopped it (a step's failure is an answer here, never thrown). It
 * stops before the next step once it is cancelled or timed out; the workflow, which then
 * hears nothing from it, runs the steps one by one from the debit.
 */
export function payFastPathActivity(steps: Steps, interceptors: readonly ActivityInterceptorsFactory[] = []) {
  return {
    payFastPath: async (input: FastPathInput): Promise<PaidFast> => {
      const abandoned = Context.current().cancellationSignal;
      const run = { workflowId: input.workflowId, runId: input.runId };
      const paid: PaidFast = {};
      // The order with its lines, as the debit's statement read them: the supplier step's input.
      let order: OrderWithItems | undefined;
      try {
        const debitWithOrder = (arg: Parameters<Steps['debitForOrder']>[0]) => steps.debitForOrder(arg, { withOrder: true });
        const { order: read, ...debit } = await asActivity(
          'debitForOrder',
          debitWithOrder,
          { ...run, orderId: input.orderId, partnerId: input.partnerId },
          interceptors,
        );
        paid.debit = debit;
        order = read;
      } catch (err) {
        return { debitFailed: stopOf(err) };
      }
      if (abandoned.aborted) return paid;
      try {
        const request = { orderId: input.orderId, clientReference: input.clientReference, scenario: input.scenario };
        const finalize = (arg: typeof request) => steps.finalizeOrder(arg, order);
        paid.finalized = await asActivity('finalizeOrder', finalize, request, interceptors);
      } catch (err) {
        return { ...paid, finalizeFailed: stopOf(err) };
      }
      if (abandoned.aborted) return paid;
      try {
        await asActivity('completeOrder', steps.completeOrder, { ...run, orderId: input.orderId, supplierRef: paid.finalized.supplierRef }, interceptors);
        return { ...paid, completed: true };
      } catch (err) {
        return { ...paid, completeFailed: stopOf(err) };
      }
    },
  };
}
