import { WorkflowFailedError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import { orders, paymentKeys } from '../../src/db/schema';
import { workflowOutcomesHeard } from '../../src/platform/metrics';
import { WorkflowOutcomes } from '../../src/temporal/outcomes';
import { awaitWorkflow } from '../../src/temporal/workflows';
import type { PayResult } from '../../workflows/pay.types';
import { DomainError } from '../../src/domain/errors';
import { adminClient, call, newPartner } from '../support/clients';
import { arm, disarmAll, faultInjector } from '../support/faults';
import { untilParked } from '../support/parked';
import { type TestStack, useStack } from '../support/stack';

/**
 * Where the API and the worker share a process (npm start), the API hears how a payment's
 * run ended from the worker itself instead of long-polling Temporal for its close
 * (src/temporal/outcomes.ts; docs/decisions/outcomes-from-the-worker-next-door.md).
 */

/** Outcomes the API took from each source so far (this file's module registry). */
async function heard(): Promise<{ worker: number; temporal: number }> {
  const { values } = await workflowOutcomesHeard.get();
  const of = (via: string) => values.find((v) => v.labels.via === via)?.value ?? 0;
  return { worker: of('worker'), temporal: of('temporal') };
}

const payWorkflowOf = async (stack: TestStack, orderId: number, key?: string) => {
  const [order] = await stack.db.select().from(orders).where(eq(orders.id, orderId));
  return stack.client.workflow.getHandle<() => Promise<PayResult>>(key ? `pay:p${order!.partnerId}:key:${key}` : `pay:p${order!.partnerId}:order:${orderId}`);
};

describe('the API next to its worker', () => {
  let stack: TestStack;
  useStack((s) => (stack = s));

  it("answers a payment with the worker's outcome, the result Temporal records for the run, without asking Temporal", async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const before = await heard();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id });
    expect(res.status).toBe(200);
    expect(await heard()).toEqual({ worker: before.worker + 1, temporal: before.temporal });
    expect(stack.outcomes!.waiters).toBe(0);

    const recorded = await (await payWorkflowOf(stack, order.id)).result();
    expect(res.body.data).toMatchObject({
      order_id: recorded.orderId,
      order_status: recorded.orderStatus,
      amount: recorded.amountMinor / 100,
      new_balance: recorded.balanceAfterMinor / 100,
    });
  });

  it("answers a refused payment once Temporal has recorded the run's close, and records the key's failure as answered (a retry pays again)", async () => {
    const { api } = await newPartner(stack, '0', '1');
    const order = await api.productOrder();
    const before = await heard();
    const refused = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'told-1' });
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ ok: false, error: expect.stringContaining('insufficient credit') });
    expect(await heard()).toEqual({ worker: before.worker, temporal: before.temporal + 1 });

    const handle = await payWorkflowOf(stack, order.id, 'told-1');
    const { runId, status } = await handle.describe();
    expect(status.name).toBe('FAILED');
    const [key] = await stack.db
      .select()
      .from(paymentKeys)
      .where(and(eq(paymentKeys.idempotencyKey, 'told-1'), eq(paymentKeys.orderId, order.id)));
    expect(key).toMatchObject({ answeredRunId: runId, answeredAt: expect.any(Date) });
  });

  it('hears the other workflows it starts and waits for the same way: an agency product order (Interface B), paid by its child', async () => {
    const { creds, api } = await newPartner(stack, '0', '500000000');
    const before = await heard();
    const body = { product_id: 'ESIM-TR-10GB-15D', quantity: 1, delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' } };
    const placed = await call(stack.app, 'POST', '/v1/products/orders', { authorization: `Bearer ${creds.agency_key}` }, body);
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ status: 'completed', total_price: 1200000 });
    expect(await heard()).toEqual({ worker: before.worker + 1, temporal: before.temporal });
    expect(await api.wallet()).toMatchObject({ balance: '498800000.00' });
    expect(stack.outcomes!.waiters).toBe(0);
  });
});

describe('a payment that parks for an operator', () => {
  let stack: TestStack;
  const payWaitMs = 60_000;
  useStack((s) => (stack = s), { payWaitMs, activityInterceptors: [faultInjector] });
  afterEach(disarmAll);

  it('is answered "under way" once it parks, not when the wait runs out; again at once while parked, and with its outcome once an operator resumed it', async () => {
    const { api } = await newPartner(stack, '0', '10000000');
    const order = await api.productOrder();
    arm({
      step: 'completeOrder',
      orderId: order.id,
      error: () => new DomainError('conflict', `order ${order.id} cannot complete from processing (injected)`),
    });
    const pay = () => api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'parks' });

    const sentAt = Date.now();
    const first = await pay();
    expect(first.status).toBe(202);
    expect(first.body.data).toMatchObject({ order_status: 'processing' });
    expect(Date.now() - sentAt).toBeLessThan(payWaitMs);
    await untilParked(stack, order.id, { workflow: 'payment', at: 'completing' });

    const askedAt = Date.now();
    expect((await pay()).status).toBe(202);
    expect(Date.now() - askedAt).toBeLessThan(payWaitMs);
    expect(stack.outcomes!.waiters).toBe(0);

    disarmAll();
    const retry = await adminClient(stack).post(`/admin/orders/${order.id}/retry`, { reason: 'the cause is gone' });
    expect(retry.status).toBe(200);
    const again = await pay();
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ order_status: 'completed' });
  });
});

