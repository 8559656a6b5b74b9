/**
 * Orders that need an operator (docs/operations.md, "Find stuck payments" and "Decide"): the parked queue, an
 * order inspected with its money and workflows, and the decisions relayed to its workflow
 * (retry, confirm, compensate; a flight's offline refund; a visa; a residence cancellation).
 * A decision is audited before its signal is sent: nothing is decided unaudited, and a
 * decision refused afterwards (409) keeps its row as an attempt. Also the books' reconciliation.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { decideOfflineRefund } from '../../domain/flights/operator';
import { DomainError } from '../../domain/errors';
import { parseAmount } from '../../domain/money/money';
import { decidePayment, inspectOrder, needsAttention } from '../../domain/operators';
import { reconcile } from '../../domain/money/reconcile';
import { acceptCancel } from '../../domain/residence/service';
import { relayVisaDecision } from '../../domain/visa/service';
import { Reservation, renderReservation } from '../partner/residence.routes';
import { Actor } from '../partner/schemas';
import { operatorOf, recordAction } from './actions';
import type { AdminDeps } from './deps';
import { idParam } from './input';
import { adminOperations, adminRouter } from './router';
import { Amount, conflictResponse, Decimal, IdParams, json, jsonBody, notFoundResponse, TravelOrder } from './schemas';
import { renderInspection, renderParked, renderRefundDecision, renderVisaDecision } from './views';

const { get, post } = adminOperations(['Orders']);

const Decision = z
  .object({ amount: Amount.optional().openapi({ description: 'The refund; required to approve' }), reason: z.string().max(1000).optional() })
  .openapi('RefundDecisionRequest');
const PaymentDecision = z
  .object({
    reason: z.string().trim().min(3, 'say why (at least 3 characters)').max(1000).openapi({ description: 'Why; kept in the audit' }),
    supplier_ref: z.string().max(200).optional().openapi({ description: "To confirm: the supplier's reference of what it booked" }),
  })
  .openapi('PaymentDecisionRequest');
const VisaDecisionBody = z
  .object({ decision: z.enum(['approve', 'reject'], { error: 'must be approve or reject' }), reason: z.string().max(1000).optional() })
  .openapi('VisaDecisionRequest');

/** While it runs: the state its query answers (the step it is at, and what last failed). */
const WorkflowState = z
  .object({ step: z.string(), stage: z.string(), lastError: z.string().nullable() })
  .nullable()
  .openapi('WorkflowState', { description: 'While the run is open, the state its query answers (more fields than these, by kind); else null' });
const Workflow = z
  .object({
    workflow_id: z.string(),
    run_id: z.string().nullable(),
    status: z.string().openapi({ description: "Temporal's execution status (RUNNING, COMPLETED, FAILED, …), or NOT_FOUND" }),
    state: WorkflowState,
    failure: z.string().nullable(),
    worker_version: z.object({ build_id: z.string(), behavior: z.enum(['pinned', 'auto_upgrade']) }).nullable(),
  })
  .openapi('Workflow');
const Money = z.object({ ledger_id: z.number().int(), amount: Decimal }).nullable();
const Inspection = z
  .object({
    order: TravelOrder.extend({
      partner_id: z.number().int(),
      supplier_price: z
        .object({ amount: z.string(), currency: z.string(), fx_rate: z.string().nullable(), fx_rate_id: z.number().int().nullable() })
        .optional()
        .openapi({ description: "Only on an order priced in a supplier's currency" }),
      price_parts: z.object({
        supplier: z.string().nullable(),
        net: Decimal.nullable(),
        margin: Decimal.nullable(),
        agency_margin: Decimal,
        pricing_rule_id: z.number().int().nullable(),
      }),
    }),
    ledger: z.array(
      z.object({
        id: z.number().int(),
        type: z.string(),
        direction: z.string(),
        amount: Decimal,
        step: z.string().nullable(),
        workflow_id: z.string().nullable(),
        at: z.string(),
        by: Actor,
      }),
    ),
    payment: Workflow.extend({ debit: Money, reversal: Money }).nullable(),
    cancellation: Workflow.nullable(),
    events: z.array(
      z.object({
        id: z.number().int().nullable(),
        type: z.string(),
        at: z.string(),
        by: Actor,
        operator_only: z.boolean().optional().openapi({ description: 'An event only operators see (order.needs_attention)' }),
        needs_attention: z.unknown().optional(),
      }),
    ),
  })
  .openapi('OrderInspection');
