/**
 * A partner's pay request (POST /api/partners/pay/): what can be refused at once, the
 * idempotency key's rule, and starting or joining the pay workflow (workflows/pay.workflow.ts)
 * and waiting for its outcome. The money steps the workflow runs are in payment-ledger.ts.
 */
import { WorkflowNotFoundError, type Client, type WorkflowHandle, type WorkflowStartOptions } from '@temporalio/client';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { preparedQuery } from '../db/prepared';
import { orders, paymentKeys } from '../db/schema';
import { PAY_START_ATTRIBUTES, payWorkflowId, type PayInput, type PayResult } from '../../workflows/pay.types';
import { DomainError, workflowAnswer } from './errors';
import { AGENCY_CHANNEL, getOrder, isAgencyOrder, type OrderRow } from './orders';
import type { Partner } from './partners';
import { logError } from '../platform/log';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrFind, startOrJoin, inProcessOutcome } from '../temporal/workflows';
import type { Workflows } from '../../workflows/registry.types';

export interface PayDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  payWaitMs: number;
  /**
   * The client shares this process's worker connection (npm start): ask the server to hand
   * the payment's first workflow task straight back to that worker (eager start).
   */
  eagerStart?: boolean;
  /** What this process's own worker tells of the runs it closes (npm start): a payment's success without asking Temporal. */
  outcomes?: WorkflowOutcomes;
  /**
   * Called once the request is known to repeat a key already bound to its order (a retry),
   * before anything else runs; what it throws is the answer (the rate limiter's pay-retry
   * bucket, src/http/rate-limit.ts).
   */
  onRetry?: (() => Promise<void>) | undefined;
}

export interface PayRequest {
  orderId?: number;
  productOrderId?: number;
  idempotencyKey?: string;
  scenario?: string;
  /**
   * When the request arrived (ms since the epoch, by this process's clock; default: now).
   * With a key, it decides whether the request may run the payment again after a failure.
   */
  receivedAt?: number;
}

/** A payment still finalizing with the supplier after the pay bound: the order's amount (minor units) and the payment's id. */
export interface PaymentUnderWay {
  state: 'processing';
  orderId: number;
  amountMinor: number;
  currency: string;
  paymentId: string;
}

/** The payment's outcome: done (the workflow's result, amounts in minor units), or still under way. */
export type PayOutcome = { state: 'completed'; result: PayResult } | PaymentUnderWay;

export type { PayResult };

const notPayable = (message: string) => new DomainError('not_payable', message);

/** The failed run of a key whose failure was last given as an answer, and when it first was. */
interface KeyAnswer {
  answeredRunId: string | null;
  answeredAt: Date | null;
}

/** A key's answer, and whether the key was bound to the order before this request (a retry). */
type KeyRead = KeyAnswer & { retry: boolean };

/** The row of a partner's idempotency key. */
const keyRow = (partnerId: number, key: string) => and(eq(paymentKeys.partnerId, partnerId), eq(paymentKeys.idempotencyKey, key));

/** Prepared: a key's binding (a keyed pay that raced with another binding it; the rate limiter's retry check over the limit). */
const boundKey = preparedQuery('payment_key_binding', (db, name) =>
  db
    .select()
    .from(paymentKeys)
    .where(and(eq(paymentKeys.partnerId, sql.placeholder('partnerId')), eq(paymentKeys.idempotencyKey, sql.placeholder('key'))))
    .prepare(name),
);
/**
 * Prepared: a keyed pay's order, with its idempotency key bound to it in the same statement
 * when the order is the partner's, named by the field its service takes and not Interface
 * B's (the order's checks in `pay` let nothing else through), and the key's row as it was before the
 * statement (`bound` says whether this statement bound it).
 */
