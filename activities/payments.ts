import type { Db } from '../src/db/client';
import * as payments from '../src/domain/money/payment-ledger';
import { sagaCompensations, timed, walletDebitDuration } from '../src/platform/metrics';
import { runActivityStep } from './failures';

/** The money steps of every payment saga: debit, reverse, complete. */
export function paymentActivities(db: Db) {
  return {
    /** `opts` only from the fast path (activities/pay-fast-path.ts): the workflow passes the input alone. */
    debitForOrder: (input: Parameters<typeof payments.debitForOrder>[1], opts?: Parameters<typeof payments.debitForOrder>[2]) =>
      runActivityStep(() => timed(walletDebitDuration, () => payments.debitForOrder(db, input, opts))),
    reversePayment: (input: Parameters<typeof payments.reversePayment>[1]) =>
      runActivityStep(async () => {
        const reversed = await payments.reversePayment(db, input);
        if (reversed.reversalLedgerId !== null) sagaCompensations.inc();
        return reversed;
      }),
    completeOrder: (input: Parameters<typeof payments.completeOrder>[1]) => runActivityStep(() => payments.completeOrder(db, input)),
  };
}