const Parked = z
  .object({
    count: z.number().int(),
    results: z.array(
      z.object({
        workflow_id: z.string(),
        workflow_type: z.string(),
        kind: z.enum(['payment', 'cancellation', 'change']),
        order_id: z.number().int().nullable(),
        partner_id: z.number().int().nullable(),
        service: z.string().nullable(),
        started_at: z.string(),
        state: WorkflowState,
      }),
    ),
  })
  .openapi('NeedsAttention');
const Decided = z
  .object({
    order_id: z.number().int(),
    status: z.string().openapi({ description: 'deciding while its workflow is still at it; else the outcome' }),
    workflow_id: z.string().optional(),
    refund_amount: Decimal.optional(),
    ledger_id: z.number().int().nullable().optional(),
    decided_by: z.string().optional(),
  })
  .openapi('Decision');
const Finding = z.object({ kind: z.string() }).catchall(z.unknown());
const Reconciliation = z
  .object({
    ok: z.boolean().openapi({ description: 'No finding' }),
    findings: z.array(Finding),
    checked: z.object({ wallets: z.number().int(), orders: z.number().int() }),
  })
  .openapi('Reconciliation');

const order = IdParams('order');
const refused = conflictResponse('The order, or its workflow, is not waiting for that decision');
type Action = 'retry' | 'confirm' | 'compensate';
const HELP = {
  retry: 'Run the step that failed again.',
  confirm: 'The supplier did book it: record the booking (with its supplier_ref) and complete the payment.',
  compensate: 'The supplier did not book it: give the money back and fail the order.',
} as const;
const decisionRoute = <A extends Action>(action: A) =>
  createRoute({
    ...post(`/admin/orders/{id}/${action}` as `/admin/orders/{id}/${A}`, `Decide a parked payment or cancellation: ${action}`, HELP[action]),
    request: { params: order, body: jsonBody(PaymentDecision) },
    responses: { 200: json(Inspection.extend({ action: z.literal(action) }), 'Decided: the order as it is now'), ...notFoundResponse, ...refused },
  });

const routes = {
  reconcile: createRoute({
    ...adminOperations(['Books']).get('/admin/reconcile', 'Check the books', 'Wallets against their ledger, orders against their payments, holds past expiry.'),
    responses: { 200: json(Reconciliation, 'What was checked and found') },
  }),
  inspect: createRoute({
    ...get('/admin/orders/{id}', 'An order with its money and its workflows'),
    request: { params: order },
    responses: { 200: json(Inspection, 'The order'), ...notFoundResponse },
  }),
  needsAttention: createRoute({
    ...get('/admin/needs-attention', 'Every parked payment and cancellation'),
    responses: { 200: json(Parked, 'The queue') },
  }),
  retry: decisionRoute('retry'),
  confirm: decisionRoute('confirm'),
  compensate: decisionRoute('compensate'),
  refund: createRoute({
    ...post('/admin/orders/{id}/refund', "Approve a flight's offline refund", 'With the amount the airline gave back.'),
    request: { params: order, body: jsonBody(Decision) },
    responses: { 200: json(Decided, 'Decided'), ...notFoundResponse, ...refused },
  }),
  refundReject: createRoute({
    ...post('/admin/orders/{id}/refund-reject', "Reject a flight's offline refund"),
    request: { params: order, body: jsonBody(Decision) },
    responses: { 200: json(Decided, 'Decided'), ...notFoundResponse, ...refused },
  }),
  visaDecision: createRoute({
    ...post('/admin/orders/{id}/visa-decision', 'Decide a visa application'),
    request: { params: order, body: jsonBody(VisaDecisionBody) },
    responses: { 200: json(Decided, 'Decided'), ...notFoundResponse, ...refused },
  }),
  acceptCancel: createRoute({
    ...post('/admin/reservations/{id}/accept-cancel', "Accept a residence stay's cancellation for its host"),
    request: { params: IdParams('reservation') },
    responses: { 200: json(Reservation, 'The reservation'), ...notFoundResponse, ...refused },
  }),
};

