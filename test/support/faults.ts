import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { runActivityStep } from '../../activities/failures';

/**
 * Failure injection for the integration tests: an armed fault makes one step of one order
 * fail, through the same classification the activities use (runActivityStep), `times`
 * times or until disarmed. Give `faultInjector` to the stack's activityInterceptors.
 */
export interface Fault {
  step: string;
  /** The order whose step fails; any call of the step when absent. */
  orderId?: number;
  /** Which calls of the step fail, by their first argument (with orderId, both must hold). */
  when?: (arg: unknown) => boolean;
  error: () => Error;
  times?: number;
  attempts: number;
}

let faults: Fault[] = [];

export const arm = (fault: Omit<Fault, 'attempts'>): Fault => {
  const armed = { ...fault, attempts: 0 };
  faults.push(armed);
  return armed;
};

export const disarmAll = (): void => {
  faults = [];
};

export const faultInjector: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const arg = input.args[0];
      const orderId = typeof arg === 'object' && arg !== null ? (arg as { orderId?: unknown }).orderId : arg;
      const armedFor = (step: string) =>
        faults.find(
          (f) =>
            f.step === step &&
            (f.orderId === undefined || f.orderId === orderId) &&
            (f.when === undefined || f.when(arg)) &&
            (f.times === undefined || f.attempts < f.times),
        );
      const fault = armedFor(ctx.info.activityType);
      if (!fault) return next(input);
      fault.attempts += 1;
      return runActivityStep(async () => {
        throw fault.error();
      });
    },
  },
});

/** What PostgreSQL and node-postgres raise: a SQLSTATE on the error. */
export const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, table: 'orders' });
/** database_error: deterministic, never retried. */
export const undefinedColumn = () => pgError('42703', 'column "secret_column" does not exist');
/** database_unavailable: transient, retried. */
export const adminShutdown = () => pgError('57P01', 'terminating connection due to administrator command');