const orderBindingKey = preparedQuery('pay_order_binding_key', (db, name) => {
  const bound = db.$with('bound').as(
    db
      .insert(paymentKeys)
      .select(
        sql`select ${orders.partnerId}, ${sql.placeholder('key')}::text, ${orders.id}, now(), null, null from ${orders}
          where ${orders.id} = ${sql.placeholder('orderId')} and ${orders.partnerId} = ${sql.placeholder('partnerId')}
            and (${orders.service} = 'product') = ${sql.placeholder('products')}::boolean
            and ${orders.details}->>'channel' is distinct from ${AGENCY_CHANNEL.channel}`,
      )
      .onConflictDoNothing()
      .returning({ orderId: paymentKeys.orderId }),
  );
  return db
    .with(bound)
    .select({
      order: orders,
      bound: sql<boolean>`exists (select 1 from ${bound})`,
      key: { orderId: paymentKeys.orderId, answeredRunId: paymentKeys.answeredRunId, answeredAt: paymentKeys.answeredAt },
    })
    .from(orders)
    .leftJoin(paymentKeys, and(eq(paymentKeys.partnerId, sql.placeholder('partnerId')), eq(paymentKeys.idempotencyKey, sql.placeholder('key'))))
    .where(eq(orders.id, sql.placeholder('orderId')))
    .prepare(name);
});

/** The order a pay request names, and for a keyed one what its key was bound to (none when this request bound it). */
type OrderRead = { order: OrderRow | undefined; bound?: boolean; key?: { orderId: number; answeredRunId: string | null; answeredAt: Date | null } | null };

/** The order a pay request names; with a key, bound to it in the same statement (see orderBindingKey). */
async function orderOf(db: Db, partnerId: number, req: { orderId: number; key?: string; products: boolean }): Promise<OrderRead> {
  if (req.key === undefined) return { order: await getOrder(db, req.orderId) };
  const [row] = await orderBindingKey(db, { partnerId, key: req.key, orderId: req.orderId, products: req.products });
  return row ?? { order: undefined };
}

/** What a partner's idempotency key is bound to, if it was used before. */
async function keyBinding(db: Db, partnerId: number, key: string) {
  const [bound] = await boundKey(db, { partnerId, key });
  return bound;
}

/**
 * A key is bound to the first order it paid (the same key for another order is refused);
 * returns its answered failure. Bound by this request's read of the order, or before it (the
 * row that read found), or by another request at the same moment (read again).
 */
async function keyAnswer(db: Db, partnerId: number, key: string, orderId: number, read: OrderRead): Promise<KeyRead> {
  if (read.bound) return { answeredRunId: null, answeredAt: null, retry: false };
  const bound = read.key ?? (await keyBinding(db, partnerId, key));
  if (bound && bound.orderId !== orderId) {
    throw new DomainError('validation', `idempotency_key: already used to pay order ${bound.orderId}; use a new key for another order`, 'idempotency_key');
  }
  return { answeredRunId: bound?.answeredRunId ?? null, answeredAt: bound?.answeredAt ?? null, retry: bound !== undefined };
}

/**
 * Whether a pay request is a retry: its idempotency key is already bound to that order (asked
 * by the rate limiter of a request over the partner's limit, which a retry is not refused
 * for, src/http/rate-limit.ts).
 */
export async function isPayRetry(db: Db, partnerId: number, key: string, orderId: number): Promise<boolean> {
  return (await keyBinding(db, partnerId, key))?.orderId === orderId;
}

/** Whether a request that arrived at `receivedAt` raced with the key's answered failure (arrived before it was given). */
const racedWith = (answer: KeyAnswer, receivedAt: number): answer is { answeredRunId: string; answeredAt: Date } =>
  answer.answeredRunId !== null && answer.answeredAt !== null && answer.answeredAt.getTime() >= receivedAt;

/**
 * Records that `runId`'s failure is being given as an answer, unless it already was (the
 * first answer's time stays). Written before the answer leaves, so that no request arriving
 * after an answer can find the failure unrecorded and join it instead of paying again. A
 * failed write only makes the next request answer the same failure once more.
 */
async function recordAnswer(db: Db, partnerId: number, key: string, runId: string): Promise<void> {
  await db
    .update(paymentKeys)
    .set({ answeredRunId: runId, answeredAt: new Date() })
    .where(and(keyRow(partnerId, key), sql`${paymentKeys.answeredRunId} is distinct from ${runId}`))
    .catch((err: unknown) => logError('could not record a payment failure as answered', err, { runId }));
}

