import { asc, eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { OrderStatus, Stage } from '../../workflows/search-attributes';
import { adminClient, newPartner } from '../support/clients';
import { recordHistory, scheduledActivities } from '../support/histories';
import { untilParked } from '../support/parked';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * Today's payments (PAY_SHAPE=lean, docs/performance.md): debit, supplier step and
 * completion all run as local activities, the completion inside the supplier step, so a
 * payment that meets no failure is one workflow task of nine events; the money rules are
 * those of every other payment.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 30_000, slowMs: 2_500, payTuning: { localLedgerSteps: true, eagerStart: true, shape: 'lean' } });

/** Waits until the payment's debit is in the ledger (as the partner's request still waits on the supplier). */
const debited = (orderId: number) => waitFor(async () => (await ledgerOf(orderId)).length > 0, 'the debit', 10_000);

const ledgerOf = async (orderId: number) =>
  (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id))).map((e) => e.type);

async function historyOf(orderId: number, key?: string) {
  const [order] = await stack.db.select().from(orders).where(eq(orders.id, orderId));
  const workflowId = key ? `pay:p${order!.partnerId}:key:${key}` : `pay:p${order!.partnerId}:order:${orderId}`;
  const handle = stack.client.workflow.getHandle(workflowId);
  // The answer can come from the worker a moment before Temporal records the close (src/temporal/outcomes.ts).
  await handle.result().catch(() => undefined);
  const { events } = await handle.fetchHistory();
  const described = await handle.describe();
  return {
    workflowId,
    events: events!.length,
    activities: await scheduledActivities(stack, workflowId),
    localSteps: events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
    otherMarkers: events!.filter((e) => e.markerRecordedEventAttributes && e.markerRecordedEventAttributes.markerName !== 'core_local_activity').length,
    workflowTasks: events!.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    upserts: events!.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length,
    stage: described.typedSearchAttributes.get(Stage),
    orderStatus: described.typedSearchAttributes.get(OrderStatus),
  };
}

describe('lean payments', () => {
  it('pay in one workflow task: two local steps (the supplier step completes the order), nothing through the activity queue, two Stage upserts', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_status: 'completed', amount: 550000, new_balance: 4450000 });
    expect(await ledgerOf(order.id)).toEqual(['payment']);

    const history = await historyOf(order.id);
    expect(history).toMatchObject({ activities: [], localSteps: 2, otherMarkers: 0, workflowTasks: 1, upserts: 2, stage: 'done', orderStatus: 'completed' });
    expect(history.events).toBe(9);
    const [done] = await stack.db.select().from(orders).where(eq(orders.id, order.id));
    expect(done).toMatchObject({ status: 'completed', supplierRef: expect.stringMatching(/^FUL-/) });
    // Lean payments recorded before the supplier step completed the order stay in pay-lean-completed.json and pay-lean-compensated.json.
    await recordHistory(stack, history.workflowId, 'pay-lean-folded-completed');
  });

  it('reverses the debit when the supplier refuses, and ends at Stage failed with the order pending again', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/could not finalize .* the debit was reversed/);
    expect(await ledgerOf(order.id)).toEqual(['payment', 'refund']);
    expect(await api.wallet()).toMatchObject({ balance: '5000000.00' });
    const history = await historyOf(order.id);
    // The order is payable again, and the payment's OrderStatus says so (it started as processing).
    // Debit, supplier step (refused: nothing completed), reversal.
    expect(history).toMatchObject({ activities: [], localSteps: 3, stage: 'failed', orderStatus: 'pending' });
    await recordHistory(stack, history.workflowId, 'pay-lean-folded-compensated');
  });

  it('completes the order as a step of its own when the supplier step could not: parked when refused, completed on retry, never compensated', async () => {
    const { api, creds } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const key = 'fold-refused';
    const pending = api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: key }, { 'X-Sandbox-Scenario': 'supplier_slow' });
    await debited(order.id);
    // While the supplier works, the order leaves processing behind the payment's back: its completion is refused.
    await stack.db.update(orders).set({ status: 'pending' }).where(eq(orders.id, order.id));

    const admin = adminClient(stack);
    const seen = await untilParked(stack, order.id, { workflow: 'payment', boundMs: 20_000 });
    expect(seen.payment.state).toMatchObject({
      step: 'needs_attention',
      parkedAt: 'completing',
      supplierRef: expect.stringMatching(/^FUL-/),
      lastError: `completing order ${order.id} failed: order ${order.id} cannot complete from pending`,
    });
    expect(await ledgerOf(order.id)).toEqual(['payment']);

    await stack.db.update(orders).set({ status: 'processing' }).where(eq(orders.id, order.id));
    const retried = await admin.post(`/admin/orders/${order.id}/retry`, { reason: 'order row repaired' });
    expect(retried.status).toBe(200);
    expect(retried.body.order).toMatchObject({ status: 'completed', supplier_ref: seen.payment.state.supplierRef });
    expect(await ledgerOf(order.id)).toEqual(['payment']);
    // The partner's request was still waiting (PAY_WAIT_MS): it gets the completed payment.
    const answered = await pending;
    expect(answered.status).toBe(200);
    expect(answered.body.data).toMatchObject({ order_status: 'completed', new_balance: 4450000 });
    const history = await historyOf(order.id, key);
    expect(history.workflowId).toBe(`pay:p${creds.partner_id}:key:${key}`);
    // Debit, supplier step, the completion refused, the operators' needs_attention event, then the completion after the retry.
    expect(history).toMatchObject({ activities: [], localSteps: 5, stage: 'done', orderStatus: 'completed' });
    await recordHistory(stack, history.workflowId, 'pay-lean-folded-completion-parked-retried');
  });

  it('rides out a flaky supplier with local retries: one debit, completed', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_flaky' });
    expect(res.status).toBe(200);
    expect(await ledgerOf(order.id)).toEqual(['payment']);
    expect((await historyOf(order.id)).activities).toEqual([]);
  });

  it('finishes with one debit, fulfilled, when the worker stops during the supplier call and comes back', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const pending = api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'crash-lean' }, { 'X-Sandbox-Scenario': 'supplier_slow' });
    await debited(order.id);
    await stack.stopWorker();
    await stack.startWorker();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data.order_status).toBe('completed');
    expect(await ledgerOf(order.id)).toEqual(['payment']);
    const [done] = await stack.db.select().from(orders).where(eq(orders.id, order.id));
    expect(done!.supplierRef).toMatch(/^FUL-/);
  });

  it('keeps one debit when 20 identical pays race', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'race-lean' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(await ledgerOf(order.id)).toEqual(['payment']);
  });
});
