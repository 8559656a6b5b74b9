import { and, eq, sql } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { ledgerEntries, orders, reservations, wallets } from '../../src/db/schema';
import { adminClient, newPartner as partnerWithWallet } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { untilOrderStatus } from '../support/order-status';
import { untilParked } from '../support/parked';
import { OrderStatus, Stage } from '../../workflows/search-attributes';
import { typedTwice } from '../support/metrics';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { payLeftOpen } from '../support/unanswered';
import { waitFor } from '../support/wait';

/** Operators: payments whose outcome is unknown park in needs_attention; retry / confirm / compensate; audit; reconcile. */

let stack: TestStack;
// Holds and bookings get the ordinary wait; the payments that park are left unanswered on purpose (payLeftOpen).
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const newPartner = () => partnerWithWallet(stack, '0', '10000000');
const entries = (orderId: number) => stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId));

/** Pays with a supplier that stays down past the retries and the status look-ups: the payment parks. */
async function parkedPayment({ api, creds }: Awaited<ReturnType<typeof newPartner>>) {
  const order = await api.productOrder();
  await payLeftOpen(stack, creds, { productOrderId: order.id, scenario: 'supplier_down' });
  return { orderId: order.id, inspected: await untilParked(stack, order.id, { workflow: 'payment', boundMs: 60_000 }) };
}

