import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { OrderWithItems } from '../src/domain/orders';
import { PAY_STEPS, type PayStepResults, type PayStepsInput } from '../workflows/pay-saga.types';
import type { finalizeActivities } from './finalize';
import type { paymentActivities } from './payments';
import { runLocally } from './saga-locally';

type Steps = Pick<ReturnType<typeof paymentActivities>, 'debitForOrder' | 'completeOrder'> & Pick<ReturnType<typeof finalizeActivities>, 'finalizeOrder'>;
type Arg<K extends keyof Steps> = Parameters<Steps[K]>[0];

/**
 * A payment's fast path (workflows/pay.workflow.ts): its steps (PAY_STEPS) run together in
 * one local activity. The supplier step takes the order and its lines from the debit's
 * statement instead of reading them again.
 */
export function payFastPathActivity(steps: Steps, interceptors: readonly ActivityInterceptorsFactory[] = []) {
  const functions = {
    debitForOrder: async (arg: Arg<'debitForOrder'>, carried: { order?: OrderWithItems }) => {
      const { order, ...debit } = await steps.debitForOrder(arg, { withOrder: true });
      carried.order = order;
      return debit;
    },
    finalizeOrder: (arg: Arg<'finalizeOrder'>, carried: { order?: OrderWithItems }) => steps.finalizeOrder(arg, carried.order),
    completeOrder: (arg: Arg<'completeOrder'>) => steps.completeOrder(arg),
  };
  return {
    payFastPath: runLocally<PayStepsInput, PayStepResults, typeof PAY_STEPS, { order?: OrderWithItems }>(PAY_STEPS, functions, () => ({}), interceptors),
  };
}
