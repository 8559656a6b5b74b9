import { and, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/client';
import { orders, type OrderStatus } from '../db/schema';
import { refundLegs, type SupplierRefund } from './money/books';
import { DomainError, notFound } from './errors';
import type { OrderRow } from './orders';
import { ledgerEntryOf, type PaymentRun } from './money/payment-ledger';
import { parentIdOf } from './sub-agencies';
import { applyMovement, lockWallet } from './money/wallet';
import { actorNow } from '../platform/request-context';

export interface RefundInput extends PaymentRun {
  orderId: number;
  amountMinor: number;
  /** The ledger step name: one refund per workflow run and step. */
  step: string;
  /** The order's status once settled (cancelled, refunded). */
  settledStatus: OrderStatus;
  /** The statuses a refund may settle the order from; any other is a conflict, never overwritten. */
  from: readonly OrderStatus[];
  note: string;
  /** What the supplier refunds, when it says (an airline's cancellation quote); otherwise the same share of its price as the partner gets back. */
  supplierRefund?: SupplierRefund;
  /** Service-specific bookkeeping in the same transaction (the booking row's status). */
  onSettled?: (tx: Tx, order: OrderRow) => Promise<void>;
}

/**
 * Settles a refund: credits the wallet (one `refund` ledger row naming the order, with the
 * supplier's refund, the margin given back and the fee kept posted apart in the books; none
 * when the amount is 0) and moves the order to its settled status, in one transaction.
 * A retry finds its ledger row, or the order already settled, and writes nothing. The order
 * moves only from a status in `from` (a payment that completed an order while its
 * cancellation was under way is never turned into a cancellation with nothing refunded).
 */
export async function settleRefund(db: DbOrTx, input: RefundInput): Promise<{ ledgerId: number | null; currency: string }> {
  return db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, input.orderId)).for('update');
    if (!order) throw notFound(`order ${input.orderId}`);
    const wallet = await lockWallet(tx, order.partnerId);
    const done = await ledgerEntryOf(tx, input, input.step);
    if (done) return { ledgerId: done.id, currency: order.currency };
    if (order.status === input.settledStatus) return { ledgerId: null, currency: order.currency };
    if (!input.from.includes(order.status)) {
      throw new DomainError('conflict', `order ${order.id} is ${order.status}; its refund settles it only from ${input.from.join(' or ')}`);
    }
    if (input.amountMinor < 0 || input.amountMinor > order.totalPrice) {
      throw new DomainError('validation', `amount: a refund of order ${order.id} is between 0 and what it cost`);
    }
    let ledgerId: number | null = null;
    if (input.amountMinor > 0) {
      const entry = await applyMovement(
        tx,
        wallet,
        {
          direction: 'credit',
          type: 'refund',
          amount: input.amountMinor,
          orderId: order.id,
          workflowId: input.workflowId,
          runId: input.runId,
          step: input.step,
          note: input.note.slice(0, 500),
        },
        refundLegs(
          { ...order, agencyParentId: order.agencyMargin > 0 ? await parentIdOf(tx, order.partnerId) : null },
          input.amountMinor,
          input.supplierRefund,
        ),
      );
      ledgerId = entry.id;
    }
    await tx
      .update(orders)
      .set({ status: input.settledStatus, actedBy: actorNow(), updatedAt: new Date() })
      .where(and(eq(orders.id, order.id), eq(orders.status, order.status)));
    await input.onSettled?.(tx, order);
    return { ledgerId, currency: order.currency };
  });
}
