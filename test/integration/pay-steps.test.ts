import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { asc, eq } from 'drizzle-orm';
import { ledgerEntries, orderItems, orders } from '../../src/db/schema';
import { getOrderWithItems } from '../../src/domain/orders';
import { debitForOrder } from '../../src/domain/money/payment-ledger';
import { apiMetrics } from '../../src/platform/metrics';
import { newPartner } from '../support/clients';
import { scheduledActivities } from '../support/histories';
import { OrderStatus, Stage } from '../../workflows/search-attributes';
import { type TestStack, useStack } from '../support/stack';

/**
 * The payment's steps (docs/decisions/payment-shape.md): debit, supplier step and completion
 * run first as one local activity within a few seconds (the fast path); what it does not
 * finish runs step by step, the database steps (debit, complete, reverse) as local
 * activities, the supplier step, when it does not answer in time or fails in a way worth
 * retrying, as an activity of its own; started eagerly when the API shares its worker's
 * connection (`npm start`). The money rules hold: one debit per completed order, a reversal
 * when the supplier says no.
 */

let stack: TestStack;
// The slow supplier answers after the fast path has given up (FAST_PATH_STEP).
useStack((s) => (stack = s), { payWaitMs: 30_000, slowMs: 4_500, eagerStart: true });

const ledgerOf = async (orderId: number) =>
  (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id))).map((e) => e.type);

async function historyOf(orderId: number) {
  const [order] = await stack.db.select().from(orders).where(eq(orders.id, orderId));
  const workflowId = `pay:p${order!.partnerId}:order:${orderId}`;
  const handle = stack.client.workflow.getHandle(workflowId);
  // The answer can come from the worker a moment before Temporal records the close (src/temporal/outcomes.ts).
  await handle.result().catch(() => undefined);
  const { events } = await handle.fetchHistory();
  const described = await handle.describe();
  return {
    workflowId,
    activities: await scheduledActivities(stack, workflowId),
    markers: events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
    workflowTasks: events!.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    clientReference: `${workflowId}/${events![0]!.workflowExecutionStartedEventAttributes!.originalExecutionRunId}`,
    // What an operator sees from the start, then each Stage the run sets (an upsert, a command and an event each).
    opening: attributesOf(events![0]!.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields),
    stages: events!.flatMap((e) => {
      const upserted = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
      return upserted ? [attributesOf(upserted).stage] : [];
    }),
    stage: described.typedSearchAttributes.get(Stage),
    orderStatus: described.typedSearchAttributes.get(OrderStatus),
  };
}

function attributesOf(fields: Parameters<typeof decodeTypedSearchAttributes>[0]) {
  const attrs = decodeTypedSearchAttributes(fields);
  return { stage: attrs.get(Stage), orderStatus: attrs.get(OrderStatus) };
}

