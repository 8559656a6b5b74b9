import { asc, eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { apiMetrics } from '../../src/platform/metrics';
import { newPartner } from '../support/clients';
import { recordHistory, scheduledActivities } from '../support/histories';
import { startStack, type TestStack, useStack } from '../support/stack';

/**
 * The tuned payment (PAY_LOCAL_LEDGER_STEPS + EAGER_WORKFLOW_START, `npm start`'s defaults,
 * see docs/performance.md) keeps the money rules: one debit per completed order, a reversal
 * when the supplier says no. Payments with the ledger steps as ordinary activities (those
 * started before, Interface B's) keep working beside them.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 30_000, slowMs: 2_500, payTuning: { localLedgerSteps: true, eagerStart: true } });

const ledgerOf = async (orderId: number) =>
  (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id))).map((e) => e.type);

async function historyOf(orderId: number, on: TestStack = stack) {
  const [order] = await on.db.select().from(orders).where(eq(orders.id, orderId));
  const workflowId = `pay:p${order!.partnerId}:order:${orderId}`;
  const { events } = await on.client.workflow.getHandle(workflowId).fetchHistory();
  return {
    workflowId,
    activities: await scheduledActivities(on, workflowId),
    markers: events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
  };
}

const eagerStarts = async () => {
  const metric = await apiMetrics.getSingleMetric('workflow_starts_total')!.get();
  return metric.values.find((v) => v.labels.workflow === 'payOrder' && v.labels.eager === 'true')?.value ?? 0;
};

describe('payments with local ledger steps and eager start', () => {
  it('debit and complete run as local activities; only the supplier step goes through the activity queue', async () => {
    const before = await eagerStarts();
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_status: 'completed', amount: 550000, new_balance: 4450000 });
    expect(await ledgerOf(order.id)).toEqual(['payment']);

    const history = await historyOf(order.id);
    expect(history.activities).toEqual(['finalizeOrder']);
    expect(history.markers).toBe(2); // debitForOrder, completeOrder
    expect(await eagerStarts()).toBe(before + 1);
    await recordHistory(stack, history.workflowId, 'pay-local-ledger');
  });

  it('reverses the debit locally when the supplier refuses', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'supplier_reject' });
    expect(res.status).toBe(502);
    expect(await ledgerOf(order.id)).toEqual(['payment', 'refund']);
    expect(await api.wallet()).toMatchObject({ balance: '5000000.00' });
    const history = await historyOf(order.id);
    expect(history.activities).toEqual(['finalizeOrder']);
    expect(history.markers).toBe(2); // debitForOrder, reversePayment
  });

  it('finishes with one debit when the worker stops after the local debit and comes back', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const pending = api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'crash-local' }, { 'X-Sandbox-Scenario': 'supplier_slow' });
    for (let i = 0; (await ledgerOf(order.id)).length === 0; i++) {
      if (i > 200) throw new Error('the debit never happened');
      await new Promise((r) => setTimeout(r, 50));
    }
    await stack.stopWorker();
    await stack.startWorker();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data.order_status).toBe('completed');
    expect(await ledgerOf(order.id)).toEqual(['payment']);
  });

  it('keeps one debit when 20 identical pays race', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'race-1' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(await ledgerOf(order.id)).toEqual(['payment']);
    expect(await api.wallet()).toMatchObject({ balance: '4450000.00' });
  });

  it('still runs payments whose ledger steps are ordinary activities', async () => {
    const remote = await startStack({ payTuning: { localLedgerSteps: false } });
    try {
      const { api } = await newPartner(remote, '0', '5000000');
      const order = await api.productOrder();
      expect((await api.post('/api/partners/pay/', { product_order_id: order.id })).status).toBe(200);
      const history = await historyOf(order.id, remote);
      expect(history.activities).toEqual(['debitForOrder', 'finalizeOrder', 'completeOrder']);
      expect(history.markers).toBe(0);
      const refused = await api.productOrder();
      expect((await api.post('/api/partners/pay/', { product_order_id: refused.id }, { 'X-Sandbox-Scenario': 'supplier_reject' })).status).toBe(502);
      expect((await historyOf(refused.id, remote)).activities).toEqual(['debitForOrder', 'finalizeOrder', 'reversePayment']);
      expect(await api.wallet()).toMatchObject({ balance: '4450000.00' });
    } finally {
      await remote.close();
    }
  });
});
