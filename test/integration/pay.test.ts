import { spawn } from 'node:child_process';
import { and, eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { pay, type PayDeps } from '../../src/domain/pay-request';
import { debitForOrder, reversePayment } from '../../src/domain/money/payment-ledger';
import { authenticatePartner } from '../../src/domain/partners';
import { listen } from '../../src/platform/listen';
import type { PartnerClient } from '../../src/client';
import { adminClient, newPartner as partnerWithWallet, partnerClient, processing, settled, typedPartner } from '../support/clients';
import { ledgerDiscrepancies, startStack, type TestStack, useStack } from '../support/stack';
import { recordHistory } from '../support/histories';
import { captureLogs } from '../support/logs';
import { payLeftOpen } from '../support/unanswered';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * A test can hold a payment right after its completion step committed, before the workflow
 * records it and closes: the window in which the order is completed in the database and
 * the payment is still running. Unarmed, it lets every step through.
 */
let holdAfterComplete: { reached: () => void; release: Promise<void> } | null = null;
const holdingInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const result = await next(input);
      const hold = holdAfterComplete;
      if (hold && ctx.info.activityType === 'completeOrder') {
        hold.reached();
        await hold.release;
      }
      return result;
    },
  },
});

let stack: TestStack;
// The pay bound leaves room for a worker restart plus the heartbeat timeout (5 s) under CI load.
useStack((s) => (stack = s), { payWaitMs: 30_000, slowMs: 2_500, activityInterceptors: [holdingInterceptor] });

const newPartner = (credit_limit?: string, topup?: string) => partnerWithWallet(stack, credit_limit, topup);

const paymentsOf = (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.type, 'payment')));
const entriesOf = (orderId: number) => stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId));
/**
 * `n` identical POSTs sent at once by a client of its own (a child process), as a partner's
 * storm reaches the API: a client in this process would share the API's busy event loop and
 * send them one by one.
 */
async function stormFromAnotherProcess(
  url: string,
  n: number,
  init: { headers: Record<string, string>; body: string },
): Promise<{ status: number; body: unknown }[]> {
  const script = `
    const [url, n, init] = JSON.parse(process.argv[1]);
    Promise.all(Array.from({ length: n }, () => fetch(url, { method: 'POST', ...init }).then(async (r) => ({ status: r.status, body: await r.json() }))))
      .then((replies) => process.stdout.write(JSON.stringify(replies)), (err) => { console.error(err); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script, JSON.stringify([url, n, init])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the storm's client exited with ${code}`);
  return JSON.parse(out) as { status: number; body: unknown }[];
}

