import { WorkflowNotFoundError } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import { ledgerEntries, orders } from '../../src/db/schema';
import { PartUnavailableError } from '../../src/health/model';
import { payWorkflowId } from '../../workflows/pay.types';
import { adminClient, call, newPartner, type Reply } from '../support/clients';
import { ADMIN_TOKEN, type CuttablePart, type TestStack, useStack } from '../support/stack';

/**
 * While a part is down (docs/decisions/availability.md): PostgreSQL, the Temporal
 * frontend or every worker unreachable, each in turn. The API answers 503 in each
 * interface's shape with Retry-After, quickly, moves no money and starts no workflow;
 * /healthz (API and worker) names the part; everything comes back by itself.
 */

// The stated bounds (docs/decisions/availability.md, docs/operations.md), with the engine's default timings.
/** /healthz reports PostgreSQL or Temporal down (a 1 s round + a 2 s check timeout, and a margin). */
const DETECT_MS = 5_000;
/** /healthz reports every worker gone after a kill: 3 missed 2 s heartbeats, a 1 s round, and a margin. */
const DETECT_KILLED_WORKERS_MS = 10_000;
/** A request needing a part /healthz already reports down. */
const FAIL_FAST_MS = 1_000;
/** Every /healthz is 200 again after the part returns: a pending probe's timeout, a round, a heartbeat, the API's round; and a margin. */
const RECOVER_MS = 10_000;
/**
 * A request caught by the failure itself: the 5 s Temporal call deadline (3 s for a
 * PostgreSQL connection). A pay whose start got no answer then asks once whether it started
 * anyway (src/temporal/workflows.ts, startedAnyway); that look-up is refused at once when
 * /healthz has already seen Temporal down, and otherwise waits for its own 5 s deadline: 10 s
 * at worst, and a margin for a busy machine.
 */
const CAUGHT_MS = 12_000;

const AGENCY_ORDER = {
  product_id: 'ESIM-TR-10GB-15D',
  quantity: 1,
  delivery_address: { street: 'Valiasr 1', city: 'Tehran', country: 'IR', postal_code: '1415' },
};

async function timed(request: Promise<Reply>): Promise<Reply & { ms: number }> {
  const started = Date.now();
  const reply = await request;
  return { ...reply, ms: Date.now() - started };
}

