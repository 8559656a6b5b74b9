/**
 * The payment saga's money steps on the database (workflows/pay.workflow.ts runs them as
 * activities): debit the wallet, reverse the debit, complete the order. A partner's pay
 * request, which starts the saga, is in pay-request.ts.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type DbOrTx, type Tx } from '../../db/client';
import { preparedQuery, preparedSql } from '../../db/prepared';
import { accounts, ledgerEntries, orderItems, orders, partners, transfers, wallets, type OrderStatus } from '../../db/schema';
import { columnsAs, rowFrom } from '../../db/table-rows';
import { reversalLegs } from './books';
import { DomainError } from '../errors';
import type { OrderWithItems } from '../orders';
import { applyMovement, getWallet, insufficientCredit, lockWallet, type LedgerRow } from './wallet';
import { actorNow } from '../../platform/request-context';
import type { DebitResult } from '../../../workflows/pay.types';
import type { PaymentRun } from '../../../workflows/payment-run.types';

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

/** What the debit's statement adds to answer the order as it left it, with its lines (one row per line). */
const ORDER_WITH_LINES = {
  columns: sql`, ${columnsAs(orders, 'm', 'order')}, ${columnsAs(orderItems, 'i', 'item')}`,
  join: sql`left join moved m on true left join ${orderItems} i on i.order_id = m.id order by i.id`,
};

/** What each debit gives its statement. */
type DebitParams = { orderId: number; partnerId: number; workflowId: string; runId: string; now: string; actor: string };