/** The API's pay dependencies, for a request served by the domain directly (one that arrived earlier). */
const payDeps = (): PayDeps => ({
  db: stack.db,
  temporal: stack.client,
  taskQueue: stack.taskQueue,
  payWaitMs: 30_000,
});
const statusOf = async (orderId: number) => (await stack.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status;

describe('POST /api/partners/pay/', () => {
  it('debits the wallet, completes the order and answers the spec’s pay response', async () => {
    const { api, client } = await newPartner('1000000', '5000000');
    const order = await api.productOrder({ quantity: 2 }); // 2 × 550,000.00
    expect(order.total_price_irt).toBe('1100000.00');

    const sent = Date.now();
    const res = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'happy-1' } });
    expect(res.response.status).toBe(200);
    // Completed when it was paid: the completion's time is written with the status.
    const [row] = await stack.db.select().from(orders).where(eq(orders.id, order.id));
    expect(row!.completedAt!.getTime()).toBeGreaterThanOrEqual(sent - 1000);
    expect(row!.completedAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(row!.updatedAt).toEqual(row!.completedAt);
    expect(res.data).toEqual({
      ok: true,
      data: { ledger_id: expect.any(Number), amount: 1100000, new_balance: 3900000, available: 4900000, order_status: 'completed', order_id: order.id },
    });
    expect(await api.wallet()).toMatchObject({ balance: '3900000.00', credit_limit: '1000000.00', available: '4900000.00' });

    const listed = await client.GET('/partners/product-orders/');
    expect(listed.data?.data.results[0]).toMatchObject({ id: order.id, status: 'completed', total_price_irt: '1100000.00', payment_method: 'PARTNER_CREDIT' });
    expect(listed.data?.data.results[0]?.supplier_ref).toMatch(/^FUL-/);

    const ledger = await client.GET('/partners/ledger/');
    expect(ledger.data?.data.results[0]).toMatchObject({
      id: settled(res)!.ledger_id,
      direction: 'debit',
      type: 'payment',
      amount: '1100000.00',
      balance_after: '3900000.00',
      product_order: order.id,
      order: null,
    });
    const workflowId = `pay:p${(await paymentsOf(order.id))[0]!.partnerId}:key:happy-1`;
    // The request id the partner got back is in the payment workflow's memo, for support.
    const described = await stack.client.workflow.getHandle(workflowId).describe();
    expect(described.memo).toMatchObject({ requestId: res.response.headers.get('x-request-id') });
    await recordHistory(stack, workflowId, 'pay-completed');
  });

  it('passes the request id on to the payment’s activities: the supplier call they log carries it', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const logs = captureLogs('info');
    try {
      const res = await client.POST('/partners/pay/', {
        body: { product_order_id: order.id, idempotency_key: 'reqid-1' },
        headers: { 'X-Request-Id': 'test-req-123' },
      });
      expect(res.response.status).toBe(200);
      expect(res.response.headers.get('x-request-id')).toBe('test-req-123');
    } finally {
      logs.stop();
    }
    const workflowId = `pay:p${(await paymentsOf(order.id))[0]!.partnerId}:key:reqid-1`;
    // Written by the finalize activity in the worker, not while serving the request.
    const calls = logs.records.filter((r) => r.msg === 'supplier call' && r.path === '/products/fulfilments');
    expect(calls).toEqual([
      expect.objectContaining({ method: 'POST', status: 201, ms: expect.any(Number), requestId: 'test-req-123', workflowId, activityType: 'finalizeOrder' }),
    ]);
    // The API's own line for the request carries the same id.
    expect(logs.records).toContainEqual(expect.objectContaining({ msg: 'request', route: '/api/partners/pay/', requestId: 'test-req-123' }));
  });

  it('answers a retry with the same idempotency key with the same result and one debit', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const first = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'retry-1' } });
    const again = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'retry-1' } });
    expect(first.response.status).toBe(200);
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    expect(await paymentsOf(order.id)).toHaveLength(1);
  });

  it('answers a same-key retry that arrives after the order completed but before the payment closed with that payment, not 400', async () => {
    const { api, client } = await newPartner('0', '5000000');
    const order = await api.productOrder();
    let reached!: () => void;
    let release!: () => void;
    const atWindow = new Promise<void>((resolve) => (reached = resolve));
    holdAfterComplete = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    try {
      const first = client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'window-1' } });
      await atWindow; // completeOrder committed; the workflow cannot close while we hold it
      expect(await statusOf(order.id)).toBe('completed');
      const retry = client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'window-1' } });
      // The retry joins the running payment: it does not answer (400) while the payment is held.
      const early = await Promise.race([retry.then((r) => r.response.status), new Promise((resolve) => setTimeout(() => resolve('waiting'), 1500))]);
      expect(early).toBe('waiting');
      release();
      const [a, b] = await Promise.all([first, retry]);
      expect([a.response.status, b.response.status]).toEqual([200, 200]);
      expect(b.data?.data).toEqual(a.data?.data);
    } finally {
      holdAfterComplete = null;
      release?.();
    }
    expect(await paymentsOf(order.id)).toHaveLength(1);
  });

  it('debits once for 50 concurrent identical requests', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'burst-1' } })),
    );
    expect(replies.map((r) => r.response.status)).toEqual(Array(50).fill(200));
    expect(new Set(replies.map((r) => settled(r)?.ledger_id)).size).toBe(1);
    expect(await paymentsOf(order.id)).toHaveLength(1);
    expect(await api.wallet()).toMatchObject({ balance: '9450000.00' });
  });

  it('debits once when two different keys pay one order at once; the other gets 400', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const replies = await Promise.all(
      ['race-a', 'race-b'].map((key) => client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: key } })),
    );
    expect(replies.map((r) => r.response.status).sort()).toEqual([200, 400]);
    const refused = replies.find((r) => r.response.status === 400)!;
    expect(refused.error).toEqual({ ok: false, error: expect.stringMatching(/being paid|already completed/) });
    expect(await paymentsOf(order.id)).toHaveLength(1);
  });

  it('lets the balance fall exactly to -credit_limit and answers 402 one minor unit beyond', async () => {
    // Two orders of 550,000.00 each; the wallet covers exactly one.
    const { api, client } = await newPartner('50000', '500000');
    const exact = await api.productOrder();
    const ok = await client.POST('/partners/pay/', { body: { product_order_id: exact.id } });
    expect(ok.response.status).toBe(200);
    expect(ok.data?.data).toMatchObject({ new_balance: -50000, available: 0 });
    expect(await api.wallet()).toMatchObject({ balance: '-50000.00', available: '0.00' });

    const { api: other, client: otherClient } = await newPartner('49999.99', '500000');
    const beyond = await other.productOrder();
    const refused = await otherClient.POST('/partners/pay/', { body: { product_order_id: beyond.id, idempotency_key: 'short-1' } });
    expect(refused.response.status).toBe(402);
    expect(refused.error).toEqual({ ok: false, error: expect.stringContaining('insufficient credit') });
    expect(await other.wallet()).toMatchObject({ balance: '500000.00' });
    expect(await statusOf(beyond.id)).toBe('pending');

    // After a top-up the same key may pay: the failed attempt released it.
    await adminClient(stack).post(`/admin/partners/${await paymentsOfPartner(otherClient)}/topup`, { amount: '1' });
    const paid = await otherClient.POST('/partners/pay/', { body: { product_order_id: beyond.id, idempotency_key: 'short-1' } });
    expect(paid.response.status).toBe(200);
  });

  it('debits only the payments that fit when one wallet pays five orders at once; the rest are 402 and stay pending', async () => {
    // 550,000.00 each; the wallet covers exactly three. The debit is one statement whose
    // wallet update re-checks the fit against the balance a concurrent debit left.
    const { api, client } = await newPartner('0', '1650000');
    const five = [];
    for (let i = 0; i < 5; i++) five.push(await api.productOrder());
    const replies = await Promise.all(five.map((o, i) => client.POST('/partners/pay/', { body: { product_order_id: o.id, idempotency_key: `fit-${i}` } })));
    expect(replies.map((r) => r.response.status).sort()).toEqual([200, 200, 200, 402, 402]);
    for (const [i, order] of five.entries()) {
      const paid = replies[i]!.response.status === 200;
      expect(await paymentsOf(order.id)).toHaveLength(paid ? 1 : 0);
      expect(await statusOf(order.id)).toBe(paid ? 'completed' : 'pending');
    }
    expect(await api.wallet()).toMatchObject({ balance: '0.00', available: '0.00' });
    expect(new Set(replies.filter((r) => r.response.status === 200).map((r) => settled(r)?.new_balance))).toEqual(new Set([1100000, 550000, 0]));
  });

  it('refuses another partner’s order with 400 and moves no money', async () => {
    const { api: owner } = await newPartner();
    const { api: intruder, client: intruderClient } = await newPartner();
    const order = await owner.productOrder();
    const res = await intruderClient.POST('/partners/pay/', { body: { product_order_id: order.id } });
    expect(res.response.status).toBe(400);
    expect(res.error?.ok).toBe(false);
    expect(await entriesOf(order.id)).toHaveLength(0);
    expect(await intruder.wallet()).toMatchObject({ balance: '10000000.00' });
  });

  it('refuses bad pay requests with 400 naming the problem', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const other = await api.productOrder();
    // Malformed bodies go raw: the typed client would not send them.
    const cases: Array<[unknown, RegExp]> = [
      [{}, /exactly one of order_id and product_order_id/],
      [{ order_id: 1, product_order_id: 1 }, /exactly one/],
      [{ product_order_id: 'x' }, /product_order_id/],
      [{ product_order_id: -3 }, /product_order_id/],
      [{ product_order_id: order.id, idempotency_key: 'k'.repeat(129) }, /idempotency_key: must be at most 128/],
      [{ order_id: order.id }, /product order; pay it with product_order_id/],
      [{ product_order_id: 999999 }, /not one of your orders/],
    ];
    for (const [body, message] of cases) {
      const res = await api.post('/api/partners/pay/', body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.error).toMatch(message);
    }
    expect((await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'k'.repeat(128) } })).response.status).toBe(200);
    const reused = await client.POST('/partners/pay/', { body: { product_order_id: other.id, idempotency_key: 'k'.repeat(128) } });
    expect(reused.response.status).toBe(400);
    expect(reused.error?.error).toMatch(/already used to pay order/);
    const paidAgain = await client.POST('/partners/pay/', { body: { product_order_id: order.id } });
    expect(paidAgain.response.status).toBe(400);
    expect(paidAgain.error?.error).toMatch(/already completed/);
    expect(await paymentsOf(order.id)).toHaveLength(1);
    expect(await paymentsOf(other.id)).toHaveLength(0);
  });

  it('refuses a GATEWAY order: only PARTNER_CREDIT orders are paid from credit', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder({ payment_method: 'GATEWAY' });
    const res = await client.POST('/partners/pay/', { body: { product_order_id: order.id } });
    expect(res.response.status).toBe(400);
    expect(res.error?.error).toMatch(/PARTNER_CREDIT/);
  });

  it('reverses the debit when the supplier rejects (502), and a retry with the same key then pays', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const rejected = await client.POST('/partners/pay/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_reject' } },
      body: { product_order_id: order.id, idempotency_key: 'reject-1' },
    });
    expect(rejected.response.status).toBe(502);
    expect(rejected.error).toEqual({ ok: false, error: expect.stringContaining('reversed') });
    expect(await api.wallet()).toMatchObject({ balance: '10000000.00' });
    expect(await statusOf(order.id)).toBe('pending');
    const moves = await entriesOf(order.id);
    expect(moves.map((m) => [m.type, m.direction])).toEqual([
      ['payment', 'debit'],
      ['refund', 'credit'],
    ]);
    expect(moves[1]!.reversesEntryId).toBe(moves[0]!.id);
    await recordHistory(stack, `pay:p${moves[0]!.partnerId}:key:reject-1`, 'pay-compensated');

    const retried = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'reject-1' } });
    expect(retried.response.status).toBe(200);
    expect(retried.data?.data.order_status).toBe('completed');
    expect(await api.wallet()).toMatchObject({ balance: '9450000.00' });
    expect(await paymentsOf(order.id)).toHaveLength(2); // one reversed, one standing
  });

  it('gives a storm of one key on a refusing supplier one run: one debit and its reversal, the same 502 for all; a request after the answers runs again', async () => {
    const { api, client, creds } = await newPartner();
    const order = await api.productOrder();
    // Over real HTTP: the API gets to some requests only after the run has failed, the race
    // an in-process request does not meet.
    const server = await listen(stack.app.fetch, 0, '127.0.0.1');
    const stormAt = Date.now();
    let storm: { status: number; body: unknown }[];
    try {
      storm = await stormFromAnotherProcess(`${server.url}/api/partners/pay/`, 30, {
        headers: { 'content-type': 'application/json', 'x-api-key': creds.api_key, 'x-api-secret': creds.api_secret, 'x-sandbox-scenario': 'supplier_reject' },
        body: JSON.stringify({ product_order_id: order.id, idempotency_key: 'storm-1' }),
      });
    } finally {
      await server.close();
    }
    expect(storm.map((r) => r.status)).toEqual(Array(30).fill(502));
    expect(new Set(storm.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(storm[0]!.body).toEqual({ ok: false, error: expect.stringContaining('reversed') });
    const moves = await entriesOf(order.id);
    expect(moves.map((m) => [m.type, m.direction])).toEqual([
      ['payment', 'debit'],
      ['refund', 'credit'],
    ]);
    expect(await api.wallet()).toMatchObject({ balance: '10000000.00' });

    // A request of the storm that the API gets to only now (it arrived before the answers):
    // the same failure, no second run.
    const partner = await authenticatePartner(stack.db, creds.api_key, creds.api_secret);
    const late = pay(payDeps(), partner, { productOrderId: order.id, idempotencyKey: 'storm-1', scenario: 'supplier_reject', receivedAt: stormAt });
    await expect(late).rejects.toMatchObject({ code: 'supplier_failed', message: (storm[0]!.body as { error: string }).error });
    expect(await entriesOf(order.id)).toHaveLength(2);

    // Every answer has been given: the next request with the key is a new attempt.
    const after = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'storm-1' } });
    expect(after.response.status).toBe(200);
    const all = await entriesOf(order.id);
    expect(all.map((m) => [m.type, m.direction])).toEqual([
      ['payment', 'debit'],
      ['refund', 'credit'],
      ['payment', 'debit'],
    ]);
    expect(all[2]!.runId).not.toBe(all[0]!.runId);
    expect(await api.wallet()).toMatchObject({ balance: '9450000.00' });
  });

  it('answers a failure nobody was told of (the callers got 202) to the next request with the key; the one after pays', async () => {
    const { api, client, creds } = await newPartner();
    const order = await api.productOrder();
    await payLeftOpen(stack, creds, { productOrderId: order.id, idempotencyKey: 'unheard-1', scenario: 'supplier_reject' });
    await expect(stack.client.workflow.getHandle(`pay:p${creds.partner_id}:key:unheard-1`).result()).rejects.toThrow();

    const told = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'unheard-1' } });
    expect(told.response.status).toBe(502);
    expect(told.error?.error).toContain('reversed');
    expect(await entriesOf(order.id)).toHaveLength(2);
    const paid = await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'unheard-1' } });
    expect(paid.response.status).toBe(200);
    expect(await paymentsOf(order.id)).toHaveLength(2); // one reversed, one standing
  });

  it('a debit run again after its own reversal answers the debit it wrote: no second debit, no error', async () => {
    // A payment's database steps are local activities: when the workflow task that ran the
    // reversal is lost before Temporal records it, the local steps of that task run again.
    const { api, client, creds } = await newPartner('0', '5000000');
    const order = await api.productOrder();
    const run = { workflowId: `pay:p${creds.partner_id}:rerun`, runId: 'a-run-whose-task-was-lost', orderId: order.id };
    const first = await debitForOrder(stack.db, { ...run, partnerId: creds.partner_id });
    const reversal = await reversePayment(stack.db, { ...run, reason: 'the supplier refused' });
    expect(reversal.orderStatus).toBe('pending');
    const wallet = await api.wallet();
    expect(wallet.balance).toBe('5000000.00');

    expect(await debitForOrder(stack.db, { ...run, partnerId: creds.partner_id })).toEqual(first);
    expect(await reversePayment(stack.db, { ...run, reason: 'the supplier refused' })).toEqual(reversal);
    expect(await api.wallet()).toEqual(wallet);
    expect((await entriesOf(order.id)).map((e) => e.type).sort()).toEqual(['payment', 'refund']);
    // The order is payable again by another run.
    expect((await client.POST('/partners/pay/', { body: { product_order_id: order.id, idempotency_key: 'after-rerun' } })).response.status).toBe(200);
  });

  it('retries a flaky supplier and completes with one debit', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const res = await client.POST('/partners/pay/', { params: { header: { 'x-sandbox-scenario': 'supplier_flaky' } }, body: { product_order_id: order.id } });
    expect(res.response.status).toBe(200);
    expect(res.data?.data.order_status).toBe('completed');
    expect(await paymentsOf(order.id)).toHaveLength(1);
  });

  it('refuses an unknown sandbox scenario', async () => {
    // Raw: the typed client knows only the listed scenarios.
    const { api } = await newPartner();
    const order = await api.productOrder();
    const res = await api.post('/api/partners/pay/', { product_order_id: order.id }, { 'X-Sandbox-Scenario': 'meteor_strike' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^x-sandbox-scenario: must be one of/);
  });
});