/** The health detail (each part's check) is for operators: /admin/healthz with the admin token. */
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Polls `app`'s /admin/healthz (the API's admin port, or the worker's) until `until` holds; how long that took, or a failure past `boundMs`. */
async function healthzUntil(app: TestStack['admin'] | TestStack['workerApp'], until: (r: Reply) => boolean, boundMs: number): Promise<Reply & { ms: number }> {
  const started = Date.now();
  for (;;) {
    const reply = await call(app, 'GET', '/admin/healthz', operator);
    if (until(reply)) return { ...reply, ms: Date.now() - started };
    if (Date.now() - started > boundMs) throw new Error(`/admin/healthz did not change within ${boundMs} ms: ${reply.status} ${JSON.stringify(reply.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const down = (part: string) => (r: Reply) => r.status === 503 && r.body.checks?.[part]?.ok === false;
const healthy = (r: Reply) => r.status === 200 && r.body.ok === true;

function expect503(reply: Reply & { ms: number }, shape: 'A' | 'B' | 'admin', boundMs: number, part: RegExp): void {
  expect({ status: reply.status, retryAfter: reply.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '5' });
  if (shape === 'A') expect(reply.body).toEqual({ ok: false, error: expect.stringMatching(part) });
  if (shape === 'B') expect(reply.body).toEqual({ detail: expect.stringMatching(part) });
  if (shape === 'admin') expect(reply.body).toEqual({ error: expect.stringMatching(part) });
  expect(reply.ms).toBeLessThan(boundMs);
}

/** A partner with a pending product order, and what its money looks like now; each test starts from a healthy stack. */
async function payer(stack: TestStack) {
  await healthzUntil(stack.admin, healthy, RECOVER_MS);
  const { creds, api } = await newPartner(stack, '0', '10000000');
  const order = await api.productOrder();
  const b = (method: string, path: string, body?: unknown) => call(stack.app, method, `/v1${path}`, { authorization: `Bearer ${creds.agency_key}` }, body);
  const money = async () => ({
    wallet: (await adminClient(stack).get(`/admin/partners/${creds.partner_id}/wallet`)).body,
    ledger: (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.partnerId, creds.partner_id))).length,
    orders: (await stack.db.select().from(orders).where(eq(orders.partnerId, creds.partner_id))).map((o) => [o.id, o.status]),
  });
  const pay = (key: string) => timed(api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: key }));
  const noWorkflow = async (key: string) => {
    const handle = stack.client.workflow.getHandle(payWorkflowId(creds.partner_id, { idempotencyKey: key, orderId: order.id }));
    // The client's own connection may still be reconnecting when /healthz is healthy again: asked again until it answers.
    const until = Date.now() + RECOVER_MS;
    let answer: unknown;
    do {
      answer = await handle.describe().then(
        () => 'found',
        (err: unknown) => err,
      );
      if (!(answer instanceof PartUnavailableError)) break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < until);
    expect(answer).toBeInstanceOf(WorkflowNotFoundError);
  };
  return { creds, api, order, b, money, pay, noWorkflow };
}

describe('every worker down (npm run api + npm run worker: worker heartbeats)', () => {
  let stack: TestStack;
  useStack((s) => (stack = s), { workerSeenBy: 'heartbeat', payWaitMs: 20_000 });

  it('reports a killed worker within seconds, answers 503 at once without moving money, and recovers when a worker returns', async () => {
    const p = await payer(stack);
    const before = await p.money();
    const ready = await call(stack.admin, 'GET', '/admin/healthz', operator);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.worker).toEqual({ ok: true, detail: `1 worker on task queue ${stack.taskQueue}` });
    expect((await call(stack.workerApp, 'GET', '/healthz', {})).status).toBe(200);

    await stack.stopWorker({ crash: true });
    const seen = await healthzUntil(stack.admin, down('worker'), DETECT_KILLED_WORKERS_MS);
    expect(seen.body.checks.worker.detail).toBe(`no worker heartbeat on task queue ${stack.taskQueue}`);
    expect(seen.body.checks.database.ok && seen.body.checks.temporal.ok).toBe(true);
    expect(seen.headers.get('retry-after')).toBe('5');
    // Killed, the worker process serves no /healthz at all; the stack's stand-in says so.
    expect((await call(stack.workerApp, 'GET', '/healthz', {})).status).toBe(503);

    expect503(await p.pay('down-1'), 'A', FAIL_FAST_MS, /^no worker is running; nothing was changed, try again in 5 s$/);
    expect503(await timed(p.b('POST', '/products/orders', AGENCY_ORDER)), 'B', FAIL_FAST_MS, /^no worker is running/);
    // What needs no worker still works.
    expect((await p.api.get('/api/partners/wallet/')).status).toBe(200);
    expect(await p.money()).toEqual(before);
    await p.noWorkflow('down-1');

    await stack.startWorker();
    await healthzUntil(stack.admin, healthy, RECOVER_MS);
    await healthzUntil(stack.workerApp, healthy, RECOVER_MS);
    const paid = await p.pay('down-1');
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ order_id: p.order.id, order_status: 'completed' });
    expect((await p.money()).ledger).toBe(before.ledger + 1);
  });

  it('sees a worker that stops on purpose gone at once: it removes its heartbeat', async () => {
    const p = await payer(stack);
    await stack.stopWorker();
    try {
      const seen = await healthzUntil(stack.admin, down('worker'), FAIL_FAST_MS);
      expect(seen.ms).toBeLessThan(FAIL_FAST_MS);
      expect503(await p.pay('stop-1'), 'A', FAIL_FAST_MS, /^no worker is running/);
    } finally {
      await stack.startWorker();
    }
    await healthzUntil(stack.admin, healthy, RECOVER_MS);
    expect((await p.pay('stop-1')).status).toBe(200);
  });
});

describe('Temporal unreachable', () => {
  let stack: TestStack;
  useStack((s) => (stack = s), { faults: true, workerSeenBy: 'heartbeat', payWaitMs: 20_000 });
  const restoring = async (part: CuttablePart, run: () => Promise<void>) => {
    try {
      await run();
    } finally {
      stack.restore(part);
    }
  };

  it('answers 503 instead of 500 — quickly, also for the request caught by the cut — and recovers by itself', async () => {
    const p = await payer(stack);
    // A paid order, whose payment an operator inspects through Temporal.
    const paidEarlier = await p.api.productOrder();
    expect((await p.api.post('/api/partners/pay/', { product_order_id: paidEarlier.id, idempotency_key: 'paid-before' })).status).toBe(200);
    const before = await p.money();
    await restoring('temporal', async () => {
      stack.cut('temporal');
      // Sent before any round noticed: the start call's deadline bounds it. Whether the start
      // reached Temporal nobody can tell now, so the answer claims no more (nothing did start: below).
      expect503(await p.pay('cut-1'), 'A', CAUGHT_MS, /^the workflow service \(Temporal\) is unreachable; the request did not complete, try again in 5 s$/);

      const seen = await healthzUntil(stack.admin, down('temporal'), DETECT_MS);
      expect(seen.body.checks.database.ok).toBe(true);
      const worker = await healthzUntil(stack.workerApp, down('temporal'), DETECT_MS);
      expect(worker.body.checks.database.ok).toBe(true);
      // The worker cannot serve without Temporal: it removes its heartbeat once it notices, and the API says so too.
      await healthzUntil(stack.admin, down('worker'), DETECT_KILLED_WORKERS_MS);

      expect503(await p.pay('cut-2'), 'A', FAIL_FAST_MS, /^the workflow service \(Temporal\) is unreachable; nothing was changed, try again in 5 s$/);
      expect503(await timed(p.b('POST', '/products/orders', AGENCY_ORDER)), 'B', FAIL_FAST_MS, /^the workflow service \(Temporal\) is unreachable/);
      expect503(
        await timed(adminClient(stack).get(`/admin/orders/${paidEarlier.id}`)),
        'admin',
        FAIL_FAST_MS,
        /^the workflow service \(Temporal\) is unreachable/,
      );
      // A retry of a payment that succeeded is "try again" now, not "already completed".
      const retried = await timed(p.api.post('/api/partners/pay/', { product_order_id: paidEarlier.id, idempotency_key: 'paid-before' }));
      expect503(retried, 'A', FAIL_FAST_MS, /^the workflow service \(Temporal\) is unreachable/);
      // Reads from the database still work.
      expect((await p.api.get('/api/partners/wallet/')).status).toBe(200);
      expect(await p.money()).toEqual(before);
    });

    await healthzUntil(stack.admin, healthy, RECOVER_MS);
    await healthzUntil(stack.workerApp, healthy, RECOVER_MS);
    await p.noWorkflow('cut-1');
    await p.noWorkflow('cut-2');
    const paid = await p.pay('cut-1');
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ order_id: p.order.id, order_status: 'completed' });
    expect((await p.money()).ledger).toBe(before.ledger + 1);
    expect((await p.api.post('/api/partners/pay/', { product_order_id: paidEarlier.id, idempotency_key: 'paid-before' })).status).toBe(200);
  });

  it('joins a payment whose start went through but whose answer came too late: never 503 with a payment under way', async () => {
    const p = await payer(stack);
    const before = await p.money();
    // Longer than the 5 s start deadline, shorter than that and the look-up after it.
    stack.stallClientAnswers(6_500);
    const paid = await p.pay('late-answer');
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ order_id: p.order.id, order_status: 'completed' });
    expect((await p.money()).ledger).toBe(before.ledger + 1);
  });
});

const withPostgres = process.env.DATABASE_URL ? describe : describe.skip;

// PGlite runs inside the process and cannot become unreachable: this part needs DATABASE_URL (CI sets it).
withPostgres('PostgreSQL unreachable', () => {
  let stack: TestStack;
  useStack((s) => (stack = s), { faults: true, workerSeenBy: 'heartbeat', payWaitMs: 20_000 });

  it('answers 503 in every interface’s shape, quickly, names the database on both /healthz, and recovers by itself', async () => {
    const p = await payer(stack);
    const before = await p.money();
    try {
      stack.cut('database');
      expect503(await p.pay('db-1'), 'A', CAUGHT_MS, /^the database is unreachable; the request did not complete, try again in 5 s$/);

      const seen = await healthzUntil(stack.admin, down('database'), DETECT_MS);
      expect(seen.body.checks.temporal.ok).toBe(true);
      await healthzUntil(stack.workerApp, down('database'), DETECT_MS);

      expect503(await p.pay('db-2'), 'A', FAIL_FAST_MS, /^the database is unreachable; nothing was changed, try again in 5 s$/);
      expect503(await timed(p.api.get('/api/partners/wallet/')), 'A', FAIL_FAST_MS, /^the database is unreachable/);
      expect503(await timed(p.b('GET', '/products')), 'B', FAIL_FAST_MS, /^the database is unreachable/);
      expect503(await timed(p.b('POST', '/products/orders', AGENCY_ORDER)), 'B', FAIL_FAST_MS, /^the database is unreachable/);
      expect503(await timed(adminClient(stack).get(`/admin/partners/${p.creds.partner_id}/wallet`)), 'admin', FAIL_FAST_MS, /^the database is unreachable/);
    } finally {
      stack.restore('database');
    }

    await healthzUntil(stack.admin, healthy, RECOVER_MS);
    await healthzUntil(stack.workerApp, healthy, RECOVER_MS);
    expect(await p.money()).toEqual(before);
    await p.noWorkflow('db-1');
    await p.noWorkflow('db-2');
    const paid = await p.pay('db-1');
    expect(paid.status).toBe(200);
    expect((await p.money()).ledger).toBe(before.ledger + 1);
  });
});
