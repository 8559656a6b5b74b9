import type { Db } from '../src/db/client';
import * as payments from '../src/domain/payment-ledger';
import { sagaCompensations, timed, walletDebitDuration } from '../src/platform/metrics';
import { businessErrors } from './failures';

/** The money steps of every payment saga: debit, reverse, complete. */
export function paymentActivities(db: Db) {
  return {
    debitForOrder: (input: Parameters<typeof payments.debitForOrder>[1]) =>
      businessErrors(() => timed(walletDebitDuration, () => payments.debitForOrder(db, input))),
    reversePayment: (input: Parameters<typeof payments.reversePayment>[1]) =>
      businessErrors(async () => {
        const reversed = await payments.reversePayment(db, input);
        if (reversed.reversalLedgerId !== null) sagaCompensations.inc();
        return reversed;
      }),
    completeOrder: (input: Parameters<typeof payments.completeOrder>[1]) => businessErrors(() => payments.completeOrder(db, input)),
  };
}