describe('payments that cannot finish on their own', () => {
  it('park in needs_attention, findable in Temporal by Stage, and each operator action settles the money right', async () => {
    const [pa, pb, pc] = await Promise.all([newPartner(), newPartner(), newPartner()]);
    const [a, b, c] = [pa.api, pb.api, pc.api];
    const [toConfirm, toCompensate, toRetry] = await Promise.all([parkedPayment(pa), parkedPayment(pb), parkedPayment(pc)]);

    // What the operator sees: the order processing, one debit, the step and the last error.
    expect(toConfirm.inspected.order).toMatchObject({ status: 'processing', service: 'product' });
    expect(toConfirm.inspected.ledger.map((l: { type: string }) => l.type)).toEqual(['payment']);
    // Operators see who paid: the partner's first connection, through the payment workflow's debit.
    expect(toConfirm.inspected.ledger[0].by).toEqual({ type: 'connection', id: expect.any(Number), name: 'Interface A' });
    expect(toConfirm.inspected.order).toMatchObject({ acted_by: { type: 'connection', name: 'Interface A' } });
    expect(toConfirm.inspected.payment).toMatchObject({
      status: 'RUNNING',
      state: { step: 'needs_attention', lastError: expect.stringMatching(/unavailable/), supplierRounds: 1 },
      failure: null,
      debit: { ledger_id: expect.any(Number), amount: '550000.00' },
      reversal: null,
    });
    // The count and the last error tell the same story: the attempts the error names are the attempts counted.
    const { state } = toConfirm.inspected.payment;
    expect(state.supplierAttempts).toBeGreaterThan(1);
    expect(state.lastError).toContain(`no answer from the supplier after ${state.supplierAttempts} attempts`);
    expect(state).not.toHaveProperty('attempts');

    // Temporal Web's query finds them (visibility catches up within a moment).
    let stuck: number[] = [];
    await waitFor(
      async () => {
        stuck = [];
        for await (const wf of stack.client.workflow.list({ query: 'Stage = "needs_attention"' })) {
          const orderId = wf.searchAttributes.OrderId?.[0];
          if (typeof orderId === 'number') stuck.push(orderId);
        }
        return stuck.length >= 3;
      },
      () => `three payments listed under Stage = "needs_attention" (found ${stuck.length})`,
      15_000,
      300,
    );
    expect(stuck.sort()).toEqual([toConfirm.orderId, toCompensate.orderId, toRetry.orderId].sort());

    const admin = adminClient(stack);
    const confirmed = await admin.post(`/admin/orders/${toConfirm.orderId}/confirm`, {
      reason: 'supplier portal shows the shipment',
      supplier_ref: 'FUL-MANUAL-7',
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.order).toMatchObject({ status: 'completed', supplier_ref: 'FUL-MANUAL-7' });
    expect((await entries(toConfirm.orderId)).map((e) => e.type)).toEqual(['payment']);
    expect(await a.wallet()).toMatchObject({ balance: '9450000.00' });
    await recordHistory(stack, toConfirm.inspected.payment.workflow_id, 'pay-needs-attention-confirmed');

    const compensated = await admin.post(`/admin/orders/${toCompensate.orderId}/compensate`, { reason: 'supplier confirms nothing was shipped' });
    expect(compensated.body.order).toMatchObject({ status: 'pending' });
    const [debitRow, refundRow] = await entries(toCompensate.orderId);
    expect([debitRow!.type, refundRow!.type]).toEqual(['payment', 'refund']);
    expect(await b.wallet()).toMatchObject({ balance: '10000000.00' });
    // The payment the order let go of is still shown, with its end and its money: debited, then reversed.
    const paymentId = toCompensate.inspected.payment.workflow_id;
    expect(compensated.body.payment).toEqual({
      workflow_id: paymentId,
      run_id: toCompensate.inspected.payment.run_id,
      status: 'FAILED',
      state: null,
      failure: expect.stringMatching(/compensated by operator bootstrap: supplier confirms nothing was shipped.*the debit was reversed/),
      debit: { ledger_id: debitRow!.id, amount: '550000.00' },
      reversal: { ledger_id: refundRow!.id, amount: '550000.00' },
      worker_version: { build_id: stack.workerVersion()!.buildId, behavior: 'pinned' },
    });
    expect((await admin.get(`/admin/orders/${toCompensate.orderId}`)).body.payment).toEqual(compensated.body.payment);
    // Temporal's search attributes say what the order says: failed payment, order pending again.
    const attrs = (await stack.client.workflow.getHandle(paymentId).describe()).typedSearchAttributes;
    expect({ stage: attrs.get(Stage), orderStatus: attrs.get(OrderStatus) }).toEqual({ stage: 'failed', orderStatus: 'pending' });
    await recordHistory(stack, paymentId, 'pay-needs-attention-compensated');

    const retried = await admin.post(`/admin/orders/${toRetry.orderId}/retry`, { reason: 'supplier back up' });
    expect(retried.body.order).toMatchObject({ status: 'completed', supplier_ref: expect.stringMatching(/^FUL-/) });
    expect((await entries(toRetry.orderId)).map((e) => e.type)).toEqual(['payment']);

    // A decision for a payment that is not waiting is refused.
    const late = await admin.post(`/admin/orders/${toConfirm.orderId}/compensate`, { reason: 'changed my mind' });
    expect(late.status).toBe(400);
    expect((await admin.post(`/admin/orders/${toRetry.orderId}/retry`, {})).status).toBe(400);

    // Every action is in the audit trail with who and why.
    const audit = await admin.get(`/admin/audit?target=${encodeURIComponent(`orders/${toCompensate.orderId}/compensate`)}`);
    expect(audit.body.results[0]).toMatchObject({ operator: 'bootstrap', action: 'orders/:id/compensate', reason: 'supplier confirms nothing was shipped' });
    expect((await admin.get('/admin/audit')).body.results.length).toBeGreaterThanOrEqual(6);

    // The partners heard of each end: shipped when confirmed or retried, the debit reversed when compensated.
    expect(await eventTypesOf(a, toConfirm.orderId)).toEqual(['order.processing', 'product_order.shipped']);
    expect(await eventTypesOf(b, toCompensate.orderId)).toEqual(['order.processing', 'order.payment_reversed']);
    expect(await eventTypesOf(c, toRetry.orderId)).toEqual(['order.processing', 'product_order.shipped']);
  });
});

describe('reconcile', () => {
  it('passes on clean books and names every planted discrepancy', async () => {
    const { api, creds } = await newPartner();
    const order = await api.productOrder();
    await api.post('/api/partners/pay/', { product_order_id: order.id });
    const admin = adminClient(stack);
    const clean = await admin.get('/admin/reconcile');
    expect(clean.body).toMatchObject({ ok: true, findings: [] });
    expect(clean.body.checked.wallets).toBeGreaterThan(0);

    await stack.db
      .update(wallets)
      .set({ balance: sql`${wallets.balance} + 1` })
      .where(eq(wallets.partnerId, creds.partner_id));
    // The price and its net part move together (a check keeps total = net + margin).
    await stack.db
      .update(orders)
      .set({ totalPrice: sql`${orders.totalPrice} + 100`, netPrice: sql`${orders.netPrice} + 100` })
      .where(eq(orders.id, order.id));
    try {
      const dirty = await admin.get('/admin/reconcile');
      expect(dirty.body.ok).toBe(false);
      expect(dirty.body.findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'wallet_balance', partner_id: creds.partner_id }),
          // The books see it too: the wallet no longer equals its account.
          expect.objectContaining({ kind: 'wallet_account', partner_id: creds.partner_id }),
          expect.objectContaining({ kind: 'order_payment', order_id: order.id }),
        ]),
      );
    } finally {
      await stack.db
        .update(wallets)
        .set({ balance: sql`${wallets.balance} - 1` })
        .where(eq(wallets.partnerId, creds.partner_id));
      await stack.db
        .update(orders)
        .set({ totalPrice: sql`${orders.totalPrice} - 100`, netPrice: sql`${orders.netPrice} - 100` })
        .where(and(eq(orders.id, order.id)));
    }
    expect((await admin.get('/admin/reconcile')).body.ok).toBe(true);
  });

  it('names an unpaid hold its expiry workflow did not release', async () => {
    const { api, creds } = await newPartner();
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const lead = { first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', phone_number: '+98 912 000 0000' };
    const held = await api.post('/api/residence/reserve/', { property_id: 1, check_in: day(60), check_out: day(63), guests: 2, lead_guest: lead });
    expect(held.status).toBe(200);
    const id = held.body.data.reservation_id;
    const admin = adminClient(stack);
    expect((await admin.get('/admin/reconcile')).body.findings.filter((f: { kind: string }) => f.kind === 'hold_past_expiry')).toEqual([]);
    // As if its timer had failed: the row says the deadline passed an hour ago and it is still held.
    const [row] = await stack.db.select().from(reservations).where(eq(reservations.id, id));
    await stack.db
      .update(reservations)
      .set({ expiresAt: new Date(Date.now() - 3_600_000) })
      .where(eq(reservations.id, id));
    try {
      const dirty = await admin.get('/admin/reconcile');
      expect(dirty.body.ok).toBe(false);
      expect(dirty.body.findings).toContainEqual({
        kind: 'hold_past_expiry',
        partner_id: creds.partner_id,
        detail: expect.stringMatching(new RegExp(`^villa reservation ${id} is still held, unpaid, 60 min past its deadline`)),
      });
    } finally {
      await stack.db.update(reservations).set({ expiresAt: row!.expiresAt }).where(eq(reservations.id, id));
    }
  });

  it('is reachable from the CLI', () => {
    expect(toCommand(['reconcile']).command).toEqual({ method: 'GET', path: '/admin/reconcile' });
    expect(toCommand(['order', 'inspect', '--order', '3']).command).toEqual({ method: 'GET', path: '/admin/orders/3' });
    expect(toCommand(['order', 'confirm', '--order', '3', '--reason', 'seen', '--supplier-ref', 'X']).command).toEqual({
      method: 'POST',
      path: '/admin/orders/3/confirm',
      body: { reason: 'seen', supplier_ref: 'X' },
    });
    expect(() => toCommand(['order', 'retry', '--order', '3'])).toThrow(/--reason is required/);
  });
});