export function orderRoutes(deps: Pick<AdminDeps, 'db' | 'temporal' | 'taskQueue' | 'waitMs' | 'residenceHoldMs'>) {
  const { db } = deps;
  const temporalDeps = { db, temporal: deps.temporal, taskQueue: deps.taskQueue, waitMs: deps.waitMs };
  const orderId = (c: Context) => idParam(c, 'order');
  const decide = async <A extends Action>(c: Context, action: A, b: z.infer<typeof PaymentDecision>) => {
    const id = orderId(c);
    await recordAction(db, c);
    const after = await decidePayment(temporalDeps, id, { action, operator: operatorOf(c), reason: b.reason, supplierRef: b.supplier_ref });
    return { action, ...renderInspection(after) };
  };
  return adminRouter()
    .openapi(routes.reconcile, async (c) => {
      const report = await reconcile(db, new Date(), Math.max(deps.waitMs * 4, 60_000));
      return c.json({ ok: report.findings.length === 0, ...report }, 200);
    })
    .openapi(routes.inspect, async (c) => c.json(renderInspection(await inspectOrder(temporalDeps, orderId(c))), 200))
    .openapi(routes.needsAttention, async (c) => c.json(renderParked(await needsAttention(temporalDeps)), 200))
    .openapi(routes.retry, async (c) => c.json(await decide(c, 'retry', c.req.valid('json')), 200))
    .openapi(routes.confirm, async (c) => c.json(await decide(c, 'confirm', c.req.valid('json')), 200))
    .openapi(routes.compensate, async (c) => c.json(await decide(c, 'compensate', c.req.valid('json')), 200))
    .openapi(routes.refund, async (c) => {
      const id = orderId(c);
      const b = c.req.valid('json');
      if (b.amount === undefined) throw new DomainError('validation', 'amount: is required');
      const amountMinor = parseAmount('amount', b.amount, { allowZero: true });
      const operator = operatorOf(c);
      await recordAction(db, c);
      return c.json(
        renderRefundDecision(await decideOfflineRefund(temporalDeps, id, { approve: true, amountMinor, operator, reason: b.reason }), operator),
        200,
      );
    })
    .openapi(routes.visaDecision, async (c) => {
      const id = orderId(c);
      const b = c.req.valid('json');
      const operator = operatorOf(c);
      await recordAction(db, c);
      const decided = await relayVisaDecision(temporalDeps, id, { approve: b.decision === 'approve', reason: b.reason ?? b.decision, operator });
      return c.json(renderVisaDecision(decided, operator), 200);
    })
    .openapi(routes.acceptCancel, async (c) => {
      const id = idParam(c, 'reservation');
      const resDeps = { ...temporalDeps, holdTtlMs: deps.residenceHoldMs, autoAcceptCancelMs: null };
      await recordAction(db, c);
      return c.json(renderReservation(await acceptCancel(resDeps, id, null, operatorOf(c)), new Date()), 200);
    })
    .openapi(routes.refundReject, async (c) => {
      const id = orderId(c);
      const b = c.req.valid('json');
      const operator = operatorOf(c);
      await recordAction(db, c);
      return c.json(renderRefundDecision(await decideOfflineRefund(temporalDeps, id, { approve: false, operator, reason: b.reason }), operator), 200);
    });
}
