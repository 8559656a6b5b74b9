import type { Db } from '../src/db/client';
import * as payments from '../src/domain/payments';
import { businessErrors } from './failures';

/** The money steps of every payment saga: debit, reverse, complete. */
export function paymentActivities(db: Db) {
  return {
    debitForOrder: (input: Parameters<typeof payments.debitForOrder>[1]) => businessErrors(() => payments.debitForOrder(db, input)),
    reversePayment: (input: Parameters<typeof payments.reversePayment>[1]) => businessErrors(() => payments.reversePayment(db, input)),
    completeOrder: (input: Parameters<typeof payments.completeOrder>[1]) => businessErrors(() => payments.completeOrder(db, input)),
  };
}