/** The debit's statement (see debitForOrder), prepared: every payment runs it, and planning it on every call costs PostgreSQL more than running it. */
function debitStatement(withOrder: { columns: SQL; join: SQL }) {
  return sql`
      with o as (
        select id, partner_id, total_price_minor as amount, currency, service, supplier,
          coalesce(net_minor, total_price_minor) as net, coalesce(margin_minor, 0) as margin, supplier_amount_minor, supplier_currency, fx_rate_amount,
          -- A sub-agency's order: its parent's share of the margin, to the parent's account.
          (select parent_id from ${partners} where ${partners}.id = ${orders}.partner_id) as parent_id, agency_margin_minor
        from ${orders}
        where id = ${sql.placeholder('orderId')} and partner_id = ${sql.placeholder('partnerId')} and status = 'pending' and payment_method = 'PARTNER_CREDIT'
          -- Pending again after this run's own reversal (its steps run again from the start): its debit stands, none is added.
          and not exists (
            select 1 from ${ledgerEntries}
            where workflow_id = ${sql.placeholder('workflowId')} and run_id = ${sql.placeholder('runId')} and step = ${PAYMENT_DEBIT_STEP}
          )
        for update
      ), w as (
        update ${wallets} set balance_minor = ${wallets}.balance_minor - o.amount, updated_at = ${sql.placeholder('now')}::timestamptz
        from o
        where ${wallets}.partner_id = o.partner_id and ${wallets}.currency = o.currency
          and ${wallets}.balance_minor + ${wallets}.credit_limit_minor >= o.amount
        returning ${wallets}.balance_minor, ${wallets}.credit_limit_minor, ${wallets}.currency
      ), moved as (
        update ${orders} set status = 'processing', payment_workflow_id = ${sql.placeholder('workflowId')}, payment_run_id = ${sql.placeholder('runId')},
          acted_by = ${sql.placeholder('actor')}::jsonb, updated_at = ${sql.placeholder('now')}::timestamptz
        from o, w
        where ${orders}.id = o.id
        returning ${orders}.*
      ), entry as (
        insert into ${ledgerEntries} (partner_id, direction, type, amount_minor, balance_after_minor, order_id, workflow_id, run_id, step, note, actor)
        select o.partner_id, 'debit', 'payment', o.amount, w.balance_minor, o.id, ${sql.placeholder('workflowId')}, ${sql.placeholder('runId')}, ${PAYMENT_DEBIT_STEP},
          'payment of ' || o.service || ' order ' || o.id, ${sql.placeholder('actor')}::jsonb
        from o, w
        returning id
      ), legs as (
        -- The sale in the books (saleLegs in src/domain/money/books.ts): the net to the supplier, through
        -- the conversion accounts when it prices in another currency, and the margin to revenue.
        select l.* from o, w, entry,
          lateral (select case when o.parent_id is null then 0 else o.agency_margin_minor end as agency_margin) a,
          lateral (select o.supplier_currency is not null and o.supplier_amount_minor is not null and o.fx_rate_amount is not null
            and o.supplier_currency <> w.currency as foreign_priced) f,
          lateral (values
            (0, 'sale_margin', 'wallet:' || o.partner_id, 'margin:' || w.currency, w.currency, o.margin - a.agency_margin),
            (3, 'agency_margin', 'wallet:' || o.partner_id, 'agency_margin:' || o.parent_id, w.currency, a.agency_margin),
            (1, 'sale_net', 'wallet:' || o.partner_id,
              case when f.foreign_priced then 'fx:' || w.currency else 'supplier:' || o.supplier || ':' || w.currency end, w.currency, o.net),
            (2, 'fx_conversion', 'fx:' || o.supplier_currency, 'supplier:' || o.supplier || ':' || o.supplier_currency, o.supplier_currency,
              case when f.foreign_priced then o.supplier_amount_minor else 0 end)
          ) l (n, kind, debit, credit, currency, amount)
        where l.amount > 0
      ), opened as (
        insert into ${accounts} (code, currency)
        select code, currency from (select debit, currency from legs union select credit, currency from legs) a (code, currency)
        order by code -- one order for all: two first sales opening the same accounts never deadlock
        on conflict do nothing
      ), posted as (
        insert into ${transfers} (ledger_entry_id, order_id, kind, debit_account, credit_account, currency, amount_minor)
        select entry.id, o.id, legs.kind, legs.debit, legs.credit, legs.currency, legs.amount from legs, entry, o order by legs.n
      )
      select o.id as order_id, o.amount, o.currency as order_currency, w.balance_minor as balance_after, w.credit_limit_minor as credit_limit, w.currency,
        (select id from entry) as ledger_id ${withOrder.columns}
      from o left join w on true ${withOrder.join}`;
}
const debitOnly = preparedSql<DebitParams>('debit_for_order', debitStatement({ columns: sql``, join: sql`` }));
const debitWithOrder = preparedSql<DebitParams>('debit_for_order_with_lines', debitStatement(ORDER_WITH_LINES));

/**
 * Debits the wallet for a pending order and marks the order processing, in one statement
 * (atomic on its own: no BEGIN and COMMIT round trips, and every payment makes it). Its
 * parts run in the order their data needs:
 * - the order is locked if it is pending for this partner on credit (order, then wallet, as
 *   everywhere);
 * - the wallet's balance moves by the order's total only if the wallet holds the order's
 *   currency and the total fits within balance + credit limit (which locks it);
 * - only if the wallet moved, the order moves pending → processing for this run, the
 *   ledger row is written with the balance the wallet's update returned, and the sale is
 *   posted to the books.
 * So an order that is not pending, or a total that does not fit, writes nothing, and then
 * says why. Two payments of one order, or two debits of one wallet, serialise on those
 * locks. Re-running it for the same run returns the first debit (Temporal may retry an
 * activity whose result was lost), also once the run's own reversal has put the order back
 * to pending: a workflow task whose local activities' results were lost (its worker, or
 * Temporal, died before they were recorded) runs its debit, supplier step and reversal
 * again from the start. `withOrder`: the same statement also answers the order as the debit
 * left it, with its lines (a payment's fast path hands them to its supplier step instead of
 * reading them again); a debit found written earlier answers without them.
 */
