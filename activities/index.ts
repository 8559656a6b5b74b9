import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/db/client';
import { DomainError } from '../src/domain/errors';
import { getOrder, getOrderItems, type DeliveryDetails } from '../src/domain/orders';
import * as payments from '../src/domain/payments';
import { SupplierRejectedError } from '../src/suppliers/errors';
import type { ProductSupplier } from '../src/suppliers/products';

export interface ActivityDeps {
  db: Db;
  productSupplier: ProductSupplier;
}

/**
 * Business refusals become non-retryable failures whose type the workflow and the API
 * understand; everything else stays retryable (Temporal retries it with backoff).
 */
async function businessErrors<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof DomainError) throw ApplicationFailure.nonRetryable(err.message, err.code);
    if (err instanceof SupplierRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'supplier_rejected');
    throw err;
  }
}

/** Activities are built from injected dependencies, so the worker (and tests) decide what they talk to. */
export function createActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    debitForOrder: (input: Parameters<typeof payments.debitForOrder>[1]) => businessErrors(() => payments.debitForOrder(db, input)),
    reversePayment: (input: Parameters<typeof payments.reversePayment>[1]) => businessErrors(() => payments.reversePayment(db, input)),
    completeOrder: (input: Parameters<typeof payments.completeOrder>[1]) => businessErrors(() => payments.completeOrder(db, input)),

    /** Asks the supplier to deliver what the order bought; the client reference makes a retry the same request. */
    finalizeOrder: (input: { orderId: number; clientReference: string; scenario?: string }) =>
      businessErrors(async (): Promise<{ supplierRef: string }> => {
        const order = await getOrder(db, input.orderId);
        if (!order) throw new DomainError('not_found', `order ${input.orderId} not found`);
        if (order.service !== 'product') {
          throw new DomainError('conflict', `no supplier adapter for ${order.service} orders yet`);
        }
        const items = await getOrderItems(db, order.id);
        const fulfilment = await deps.productSupplier.fulfil({
          clientReference: input.clientReference,
          orderId: order.id,
          items: items.map((i) => ({ sku: i.sku, quantity: i.quantity })),
          delivery: (order.details as { delivery?: DeliveryDetails | null }).delivery ?? null,
          scenario: input.scenario,
        });
        return { supplierRef: fulfilment.fulfilment_id };
      }),
  };
}

export type PaymentActivities = ReturnType<typeof createActivities>;
