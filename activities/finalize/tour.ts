import { prebookOfOrder, recordTourConfirmation } from '../../src/domain/tours/prebooks';
import { confirming, gone, type FinalizeDeps, type Finalizer } from './finalizer';

/** Tours: the operator confirms the seats held before payment. */
export const tourFinalizer = ({ db, tourOperator }: FinalizeDeps): Finalizer =>
  confirming(tourOperator, async (order) => {
    const prebook = await prebookOfOrder(db, order.id);
    if (!prebook || (prebook.status !== 'held' && prebook.status !== 'confirmed')) throw gone(order, 'tour seats');
    return {
      request: { departure_id: prebook.departureId, passengers: prebook.passengers },
      record: async (c) => {
        await recordTourConfirmation(db, prebook.id, c.reference);
        return { supplierRef: c.reference };
      },
    };
  });