export async function debitForOrder(
  db: DbOrTx,
  input: PaymentRun & { orderId: number; partnerId: number },
  opts: { withOrder?: boolean } = {},
): Promise<DebitResult & { order?: OrderWithItems }> {
  const params: DebitParams = {
    orderId: input.orderId,
    partnerId: input.partnerId,
    workflowId: input.workflowId,
    runId: input.runId,
    now: new Date().toISOString(),
    actor: JSON.stringify(actorNow()),
  };
  const rows = rowsOf<{
    order_id: number;
    amount: string;
    order_currency: string;
    balance_after: string | null;
    credit_limit: string | null;
    currency: string | null;
    ledger_id: number | null;
  }>(await (opts.withOrder ? debitWithOrder : debitOnly)(db, params));
  const [row] = rows;
  if (!row) return db.transaction((tx) => debitWrittenOrWhyNot(tx, input));
  const amount = Number(row.amount);
  if (row.balance_after === null) {
    // Nothing fits, or the order is in another currency than the wallet: nothing was written.
    const wallet = await getWallet(db, input.partnerId);
    if (wallet.currency !== row.order_currency) {
      throw new DomainError('not_payable', `order ${row.order_id} is priced in ${row.order_currency} and cannot be paid from a wallet in ${wallet.currency}`);
    }
    throw insufficientCredit(wallet.balance + wallet.creditLimit, amount, wallet.currency);
  }
  // The wallet moved, so the order moved and the ledger row was written (the same rows of o and w feed all three).
  if (row.ledger_id === null) throw new Error(`debit of order ${row.order_id}: the wallet moved without its ledger row`);
  const result = debitResult(
    row.order_id,
    { id: row.ledger_id, amount, balanceAfter: Number(row.balance_after) },
    { creditLimit: Number(row.credit_limit), currency: row.currency! },
  );
  const order = opts.withOrder ? rowFrom(orders, row, 'order') : undefined;
  if (!order) return result;
  return { ...result, order: { ...order, items: rows.flatMap((r) => rowFrom(orderItems, r, 'item') ?? []) } };
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
 * when what it would buy is gone). It tolerates partial state: no debit means nothing to
 * give back, and a second call finds the reversal already written. With `failsOrder` (an
 * order that exists only for this payment, Interface B's) the order is then failed, also
 * when the debit never took it (it is still pending, held by no payment). An order another
 * payment holds is left as it is.
 */
export async function reversePayment(
  db: DbOrTx,
  input: PaymentRun & { orderId: number; reason: string; releaseTo?: 'pending' | 'failed'; failsOrder?: boolean },
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
            await applyMovement(
              tx,
              wallet,
              {
                direction: 'credit',
                type: 'refund',
                amount: debit.amount,
                orderId: debit.orderId ?? undefined,
                workflowId: input.workflowId,
                runId: input.runId,
                step: PAYMENT_REVERSAL_STEP,
                reversesEntryId: debit.id,
                note: `reversal of payment ${debit.id}: ${input.reason}`.slice(0, 500),
              },
              await reversalLegs(tx, debit.id),
            )
          ).id;
    }
    let status: OrderStatus = order.status;
    const moveTo = (to: OrderStatus) =>
      tx
        .update(orders)
        .set({ status: to, paymentWorkflowId: null, paymentRunId: null, actedBy: actorNow(), updatedAt: new Date() })
        .where(eq(orders.id, order.id));
    if (heldBy(order, input) && order.status === 'processing') {
      status = input.releaseTo ?? 'pending';
      await moveTo(status);
    }
    // An order that exists only for this payment fails with it, as a move of its own (order.failed);
    // one this run never took is failed only while no other payment holds it.
    if (input.failsOrder && status === 'pending' && (status !== order.status || order.paymentWorkflowId === null)) {
      status = 'failed';
      await moveTo(status);
    }
    return { reversalLedgerId, orderStatus: status };
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

export type { DebitResult, PaymentRun };