async function paymentsOfPartner(client: PartnerClient): Promise<number> {
  const ledger = await client.GET('/partners/ledger/');
  const id = (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.id, ledger.data!.data.results[0]!.id)))[0]!.partnerId;
  return id;
}

describe('a slow supplier and a worker crash', () => {
  it('answers 202 processing past the pay bound, and the order list shows the outcome later', async () => {
    const quick = await startStack({ payWaitMs: 500, slowMs: 2_000 });
    try {
      const creds = await adminClient(quick).createPartner({ topup: '10000000' });
      const api = partnerClient(quick, creds);
      const client = typedPartner(quick, creds);
      const order = await api.productOrder();
      const res = await client.POST('/partners/pay/', {
        params: { header: { 'x-sandbox-scenario': 'supplier_slow' } },
        body: { product_order_id: order.id, idempotency_key: 'slow-1' },
      });
      expect(res.response.status).toBe(202);
      expect(res.data?.data).toMatchObject({ order_id: order.id, order_status: 'processing' });
      const handle = quick.client.workflow.getHandle(processing(res)!.payment_id);
      await handle.result();
      const listed = await client.GET('/partners/product-orders/');
      expect(listed.data?.data.results[0]).toMatchObject({ id: order.id, status: 'completed' });
      expect(await ledgerDiscrepancies(quick.db)).toEqual([]);
    } finally {
      await quick.close();
    }
  });

  it('finishes the saga with one debit when the worker stops after the debit and comes back', async () => {
    const { api, client } = await newPartner();
    const order = await api.productOrder();
    const pending = client.POST('/partners/pay/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_slow' } },
      body: { product_order_id: order.id, idempotency_key: 'crash-1' },
    });
    for (let i = 0; (await paymentsOf(order.id)).length === 0; i++) {
      if (i > 200) throw new Error('the debit never happened');
      await new Promise((r) => setTimeout(r, 50));
    }
    await stack.stopWorker();
    // The supplier step is an activity: the worker that comes back (or any other) runs it again under the same client reference.
    expect(await paymentsOf(order.id)).toHaveLength(1);
    await stack.startWorker();
    const res = await pending;
    expect(res.response.status).toBe(200);
    expect(res.data?.data.order_status).toBe('completed');
    expect(await paymentsOf(order.id)).toHaveLength(1);
    expect(await statusOf(order.id)).toBe('completed');
  });
});
