import type { Db } from '../../src/db/client';
import type { OrderRow, OrderWithItems } from '../../src/domain/orders';
import type { Suppliers } from '../../src/suppliers';
import type { SupplierConfirmation } from '../../src/suppliers/confirmations';
import { SupplierRejectedError } from '../../src/suppliers/errors';
import type { FollowUp } from '../../workflows/registry.types';

/** How many attempts a payment's supplier step gets before its outcome counts as unknown. */
export interface FinalizeAttempts {
  default: number;
  byService?: Partial<Record<OrderRow['service'], number>>;
}

export interface FinalizeDeps extends Suppliers {
  db: Db;
  finalizeAttempts?: FinalizeAttempts;
}

export type Finalized = { supplierRef: string; followUp?: FollowUp };
export type LookedUp = ({ state: 'done' } & Finalized) | { state: 'absent' } | { state: 'unknown' };

/**
 * Per service: `finalize` does what the partner paid for (ship, confirm, ticket, submit)
 * under our client reference; `lookup` asks the supplier what became of that request when
 * the answer was lost, and records the same outcome when it was made.
 */
export interface Finalizer {
  finalize(order: OrderWithItems, clientReference: string, scenario?: string): Promise<Finalized>;
  lookup(order: OrderWithItems, clientReference: string, scenario?: string): Promise<LookedUp>;
}

export const gone = (order: OrderRow, what: string) => new SupplierRejectedError(`the ${what} of order ${order.id} is no longer available`, 410);

/** Tour operator, villa host, visa agency: one confirmation per client reference, then recorded. */
export const confirming = (
  supplier: Suppliers['tourOperator'],
  load: (order: OrderRow) => Promise<{ request: Record<string, unknown>; record: (c: SupplierConfirmation) => Promise<Finalized> }>,
): Finalizer => ({
  finalize: async (order, clientReference, scenario) => {
    const { request, record } = await load(order);
    return record(await supplier.confirm(clientReference, request, scenario));
  },
  lookup: async (order, clientReference, scenario) => {
    const { record } = await load(order);
    const found = await supplier.lookup(clientReference, scenario);
    return found ? { state: 'done', ...(await record(found)) } : { state: 'absent' };
  },
});
