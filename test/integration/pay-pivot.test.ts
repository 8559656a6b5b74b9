import { WorkflowFailedError } from '@temporalio/client';
import { asc, eq } from 'drizzle-orm';
import { ledgerEntries, orders, tourDepartures } from '../../src/db/schema';
import { SEED_TOURS } from '../../src/db/seed/tours-data';
import { DomainError } from '../../src/domain/errors';
import { adminClient, call, newPartner as partnerWithWallet } from '../support/clients';
import { adminShutdown, arm, disarmAll, faultInjector, undefinedColumn } from '../support/faults';
import { eventTypesOf, operatorNotesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilParked } from '../support/parked';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { operatorDecisionSignal, payStateQuery } from '../../workflows/pay.types';

/**
 * Bounded steps and the pivot rule: a database step that fails for good ends or
 * parks its payment, never loops; once the supplier confirmed, the payment is never
 * compensated, and the completion is retried or parked for an operator.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 3_000, activityInterceptors: [faultInjector] });
afterEach(disarmAll);

const newPartner = () => partnerWithWallet(stack, '0', '10000000');
const entries = async (orderId: number) =>
  (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id))).map((e) => `${e.type}/${e.direction}`);
const statusOf = async (orderId: number) => (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status;

/** Waits until the order's payment is parked in needs_attention at `where`; returns what the operator sees. */
const parked = (orderId: number, where: string) => untilParked(stack, orderId, { workflow: 'payment', at: where });

const operatorEvents = (orderId: number) => operatorNotesOf(adminClient(stack), orderId);

/** Waits until Temporal's visibility lists the payment under Stage = "needs_attention" (it catches up within a moment). */
async function listedAsNeedingAttention(workflowId: string): Promise<void> {
  await waitFor(
    async () => {
      for await (const wf of stack.client.workflow.list({ query: `Stage = "needs_attention" AND WorkflowId = "${workflowId}"` })) {
        if (wf.workflowId === workflowId) return true;
      }
      return false;
    },
    `${workflowId} listed under Stage = "needs_attention"`,
    15_000,
    300,
  );
}

describe('a database step that fails for good', () => {
  it('fails the payment within seconds, naming the debit, when the debit meets a deterministic database error; nothing is charged', async () => {
    const { api, creds } = await newPartner();
    const order = await api.productOrder();
    const fault = arm({ step: 'debitForOrder', orderId: order.id, error: undefinedColumn });

    const started = Date.now();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'debit-db-error' });
    expect(res.status).toBe(503);
    expect(res.body.ok).toBe(false);

    const handle = stack.client.workflow.getHandle(`pay:p${creds.partner_id}:key:debit-db-error`);
    const failure = await handle.result().catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({
      type: 'debit_failed',
      message: expect.stringMatching(new RegExp(`^the debit for order ${order.id} failed \\(database error 42703: .*\\); nothing was charged$`)),
    });
    // Tried once: a deterministic error is not retried.
    expect(fault.attempts).toBe(1);
    // No value from the failed statement reaches the history.
    expect((failure as WorkflowFailedError).cause?.message).not.toContain('secret_column');
    expect(await entries(order.id)).toEqual([]);
    expect(await statusOf(order.id)).toBe('pending');
    expect(await api.wallet()).toMatchObject({ balance: '10000000.00' });
  });

  it('answers Interface B 503 in its own shape when its order’s debit meets one: the order fails, nothing is charged', async () => {
    const { creds, api } = await newPartner();
    const fault = arm({ step: 'debitForOrder', when: (arg) => (arg as { partnerId?: number }).partnerId === creds.partner_id, error: undefinedColumn });
    const res = await call(
      stack.app,
      'POST',
      '/v1/products/orders',
      { authorization: `Bearer ${creds.agency_key}` },
      {
        product_id: 'ESIM-TR-10GB-15D',
        quantity: 1,
        delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
      },
    );
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'the database is unreachable; the request did not complete, try again in 5 s' });
    expect(fault.attempts).toBe(1);
    const [order] = await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id));
    expect(order!.status).toBe('failed');
    expect(await entries(order!.id)).toEqual([]);
    expect(await api.wallet()).toMatchObject({ balance: '10000000.00' });
  });

  it('fails a workflow other than the payment within seconds too: a tour prebook whose seat hold meets one', async () => {
    const { api } = await newPartner();
    const tourId = SEED_TOURS.findIndex((t) => t.code === 'TR-IST-5D') + 1;
    const dep = (await api.get(`/api/tours/${tourId}/`)).body.data.departures[0];
    const seatsTaken = async () => (await stack.db.select().from(tourDepartures).where(eq(tourDepartures.id, dep.id)))[0]!.seatsTaken;
    const before = await seatsTaken();
    const fault = arm({ step: 'holdTourSeats', error: undefinedColumn });
    const adult = {
      first_name: 'Reza',
      last_name: 'Karimi',
      birth_date: '1985-04-12',
      gender: 'male',
      passenger_type: 'ADT',
      nationality: 'IR',
      national_id: '0012345679',
    };

    const started = Date.now();
    const res = await api.post('/api/tours/prebook/', { tour_id: tourId, departure_id: dep.id, passengers: [adult] });
    // Failed, not "could not be held in time" (502 after the 3 s bound): an engine error, at once.
    expect(res.status).toBe(500);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(fault.attempts).toBe(1);
    expect(await seatsTaken()).toBe(before);
  });

  it('parks a payment whose reversal cannot be written, instead of failing with the money taken; retry writes it', async () => {
    const { api, creds } = await newPartner();
    const order = await api.productOrder();
    arm({ step: 'reversePayment', orderId: order.id, error: undefinedColumn });

    const res = await api.post(
      '/api/partners/pay/',
      { product_order_id: order.id, idempotency_key: 'reversal-db-error' },
      { 'X-Sandbox-Scenario': 'supplier_reject' },
    );
    expect(res.status).toBe(202);
    const seen = await parked(order.id, 'compensating');
    expect(seen.payment.state.lastError).toMatch(new RegExp(`^reversing the debit of order ${order.id} failed: database error 42703`));
    expect(seen.order.status).toBe('processing');
    expect(await entries(order.id)).toEqual(['payment/debit']);
    const workflowId = `pay:p${creds.partner_id}:key:reversal-db-error`;
    await listedAsNeedingAttention(workflowId);

    const admin = adminClient(stack);
    const confirm = await admin.post(`/admin/orders/${order.id}/confirm`, { reason: 'try to confirm a failed payment' });
    expect(confirm.status).toBe(409);
    expect(confirm.body.error).toMatch(/debit is being reversed, so there is nothing to confirm/);

    disarmAll();
    const retried = await admin.post(`/admin/orders/${order.id}/retry`, { reason: 'column restored' });
    expect(retried.status).toBe(200);
    expect(retried.body.order).toMatchObject({ status: 'pending' });
    expect(await entries(order.id)).toEqual(['payment/debit', 'refund/credit']);
    expect(await api.wallet()).toMatchObject({ balance: '10000000.00' });
    await expect(stack.client.workflow.getHandle(workflowId).result()).rejects.toMatchObject({
      cause: { type: 'payment_reversed', message: expect.stringMatching(/^the supplier could not finalize order \d+ \(.*\); the debit was reversed$/) },
    });
    await recordHistory(stack, workflowId, 'pay-reversal-parked-retried');
  });
});