/**
 * POST /api/partners/pay/: validates what can be refused at once, then starts (or joins)
 * the pay workflow and waits for its outcome up to the pay bound.
 */
export async function pay(deps: PayDeps, partner: Partner, req: PayRequest): Promise<PayOutcome> {
  const orderId = (req.orderId ?? req.productOrderId)!;
  const field = req.orderId !== undefined ? 'order_id' : 'product_order_id';
  const read = await orderOf(deps.db, partner.id, { orderId, key: req.idempotencyKey, products: field === 'product_order_id' });
  const { order } = read;
  if (!order || order.partnerId !== partner.id) throw notPayable(`${field}: order ${orderId} is not one of your orders`);
  if (field === 'order_id' && order.service === 'product') {
    throw notPayable(`order_id: ${orderId} is a product order; pay it with product_order_id`);
  }
  if (field === 'product_order_id' && order.service !== 'product') {
    throw notPayable(`product_order_id: ${orderId} is a ${order.service} order; pay it with order_id`);
  }
  // Interface B pays its own orders as it creates them, in one saga: a second payer would
  // leave that saga's payment nothing to pay.
  if (isAgencyOrder(order)) throw notPayable(`${field}: order ${orderId} is an Interface B order, paid by B as it was created; it is not paid here`);
  const receivedAt = req.receivedAt ?? Date.now();
  const key = req.idempotencyKey ? await keyAnswer(deps.db, partner.id, req.idempotencyKey, order.id, read) : undefined;
  if (key?.retry) await deps.onRetry?.();

  const workflowId = payWorkflowId(partner.id, { idempotencyKey: req.idempotencyKey, orderId: order.id });
  const handle = deps.temporal.workflow.getHandle<Workflows['payOrder']>(workflowId);

  if (order.status !== 'pending' && order.status !== 'processing') {
    // A retry with the key of a payment that succeeded, or is succeeding (the order is
    // completed in the database, the workflow has not closed yet), gets that payment's answer.
    const run = req.idempotencyKey ? await runStatus(handle) : undefined;
    if (run === 'COMPLETED' || run === 'RUNNING') return awaitPayment(deps, handle, order);
    throw notPayable(`order ${order.id} is not payable: it is already ${order.status}`);
  }
  if (order.paymentMethod !== 'PARTNER_CREDIT') {
    throw notPayable(`order ${order.id} was checked out with payment_method ${order.paymentMethod}; only PARTNER_CREDIT orders are paid from credit`);
  }

  const input: PayInput = { partnerId: partner.id, orderId: order.id, ...(req.scenario ? { scenario: req.scenario } : {}) };
  const start: PayStart = {
    workflowId,
    taskQueue: deps.taskQueue,
    ...(deps.eagerStart ? { requestEagerStart: true } : {}),
    args: [input],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, orderId: order.id, service: order.service, ...PAY_START_ATTRIBUTES }),
  };
  if (!req.idempotencyKey || !key) {
    // Without a key each request is an attempt of its own: it joins one under way, and
    // after a failure the next request pays again.
    const started = await startOrJoin(deps.temporal, 'payOrder', start);
    return awaitPayment(deps, started.handle, order, { runId: started.runId });
  }
  return payWithKey(deps, { partnerId: partner.id, key: req.idempotencyKey, answer: key, receivedAt, start, order });
}

type PayStart = Omit<WorkflowStartOptions<Workflows['payOrder']>, 'workflowIdConflictPolicy' | 'workflowIdReusePolicy'>;

interface KeyedPayment {
  partnerId: number;
  key: string;
  /** The key's answered failure, as read when the request bound the key. */
  answer: KeyAnswer;
  receivedAt: number;
  start: PayStart;
  order: { id: number; totalPrice: number; currency: string };
}

