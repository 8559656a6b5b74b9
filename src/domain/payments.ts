import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/client';
import { preparedQuery } from '../db/prepared';
import { ledgerEntries, orders, wallets, type OrderStatus } from '../db/schema';
import { DomainError } from './errors';
import { applyMovement, debitIfAvailable, insufficientCredit, lockWallet, type LedgerRow } from './wallet';

/** Identifies one pay workflow run; every ledger row it writes carries it. */
export interface PaymentRun {
  workflowId: string;
  runId: string;
}

export interface DebitResult {
  ledgerId: number;
  orderId: number;
  amountMinor: number;
  balanceAfterMinor: number;
  availableAfterMinor: number;
  currency: string;
}

/** The ledger steps of a payment run: its debit and the reversal that undoes it. */
export const PAYMENT_DEBIT_STEP = 'debit';
export const PAYMENT_REVERSAL_STEP = 'reversal';

/** The ledger row a workflow run wrote for `step`, if any: the idempotency look-up of every money step. */
export async function ledgerEntryOf(db: DbOrTx, run: PaymentRun, step: string): Promise<LedgerRow | undefined> {
  const [row] = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.workflowId, run.workflowId), eq(ledgerEntries.runId, run.runId), eq(ledgerEntries.step, step)));
  return row;
}

async function lockOrder(tx: Tx, orderId: number) {
  const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update');
  if (!order) throw new DomainError('not_payable', `order ${orderId} does not exist`);
  return order;
}

const heldBy = (order: { paymentWorkflowId: string | null; paymentRunId: string | null }, run: PaymentRun) =>
  order.paymentWorkflowId === run.workflowId && order.paymentRunId === run.runId;

/** A debit's answer, whether written now or found written by an earlier attempt of the same run. */
const debitResult = (
  orderId: number,
  entry: { id: number; amount: number; balanceAfter: number },
  wallet: { creditLimit: number; currency: string },
): DebitResult => ({
  ledgerId: entry.id,
  orderId,
  amountMinor: entry.amount,
  balanceAfterMinor: entry.balanceAfter,
  availableAfterMinor: entry.balanceAfter + wallet.creditLimit,
  currency: wallet.currency,
});

/**
 * Debits the wallet for a pending order and marks the order processing, in one
 * transaction of three statements when it succeeds: the order moves pending → processing
 * for this run (which locks it), the wallet's balance moves if the amount fits (which locks
 * it: order, then wallet, as everywhere), and the ledger row is written. So two payments of
 * one order, or two debits of one wallet, serialise here. Re-running it for the same run
 * returns the first debit (Temporal may retry an activity whose result was lost).
 */
export async function debitForOrder(db: DbOrTx, input: PaymentRun & { orderId: number; partnerId: number }): Promise<DebitResult> {
  return db.transaction(async (tx) => {
    const [order] = await tx
      .update(orders)
      .set({ status: 'processing', paymentWorkflowId: input.workflowId, paymentRunId: input.runId, updatedAt: new Date() })
      .where(and(eq(orders.id, input.orderId), eq(orders.partnerId, input.partnerId), eq(orders.status, 'pending'), eq(orders.paymentMethod, 'PARTNER_CREDIT')))
      .returning({ id: orders.id, totalPrice: orders.totalPrice, service: orders.service });
    if (!order) return debitWrittenOrWhyNot(tx, input);
    const debited = await debitIfAvailable(tx, input.partnerId, {
      type: 'payment',
      amount: order.totalPrice,
      orderId: order.id,
      workflowId: input.workflowId,
      runId: input.runId,
      step: PAYMENT_DEBIT_STEP,
      note: `payment of ${order.service} order ${order.id}`,
    });
    if (!debited) {
      // Nothing fits: the order's move rolls back with the error.
      const wallet = await lockWallet(tx, input.partnerId);
      throw insufficientCredit(wallet.balance + wallet.creditLimit, order.totalPrice, wallet.currency);
    }
    return debitResult(order.id, debited.entry, debited.wallet);
  });
}