const statusOf = async (orderId: number) => (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status;

const eagerStarts = async () => {
  const metric = await apiMetrics.getSingleMetric('workflow_starts_total')!.get();
  return metric.values.find((v) => v.labels.workflow === 'payOrder' && v.labels.eager === 'true')?.value ?? 0;
};

describe("the payment's steps", () => {
  it('against a supplier that answers at once, every step runs in one local activity of one workflow task', async () => {
    const before = await eagerStarts();
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_status: 'completed', amount: 550000, new_balance: 4450000 });
    expect(await ledgerOf(order.id)).toEqual(['payment']);

    const history = await historyOf(order.id);
    expect(history.activities).toEqual([]);
    expect(history.markers).toBe(1); // payFastPath: debitForOrder, finalizeOrder, completeOrder
    expect(history.workflowTasks).toBe(1);
    expect(history).toMatchObject({ stage: 'done', orderStatus: 'completed' });
    // It starts showing debiting and processing (the start request sets them); the supplier answered within the task.
    expect(history.opening).toEqual({ stage: 'debiting', orderStatus: 'processing' });
    expect(history.stages).toEqual(['done']);
    expect(await eagerStarts()).toBe(before + 1);
  });

  it("answers the order and its lines with the fast path's debit, as reading them again would", async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const { id: orderId } = await api.productOrder({ quantity: 2 });
    const [line] = await stack.db.select().from(orderItems).where(eq(orderItems.orderId, orderId));
    // A second line, so that the statement's one row per line is read back as one order.
    const { id: _id, ...copy } = line!;
    await stack.db.insert(orderItems).values({ ...copy, sku: `${line!.sku}-2`, quantity: 1, lineTotal: line!.unitPrice });
    const [{ partnerId }] = (await stack.db.select({ partnerId: orders.partnerId }).from(orders).where(eq(orders.id, orderId))) as [{ partnerId: number }];
    const run = { workflowId: `test-debit-${orderId}`, runId: 'run-1', orderId, partnerId };

    const debited = await debitForOrder(stack.db, run, { withOrder: true });
    const read = await getOrderWithItems(stack.db, orderId);
    expect(read).toMatchObject({ status: 'processing', paymentRunId: 'run-1' });
    expect(read!.items).toHaveLength(2);
    expect(debited.order).toEqual(read);
    // Run again for the same run (a retried step), it finds its debit and answers it without the order.
    const again = await debitForOrder(stack.db, run, { withOrder: true });
    expect(again).toEqual({ ...debited, order: undefined });
    // Without the option, nothing more than the debit.
    const other = await api.productOrder();
    expect(await debitForOrder(stack.db, { ...run, workflowId: `test-debit-${other.id}`, orderId: other.id })).not.toHaveProperty('order');
  });

  it('a supplier slower than the fast path gets the step again as an activity, under the same client reference', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_slow' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_status: 'completed' });
    expect(await ledgerOf(order.id)).toEqual(['payment']);
    const history = await historyOf(order.id);
    // The fast path timed out (its marker records the failure); the activity shows in Temporal Web while it runs.
    expect(history.activities).toEqual(['finalizeOrder']);
    expect(history.markers).toBe(3); // payFastPath, debitForOrder (finding the fast path's debit), completeOrder
    expect(history.stages).toEqual(['finalizing', 'completing', 'done']);
    // One fulfilment for the payment's client reference: the abandoned fast path and the activity asked for the same one.
    const { clientReference } = history;
    const found = await fetch(`${stack.simulatorUrl}/products/fulfilments?client_reference=${encodeURIComponent(clientReference)}`);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { fulfilment_id: string }).fulfilment_id).toBe(
      (await stack.db.select().from(orders).where(eq(orders.id, order.id)))[0]!.supplierRef,
    );
  });

  it('reverses the debit locally when the supplier refuses', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(res.status).toBe(502);
    expect(await ledgerOf(order.id)).toEqual(['payment', 'refund']);
    expect(await api.wallet()).toMatchObject({ balance: '5000000.00' });
    const history = await historyOf(order.id);
    // A refusal is an answer: the fast path's is final, nothing goes through the activity queue.
    expect(history.activities).toEqual([]);
    expect(history.markers).toBe(2); // payFastPath (debit, then the refusal), reversePayment
    // The order is payable again, and the payment's OrderStatus says so.
    expect(history).toMatchObject({ stage: 'failed', orderStatus: 'pending' });
    expect(history.opening).toEqual({ stage: 'debiting', orderStatus: 'processing' });
    expect(history.stages).toEqual(['compensating', 'failed']);
    expect(await statusOf(order.id)).toBe('pending');
  });

  it("rides out a flaky supplier with the activity's retries after the fast path: one debit, completed", async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_flaky' });
    expect(res.status).toBe(200);
    expect(await ledgerOf(order.id)).toEqual(['payment']);
    expect((await historyOf(order.id)).activities).toEqual(['finalizeOrder']);
  });
});