describe('WorkflowOutcomes: parked runs', () => {
  it('tells the waiters of a run that parks, and a waiter that comes later while it stays parked; not once it resumed or closed', async () => {
    const outcomes = new WorkflowOutcomes();
    const waiting = outcomes.wait('w', 'r');
    outcomes.parked('w', 'r');
    await expect(waiting.outcome).resolves.toEqual({ parked: true });
    await expect(outcomes.wait('w', 'r').outcome).resolves.toEqual({ parked: true });
    expect(outcomes.waiters).toBe(0);

    outcomes.resumed('w', 'r');
    const afterResume = outcomes.wait('w', 'r');
    expect(outcomes.waiters).toBe(1);
    outcomes.settled('w', 'r', { ok: true, result: 1 });
    await expect(afterResume.outcome).resolves.toEqual({ ok: true, result: 1 });

    outcomes.parked('w', 'closed-later');
    outcomes.settled('w', 'closed-later', { ok: true, result: 2 });
    await expect(outcomes.wait('w', 'closed-later').outcome).resolves.toEqual({ ok: true, result: 2 });
  });
});

describe('a failure the worker tells', () => {
  let stack: TestStack;
  useStack((s) => (stack = s));

  it('is not answered while Temporal still shows the run running (a retry would join it), and is once the run has closed', async () => {
    const workflowId = `told-failure-${Date.now()}`;
    const handle = await stack.client.workflow.start('hotelHoldExpiry', {
      workflowId,
      taskQueue: stack.taskQueue,
      args: [{ bookingId: -1, expiresAt: Date.now() + 3_600_000 }],
    });
    const inProcess = { outcomes: new WorkflowOutcomes(), runId: handle.firstExecutionRunId };
    inProcess.outcomes.settled(workflowId, inProcess.runId, { ok: false, type: 'supplier_rejected', message: 'no' });
    const mapFailure = (f: { type: string }) => new Error(`mapped ${f.type}`);

    await expect(awaitWorkflow(handle, 1_500, mapFailure, { inProcess })).resolves.toBeNull();

    const answered = expect(awaitWorkflow(handle, 30_000, mapFailure, { inProcess })).rejects.toThrow(WorkflowFailedError);
    await handle.terminate('closed by the test');
    await answered;
  });
});

describe('the API whose worker never tells (every run closed on another worker)', () => {
  let stack: TestStack;
  useStack((s) => (stack = s), { outcomes: 'untold' });

  it('asks Temporal after the backstop and answers the same, leaving no waiter behind', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    const order = await api.productOrder();
    const before = await heard();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_status: 'completed', amount: 550000 });
    expect(await heard()).toEqual({ worker: before.worker, temporal: before.temporal + 1 });
    expect(stack.outcomes!.waiters).toBe(0);
  });
});

describe('WorkflowOutcomes', () => {
  it('gives an outcome told before or after the wait, to every waiter, decoded as a client would get it from Temporal', async () => {
    const outcomes = new WorkflowOutcomes();
    const at = new Date('2026-11-24T12:00:00.000Z');
    outcomes.settled('w', 'early', { ok: true, result: { at, missing: undefined, n: 1 } });
    await expect(outcomes.wait('w', 'early').outcome).resolves.toEqual({ ok: true, result: { at: at.toISOString(), n: 1 } });

    const first = outcomes.wait('w', 'late');
    const second = outcomes.wait('w', 'late');
    const other = outcomes.wait('w', 'other-run');
    expect(outcomes.waiters).toBe(3);
    outcomes.settled('w', 'late', { ok: false, type: 'insufficient_credit', message: 'no' });
    await expect(first.outcome).resolves.toEqual({ ok: false, type: 'insufficient_credit', message: 'no' });
    await expect(second.outcome).resolves.toEqual({ ok: false, type: 'insufficient_credit', message: 'no' });
    expect(outcomes.waiters).toBe(1);
    other.stop();
    expect(outcomes.waiters).toBe(0);
  });
});