/** The order was not pending for this partner on credit: this run's debit written earlier (a retried step), or why the order cannot be paid. */
async function debitWrittenOrWhyNot(tx: Tx, input: PaymentRun & { orderId: number; partnerId: number }): Promise<DebitResult> {
  const order = await lockOrder(tx, input.orderId);
  const done = await ledgerEntryOf(tx, input, PAYMENT_DEBIT_STEP);
  if (done) {
    const [wallet] = await tx.select().from(wallets).where(eq(wallets.partnerId, done.partnerId));
    return debitResult(order.id, done, wallet!);
  }
  if (order.partnerId !== input.partnerId) throw new DomainError('not_payable', `order ${order.id} is not one of your orders`);
  if (order.paymentMethod !== 'PARTNER_CREDIT') {
    throw new DomainError(
      'not_payable',
      `order ${order.id} was checked out with payment_method ${order.paymentMethod}; only PARTNER_CREDIT orders are paid from the wallet`,
    );
  }
  if (order.status !== 'pending' && order.status !== 'processing') {
    throw new DomainError('not_payable', `order ${order.id} is not payable: it is already ${order.status}`);
  }
  // Processing under another run, or pending again after that run's reversal committed under us.
  throw new DomainError('not_payable', `order ${order.id} is being paid by another request`);
}

/**
 * The compensation of `debitForOrder`: credits back exactly what this run debited (a
 * refund row naming the reversed payment) and makes the order payable again (or failed,
 * when what it would buy is gone). It
 * tolerates partial state: no debit means nothing to give back, and a second call finds
 * the reversal already written.
 */
export async function reversePayment(
  db: DbOrTx,
  input: PaymentRun & { orderId: number; reason: string; releaseTo?: 'pending' | 'failed' },
): Promise<{ reversalLedgerId: number | null; orderStatus: OrderStatus }> {
  return db.transaction(async (tx) => {
    const order = await lockOrder(tx, input.orderId);
    const debit = await ledgerEntryOf(tx, input, PAYMENT_DEBIT_STEP);
    let reversalLedgerId: number | null = null;
    if (debit) {
      const wallet = await lockWallet(tx, debit.partnerId);
      const already = await ledgerEntryOf(tx, input, PAYMENT_REVERSAL_STEP);
      reversalLedgerId = already
        ? already.id
        : (
            await applyMovement(tx, wallet, {
              direction: 'credit',
              type: 'refund',
              amount: debit.amount,
              orderId: debit.orderId ?? undefined,
              workflowId: input.workflowId,
              runId: input.runId,
              step: PAYMENT_REVERSAL_STEP,
              reversesEntryId: debit.id,
              note: `reversal of payment ${debit.id}: ${input.reason}`.slice(0, 500),
            })
          ).id;
    }
    if (heldBy(order, input) && order.status === 'processing') {
      const released = input.releaseTo ?? 'pending';
      await tx.update(orders).set({ status: released, paymentWorkflowId: null, paymentRunId: null, updatedAt: new Date() }).where(eq(orders.id, order.id));
      return { reversalLedgerId, orderStatus: released };
    }
    // Not this run's to release (its debit never happened, or another payment holds the order): as it is.
    return { reversalLedgerId, orderStatus: order.status };
  });
}

/** The order this run holds, still processing, completes: one statement, atomic on its own (prepared: every payment runs it). */
const completeHeldOrder = preparedQuery('complete_held_order', (db, name) =>
  db
    .update(orders)
    .set({
      status: 'completed',
      supplierRef: sql`${sql.placeholder('supplierRef')}`,
      completedAt: sql`${sql.placeholder('now')}`,
      updatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(
      and(
        eq(orders.id, sql.placeholder('orderId')),
        eq(orders.status, 'processing'),
        eq(orders.paymentWorkflowId, sql.placeholder('workflowId')),
        eq(orders.paymentRunId, sql.placeholder('runId')),
      ),
    )
    .returning({ id: orders.id })
    .prepare(name),
);

/** Marks an order this run paid for as completed, with the supplier's reference. */
export async function completeOrder(db: DbOrTx, input: PaymentRun & { orderId: number; supplierRef: string }): Promise<{ status: 'completed' }> {
  const [completed] = await completeHeldOrder(db, {
    supplierRef: input.supplierRef,
    now: new Date().toISOString(),
    orderId: input.orderId,
    workflowId: input.workflowId,
    runId: input.runId,
  });
  if (completed) return { status: 'completed' };
  // Nothing changed: completed already (a retried step), or why not.
  const [order] = await db.select().from(orders).where(eq(orders.id, input.orderId));
  if (!order) throw new DomainError('not_payable', `order ${input.orderId} does not exist`);
  if (!heldBy(order, input)) throw new DomainError('conflict', `order ${order.id} is not held by payment ${input.workflowId}`);
  if (order.status !== 'completed') throw new DomainError('conflict', `order ${order.id} cannot complete from ${order.status}`);
  return { status: 'completed' };
}