/**
 * What "never debits twice" means for a key (docs/guides/idempotency.md). A key's payment runs
 * (workflow id from the key) one at a time. A request gets the outcome of the key's run in
 * flight, or of its latest run if that has closed, failures included, and waits for it up
 * to the pay bound; it starts a new run only when the latest run failed and that failure had
 * been given as an answer to some request before this request arrived. A failure counts as
 * given from the moment it is recorded on the key (recordAnswer), which happens before any
 * response carries it; "arrived" is receivedAt, a lower bound of when the partner sent the
 * request (src/http/request-id.ts).
 *
 * So a storm of requests with one key, all sent before any of them was answered, makes one
 * run whatever the order in which the API gets to them, and all get its answer; a request
 * sent after seeing the failure (a retry) pays again. The start never reuses the id of a
 * closed run by itself (REJECT_DUPLICATE); the one start that does (ALLOW_DUPLICATE_FAILED_ONLY)
 * runs under the key's row lock, after reading under that lock what was answered and what
 * the latest run is, so that of several requests allowed to pay again (also in other API
 * processes on the same database) one starts the run and the others join it.
 */
async function payWithKey(deps: PayDeps, p: KeyedPayment): Promise<PayOutcome> {
  if (racedWith(p.answer, p.receivedAt)) return answerOf(deps, p, p.answer.answeredRunId);
  const found = await startOrFind(deps.temporal, 'payOrder', p.start, 'keep_outcome');
  if (found.state === 'running') return answerOf(deps, p, found.runId);

  // The key's latest run has closed: decide under the key's row lock.
  const runId = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ answeredRunId: paymentKeys.answeredRunId, answeredAt: paymentKeys.answeredAt })
      .from(paymentKeys)
      .where(keyRow(p.partnerId, p.key))
      .for('update');
    const answered: KeyAnswer = row ?? { answeredRunId: null, answeredAt: null };
    if (racedWith(answered, p.receivedAt)) return answered.answeredRunId;
    const latest = await deps.temporal.workflow.getHandle(p.start.workflowId).describe();
    // Completed (its result is the answer), running again (a request that could pay again
    // already did), or failed with its failure not yet given (this request gives it).
    if (latest.status.name === 'COMPLETED' || latest.status.name === 'RUNNING' || answered.answeredRunId !== latest.runId) return latest.runId;
    // Its failure was answered before this request arrived: a new attempt.
    const again = await startOrFind(deps.temporal, 'payOrder', p.start, 'run_again');
    return again.state === 'running' ? again.runId : undefined;
  });
  return answerOf(deps, p, runId);
}

/** The outcome of the key's run `runId` (its latest run when unknown); a failure is recorded as answered before it is thrown. */
function answerOf(deps: PayDeps, p: KeyedPayment, runId: string | undefined): Promise<PayOutcome> {
  const handle = deps.temporal.workflow.getHandle<Workflows['payOrder']>(p.start.workflowId, runId);
  return awaitPayment(deps, handle, p.order, { onRunFailed: runId ? () => recordAnswer(deps.db, p.partnerId, p.key, runId) : undefined, runId });
}

/**
 * The payment's outcome within the pay bound, or 202 processing with its id. With the id of
 * the run this request started or joined, a success comes from this process's own worker
 * when that runs it (PayDeps.outcomes); a failure, from what Temporal recorded.
 */
async function awaitPayment(
  deps: PayDeps,
  handle: WorkflowHandle<Workflows['payOrder']>,
  order: { id: number; totalPrice: number; currency: string },
  { onRunFailed, runId }: { onRunFailed?: (() => Promise<void>) | undefined; runId?: string | undefined } = {},
): Promise<PayOutcome> {
  const result = await awaitWorkflow(handle, deps.payWaitMs, workflowAnswer('pay'), { onRunFailed, inProcess: inProcessOutcome(deps.outcomes, { runId }) });
  if (result) return { state: 'completed', result };
  return { state: 'processing', orderId: order.id, amountMinor: order.totalPrice, currency: order.currency, paymentId: handle.workflowId };
}

/**
 * The latest run's status (RUNNING, COMPLETED, FAILED, …), or undefined when there is none.
 * Any other error (Temporal unreachable) propagates: "not payable" would be a false answer.
 */
async function runStatus(handle: WorkflowHandle): Promise<string | undefined> {
  try {
    return (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
