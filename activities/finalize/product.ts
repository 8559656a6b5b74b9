import type { DeliveryDetails } from '../../src/domain/orders';
import type { FinalizeDeps, Finalizer } from './finalizer';

/** Products: the supplier ships the order's items under our client reference. */
export const productFinalizer = ({ productSupplier }: FinalizeDeps): Finalizer => ({
  finalize: async (order, clientReference, scenario) => {
    const fulfilment = await productSupplier.fulfil({
      clientReference,
      orderId: order.id,
      items: order.items.map((i) => ({ sku: i.sku, quantity: i.quantity })),
      delivery: (order.details as { delivery?: DeliveryDetails | null }).delivery ?? null,
      scenario,
    });
    return { supplierRef: fulfilment.fulfilment_id };
  },
  lookup: async (_order, clientReference, scenario) => {
    const found = await productSupplier.lookup(clientReference, scenario);
    return found ? { state: 'done', supplierRef: found.fulfilment_id } : { state: 'absent' };
  },
});