describe('metrics', () => {
  it('exposes the named series in Prometheus format on the admin port', async () => {
    const { api } = await newPartner();
    const order = await api.productOrder();
    await api.post('/api/partners/pay/', { product_order_id: order.id });
    const res = await stack.admin.request('http://engine.test/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    for (const series of [
      'http_request_duration_seconds_bucket{',
      'pay_outcomes_total{outcome="completed"}',
      'saga_compensations_total',
      'wallet_debit_duration_seconds_count',
      'payments_needs_attention',
      'process_cpu_seconds_total',
    ]) {
      expect(text).toContain(series);
    }
    expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/api\/partners\/pay\/",status="200"\} [1-9]/);
    // API and worker series in one scrape (npm start), each family typed once.
    expect(typedTwice(text)).toEqual([]);
  });
});

describe('asking the supplier before parking', () => {
  it('completes a payment whose answer was lost, because the tour operator says it made the booking', async () => {
    const { api, creds } = await partnerWithWallet(stack, '0', '1000000000');
    const tour = (await api.get('/api/tours/1/')).body.data;
    const dep = tour.departures[0];
    const adult = {
      first_name: 'Reza',
      last_name: 'Karimi',
      birth_date: '1985-04-12',
      gender: 'male',
      passenger_type: 'ADT',
      nationality: 'IR',
      national_id: '0012345679',
    };
    const pre = await api.post('/api/tours/prebook/', { tour_id: 1, departure_id: dep.id, passengers: [adult] });
    const order = await api.post('/api/tours/finalize/', { prebook_id: pre.body.data.prebook_id });
    await payLeftOpen(stack, creds, { orderId: order.body.data.id, scenario: 'supplier_lost_response' });
    await untilOrderStatus(stack.db, order.body.data.id, 'completed', 60_000);
    const listed = (await api.get('/api/partners/orders/')).body.data.results[0];
    expect(listed).toMatchObject({ id: order.body.data.id, status: 'completed', supplier_ref: expect.stringMatching(/^TOUR-/) });
    expect((await entries(order.body.data.id)).map((e) => e.type)).toEqual(['payment']);
    expect(await eventTypesOf(api, order.body.data.id)).toEqual(['order.processing', 'order.completed']);
  });
});
