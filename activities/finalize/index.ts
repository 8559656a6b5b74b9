import { ApplicationFailure, Context } from '@temporalio/activity';
import { DomainError } from '../../src/domain/errors';
import { getOrderWithItems, type OrderRow, type OrderWithItems } from '../../src/domain/orders';
import { SupplierRejectedError } from '../../src/suppliers/errors';
import { OUTCOME_UNKNOWN, type FinalizeAttemptsDetail } from '../../workflows/failure-types';
import { DEFAULT_FINALIZE_ATTEMPTS } from '../../workflows/activity-options';
import { runActivityStep } from '../failures';
import type { FinalizeDeps, Finalized, Finalizer, LookedUp } from './finalizer';
import { flightFinalizer } from './flight';
import { hotelFinalizer } from './hotel';
import { productFinalizer } from './product';
import { residenceFinalizer } from './residence';
import { tourFinalizer } from './tour';
import { visaFinalizer } from './visa';

export type { FinalizeAttempts, FinalizeDeps } from './finalizer';

const isRefusal = (err: unknown) => err instanceof DomainError || err instanceof SupplierRejectedError;

/** A payment's supplier step, whatever the service: each service's finalizer lives in a file of its own here. */
export function finalizeActivities(deps: FinalizeDeps) {
  const { db } = deps;
  const attemptsFor = (service: OrderRow['service']) =>
    deps.finalizeAttempts?.byService?.[service] ?? deps.finalizeAttempts?.default ?? DEFAULT_FINALIZE_ATTEMPTS;

  const finalizers: Partial<Record<OrderRow['service'], Finalizer>> = {
    product: productFinalizer(deps),
    hotel: hotelFinalizer(deps),
    flight: flightFinalizer(deps),
    tour: tourFinalizer(deps),
    residence: residenceFinalizer(deps),
    visa: visaFinalizer(deps),
  };

  async function finalizerOf(orderId: number, known?: OrderWithItems) {
    // The order and its lines in one statement: the product supplier ships the lines.
    const order = known ?? (await getOrderWithItems(db, orderId));
    if (!order) throw new DomainError('not_found', `order ${orderId} not found`);
    const finalizer = finalizers[order.service];
    if (!finalizer) throw new DomainError('conflict', `no supplier adapter for ${order.service} orders`);
    return { order, finalizer };
  }

  return {
    /**
     * The supplier step. It tells the workflow how many attempts it took (Temporal's own count
     * of this activity's attempts, plus `attemptsBefore`: the payment's quick local try before
     * it): in its answer, and in the outcome-unknown failure's details (`FinalizeAttemptsDetail`).
     * `known`: the order with its lines as the payment's debit read them (the fast path's);
     * the workflow passes the input alone and the order is read here.
     */
    finalizeOrder: (input: { orderId: number; clientReference: string; scenario?: string; attemptsBefore?: number }, known?: OrderWithItems) =>
      runActivityStep(async (): Promise<Finalized & { attempts: number }> => {
        const { order, finalizer } = await finalizerOf(input.orderId, known);
        const attempt = Context.current().info.attempt + (input.attemptsBefore ?? 0);
        try {
          return { ...(await finalizer.finalize(order, input.clientReference, input.scenario)), attempts: attempt };
        } catch (err) {
          // A refusal is an answer (runActivityStep makes it final). Anything else leaves the
          // outcome open: retried with backoff until this service's budget is spent, then
          // handed back as unknown so the workflow asks the supplier instead of guessing.
          if (isRefusal(err) || attempt < attemptsFor(order.service)) throw err;
          const detail: FinalizeAttemptsDetail = { attempts: attempt };
          throw ApplicationFailure.create({
            message: `no answer from the supplier after ${attempt} attempts: ${(err as Error).message}`,
            type: OUTCOME_UNKNOWN,
            nonRetryable: true,
            details: [detail],
          });
        }
      }),

    /**
     * After a finalization's outcome stayed unknown (retries spent): does the supplier have
     * it under our client reference? `absent` is a definite no (safe to refund).
     */
    lookupFinalization: (input: { orderId: number; clientReference: string; scenario?: string }) =>
      runActivityStep(async (): Promise<LookedUp> => {
        const { order, finalizer } = await finalizerOf(input.orderId);
        return finalizer.lookup(order, input.clientReference, input.scenario);
      }),
  };
}
