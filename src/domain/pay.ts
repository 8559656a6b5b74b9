import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import { PartUnavailableError } from '../availability';
import type { Db } from '../db/client';
import { paymentKeys } from '../db/schema';
import { PayFailure, payWorkflowId, type PayInput, type PayResult } from '../../workflows/pay.types';
import { DomainError } from './errors';
import { getOrder } from './orders';
import type { Partner } from './partners';
import { awaitWorkflow, bookingAttributes, startOrJoin } from '../temporal/workflows';
import type { Workflows } from '../../workflows/registry.types';
import { OrderStatus } from '../../workflows/search-attributes';

export interface PayDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  payWaitMs: number;
  tuning?: PayTuning;
}

/** How payments are run (docs/performance.md measures both). */
export interface PayTuning {
  /** The debit, complete and reverse steps as local activities. */
  localLedgerSteps?: boolean;
  /** Ask the server to hand the first workflow task straight to this process's worker (needs a client on the worker's connection). */
  eagerStart?: boolean;
  /** The payment's shape (PayInput.shape): 'lean' runs every step locally, in one workflow task when nothing fails. */
  shape?: 'lean' | 'classic';
}

export interface PayRequest {
  orderId?: number;
  productOrderId?: number;
  idempotencyKey?: string;
  scenario?: string;
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

/** Binds an idempotency key to the first order it paid; the same key for another order is refused. */
async function bindKey(db: Db, partnerId: number, key: string, orderId: number): Promise<void> {
  const [fresh] = await db
    .insert(paymentKeys)
    .values({ partnerId, idempotencyKey: key, orderId })
    .onConflictDoNothing()
    .returning({ orderId: paymentKeys.orderId });
  if (fresh) return;
  const [bound] = await db
    .select()
    .from(paymentKeys)
    .where(and(eq(paymentKeys.partnerId, partnerId), eq(paymentKeys.idempotencyKey, key)));
  if (bound && bound.orderId !== orderId) {
    throw new DomainError('validation', `idempotency_key: already used to pay order ${bound.orderId}; use a new key for another order`, 'idempotency_key');
  }
}

/** Maps the workflow's business failure to the domain error the interfaces render. */
function failureOf(f: { type: string; message: string }): Error | null {
  if (f.type === PayFailure.insufficientCredit) return new DomainError('insufficient_credit', f.message);
  if (f.type === PayFailure.notPayable) return new DomainError('not_payable', f.message);
  if (f.type === PayFailure.reversed) return new DomainError('supplier_failed', f.message);
  // The debit could not be written (the database, bounded retries spent): nothing was charged, the partner may try again.
  if (f.type === PayFailure.debitFailed) return new PartUnavailableError('database', f.message, true);
  return null;
}

/**
 * POST /api/partners/pay/: validates what can be refused at once, then starts (or joins)
 * the pay workflow and waits for its outcome up to the pay bound.
 */
export async function pay(deps: PayDeps, partner: Partner, req: PayRequest): Promise<PayOutcome> {
  const orderId = (req.orderId ?? req.productOrderId)!;
  const order = await getOrder(deps.db, orderId);
  const field = req.orderId !== undefined ? 'order_id' : 'product_order_id';
  if (!order || order.partnerId !== partner.id) throw notPayable(`${field}: order ${orderId} is not one of your orders`);
  if (field === 'order_id' && order.service === 'product') {
    throw notPayable(`order_id: ${orderId} is a product order; pay it with product_order_id`);
  }
  if (field === 'product_order_id' && order.service !== 'product') {
    throw notPayable(`product_order_id: ${orderId} is a ${order.service} order; pay it with order_id`);
  }
  if (req.idempotencyKey) await bindKey(deps.db, partner.id, req.idempotencyKey, order.id);

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

  const lean = deps.tuning?.shape === 'lean';
  const input: PayInput = {
    partnerId: partner.id,
    orderId: order.id,
    ...(req.scenario ? { scenario: req.scenario } : {}),
    ...(deps.tuning?.localLedgerSteps ? { localLedgerSteps: true } : {}),
    ...(lean ? { shape: 'lean' as const } : {}),
  };
  await startOrJoin(deps.temporal, 'payOrder', {
    workflowId,
    taskQueue: deps.taskQueue,
    ...(deps.tuning?.eagerStart ? { requestEagerStart: true } : {}),
    args: [input],
    typedSearchAttributes: [
      ...bookingAttributes({ partnerId: partner.id, orderId: order.id, service: order.service, stage: 'debiting' }),
      // A lean payment does not upsert what it starts with.
      ...(lean ? [{ key: OrderStatus, value: 'processing' }] : []),
    ],
  });

  return awaitPayment(deps, handle, order);
}

/** The payment's outcome within the pay bound, or 202 processing with its id. */
async function awaitPayment(
  deps: PayDeps,
  handle: WorkflowHandle<Workflows['payOrder']>,
  order: { id: number; totalPrice: number; currency: string },
): Promise<PayOutcome> {
  const result = await awaitWorkflow(handle, deps.payWaitMs, failureOf);
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