describe('the pivot: once the supplier confirmed, the payment is never compensated', () => {
  it('parks a payment whose completion is refused; compensate is refused, retry completes it, and nothing is refunded', async () => {
    const { api, creds } = await newPartner();
    const order = await api.productOrder();
    const fault = arm({
      step: 'completeOrder',
      orderId: order.id,
      error: () => new DomainError('conflict', `order ${order.id} cannot complete from processing (injected)`),
    });

    const res = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'pivot-refused' });
    expect(res.status).toBe(202);
    const seen = await parked(order.id, 'completing');
    expect(fault.attempts).toBe(1); // a refusal is not retried: it parks at once
    expect(seen.order.status).toBe('processing');
    expect(seen.payment.state).toMatchObject({
      supplierRef: expect.stringMatching(/^FUL-/),
      lastError: expect.stringMatching(new RegExp(`^completing order ${order.id} failed: order ${order.id} cannot complete`)),
    });
    expect(await entries(order.id)).toEqual(['payment/debit']);
    expect(await api.wallet()).toMatchObject({ balance: '9450000.00' });
    const workflowId = `pay:p${creds.partner_id}:key:pivot-refused`;
    await listedAsNeedingAttention(workflowId);
    // Operators see where it parked and why among the order's events; its partner does not (it stays processing).
    await waitFor(async () => (await operatorEvents(order.id)).length === 1, 'the needs_attention event');
    expect(await operatorEvents(order.id)).toEqual([
      { parked_at: 'completing', workflow_id: workflowId, last_error: expect.stringMatching(new RegExp(`^completing order ${order.id} failed`)) },
    ]);
    expect(await eventTypesOf(api, order.id)).toEqual(['order.processing']);

    // The operator cannot give the money back: the supplier has shipped.
    const admin = adminClient(stack);
    const compensate = await admin.post(`/admin/orders/${order.id}/compensate`, { reason: 'undo it' });
    expect(compensate.status).toBe(409);
    expect(compensate.body.error).toMatch(/the supplier confirmed this payment \(FUL-[^)]+\), so it is never compensated; retry the completion/);
    expect((await parked(order.id, 'completing')).order.status).toBe('processing');

    // Still refused while the cause stays: parks again, nothing refunded.
    const early = await admin.post(`/admin/orders/${order.id}/retry`, { reason: 'too early' });
    expect(early.status).toBe(200);
    await parked(order.id, 'completing');
    expect(fault.attempts).toBe(2);
    await waitFor(async () => (await operatorEvents(order.id)).length === 2, 'a second needs_attention event for the second park');
    expect(await entries(order.id)).toEqual(['payment/debit']);

    disarmAll();
    const retried = await admin.post(`/admin/orders/${order.id}/retry`, { reason: 'order row repaired' });
    expect(retried.status).toBe(200);
    expect(retried.body.order).toMatchObject({ status: 'completed', supplier_ref: seen.payment.state.supplierRef });
    expect(retried.body.ledger.map((l: { type: string }) => l.type)).toEqual(['payment']);
    expect(await api.wallet()).toMatchObject({ balance: '9450000.00' });
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toMatchObject({ orderStatus: 'completed' });
    // The partner's same-key retry gets the payment's answer.
    const again = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'pivot-refused' });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ order_status: 'completed', new_balance: 9450000 });
    await recordHistory(stack, workflowId, 'pay-parked-after-pivot-retried');
  });

  it('writes the needs_attention event later when the database refused it at the park, while the payment stays parked', async () => {
    const { api, creds } = await newPartner();
    const order = await api.productOrder();
    arm({ step: 'completeOrder', orderId: order.id, error: () => new DomainError('conflict', `order ${order.id} cannot complete (injected)`) });
    // Every attempt of the write at the park fails (the database is down); the next write succeeds.
    const note = arm({ step: 'recordNeedsAttention', orderId: order.id, error: adminShutdown, times: 3 });

    const res = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'note-retried' });
    expect(res.status).toBe(202);
    await parked(order.id, 'completing');
    await waitFor(() => note.attempts === 3, 'the write at the park to fail');
    expect(await operatorEvents(order.id)).toEqual([]);
    const workflowId = `pay:p${creds.partner_id}:key:note-retried`;
    // Tried again 10 s later, while still parked.
    await waitFor(async () => (await operatorEvents(order.id)).length === 1, 'the needs_attention event written again', 25_000, 200);
    expect(await operatorEvents(order.id)).toEqual([
      { parked_at: 'completing', workflow_id: workflowId, last_error: expect.stringMatching(/cannot complete/) },
    ]);
    expect((await parked(order.id, 'completing')).order.status).toBe('processing');

    disarmAll();
    const retried = await adminClient(stack).post(`/admin/orders/${order.id}/retry`, { reason: 'order row repaired' });
    expect(retried.status).toBe(200);
    expect(retried.body.order).toMatchObject({ status: 'completed' });
    await expect(stack.client.workflow.getHandle(workflowId).result()).resolves.toMatchObject({ orderStatus: 'completed' });
    await recordHistory(stack, workflowId, 'pay-parked-note-retried');
  });

  it('parks on a deterministic database error in the completion, and confirm completes it too', async () => {
    const { api } = await newPartner();
    const order = await api.productOrder();
    const fault = arm({ step: 'completeOrder', orderId: order.id, error: undefinedColumn });
    expect((await api.post('/api/partners/pay/', { product_order_id: order.id })).status).toBe(202);
    const seen = await parked(order.id, 'completing');
    expect(fault.attempts).toBe(1);
    expect(seen.payment.state.lastError).toMatch(/failed: database error 42703/);

    // A compensate signalled past the admin API is refused by the workflow itself: it stays parked.
    await stack.client.workflow
      .getHandle(seen.payment.workflow_id)
      .signal(operatorDecisionSignal, { action: 'compensate', operator: 'raw', reason: 'bypassing the API' });
    let after = await stack.client.workflow.getHandle(seen.payment.workflow_id).query(payStateQuery);
    await waitFor(
      async () => (after = await stack.client.workflow.getHandle(seen.payment.workflow_id).query(payStateQuery)).lastError?.includes('refused') === true,
      () => `the refusal in the payment's state (last error: ${after.lastError})`,
      5_000,
      100,
    );
    expect(after).toMatchObject({
      step: 'needs_attention',
      parkedAt: 'completing',
      lastError: expect.stringMatching(/^compensate by raw refused: the supplier confirmed/),
    });
    expect(await entries(order.id)).toEqual(['payment/debit']);

    disarmAll();
    const confirmed = await adminClient(stack).post(`/admin/orders/${order.id}/confirm`, { reason: 'migration applied' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.order).toMatchObject({ status: 'completed', supplier_ref: expect.stringMatching(/^FUL-/) });
    expect(await entries(order.id)).toEqual(['payment/debit']);
  });

  it('rides out a transient database failure in the completion: retried, completed, one debit, no refund', async () => {
    const { api } = await newPartner();
    const order = await api.productOrder();
    const fault = arm({ step: 'completeOrder', orderId: order.id, error: adminShutdown, times: 3 });
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_status: 'completed', new_balance: 9450000 });
    expect(fault.attempts).toBe(3);
    expect(await statusOf(order.id)).toBe('completed');
    expect(await entries(order.id)).toEqual(['payment/debit']);
  });
});
