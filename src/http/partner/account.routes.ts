import { createRoute, z } from '@hono/zod-openapi';
import { unreachablePart } from '../../health/model';
import { DomainError } from '../../domain/errors';
import { listLedger, getWallet, type LedgerEntry } from '../../domain/money/wallet';
import { listProductOrders } from '../../domain/orders';
import { answerOrderExport, answerOrderList, orderExportAnswer, OrderFilterQuery, OrderListQuery } from './order-list';
import { pay, type PaymentUnderWay, type PayResult } from '../../domain/pay-request';
import { formatDecimal, toNumber } from '../../domain/money/money';
import { payOutcomes } from '../../platform/metrics';
import type { ApiDeps } from '../deps';
import { LEDGER_TYPES } from '../../db/schema';
import { ok, partnerRouter } from './router';
import { ProductOrder, renderProductOrder } from './products.routes';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { bodyId, exactlyOneOf, opaque } from '../vocabulary';
import { Actor, commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations, renderWallet, TravelOrder, Wallet } from './schemas';
import { page, PageQuery, parsePage, renderPage } from './paging';
import { actorView } from '../../domain/order-view';

const LedgerRow = z
  .object({
    id: z.number().int(),
    direction: z.enum(['debit', 'credit']),
    type: z.enum(LEDGER_TYPES).openapi({ description: 'sub_agency_credit (extension): credit given to a sub-agency, or taken back from it' }),
    amount: Decimal,
    balance_after: Decimal,
    order: z.number().int().nullable().openapi({ description: 'Related travel order id' }),
    product_order: z.number().int().nullable().openapi({ description: 'Related product order id' }),
    reverses: z.number().int().nullable().openapi({ description: 'The ledger row this one reverses' }),
    note: z.string().nullable(),
    created_at: z.string(),
    actor: Actor.openapi({ description: 'Who moved the money: for a payment or refund, who asked for it (extension)' }),
  })
  .openapi('LedgerRow');

/** A ledger row as Interface A answers it: decimal strings, and the order under `order` or `product_order` by its service. */
function renderLedgerRow(e: LedgerEntry): z.infer<typeof LedgerRow> {
  return {
    id: e.id,
    direction: e.direction,
    type: e.type,
    amount: formatDecimal(e.amount, e.currency),
    balance_after: formatDecimal(e.balanceAfter, e.currency),
    order: e.orderId !== null && e.orderService !== 'product' ? e.orderId : null,
    product_order: e.orderId !== null && e.orderService === 'product' ? e.orderId : null,
    reverses: e.reversesEntryId,
    note: e.note,
    created_at: e.createdAt.toISOString(),
    actor: actorView(e.actor),
  };
}

const PayRequest = exactlyOneOf(
  z.object({
    order_id: bodyId('order id').optional().openapi({ description: 'Travel order id' }),
    product_order_id: bodyId('product order id').optional().openapi({ description: 'Product order id' }),
    idempotency_key: opaque(128).optional().openapi({ description: 'Unique per payment: a retry with the same key never debits twice', example: 'pay-7f3c2a' }),
  }),
  'order_id',
  'product_order_id',
).openapi('PayRequest');

const PayResponse = z
  .object({
    ledger_id: z.number().int(),
    amount: z.number(),
    new_balance: z.number(),
    available: z.number(),
    order_status: z.string().openapi({ example: 'completed' }),
    order_id: z.number().int(),
  })
  .openapi('PayResponse');

const PayAccepted = z
  .object({
    order_id: z.number().int(),
    order_status: z.literal('processing'),
    amount: z.number(),
    payment_id: z.string().openapi({ description: 'The payment workflow id, for support' }),
  })
  .openapi('PayAccepted');

/** The pay answers, rendered from the payment's outcome: amounts as JSON numbers in currency units. */
function renderPaid(r: PayResult): z.infer<typeof PayResponse> {
  return {
    ledger_id: r.ledgerId,
    amount: toNumber(r.amountMinor, r.currency),
    new_balance: toNumber(r.balanceAfterMinor, r.currency),
    available: toNumber(r.availableAfterMinor, r.currency),
    order_status: r.orderStatus,
    order_id: r.orderId,
  };
}

function renderPayAccepted(o: PaymentUnderWay): z.infer<typeof PayAccepted> {
  return { order_id: o.orderId, order_status: 'processing', amount: toNumber(o.amountMinor, o.currency), payment_id: o.paymentId };
}

const { get, post } = partnerOperations(['Credit and wallet']);

const routes = {
  wallet: createRoute({
    ...get('/partners/wallet/', 'The partner’s wallet'),
    responses: { 200: json(Wallet, 'The wallet'), 401: commonErrors[401] },
  }),
  ledger: createRoute({
    ...get('/partners/ledger/', 'Ledger rows, newest first (15 a page)'),
    request: { query: PageQuery },
    responses: { 200: json(page(LedgerRow), 'A page of ledger rows'), ...commonErrors },
  }),
  pay: createRoute({
    ...post(
      '/partners/pay/',
      'Pay a pending order from credit',
      'Debits the wallet and finalizes the booking with the supplier as one durable saga. If the supplier refuses, the debit is reversed and the answer is 502; ' +
        'requests with the same idempotency_key that arrived before that answer get the same 502, and one sent after it pays again. If the supplier is slow, the answer is 202 with order_status "processing" and the order lists show the outcome. ' +
        'Sandbox: the X-Sandbox-Scenario header makes the supplier refuse, fail twice, take its time, lose its answers or be unreachable (see the parameter; per service: docs/guides/sandbox-scenarios.md).',
    ),
    request: {
      body: jsonBody(PayRequest),
      headers: sandboxScenario('pay', 'flightTicketing'),
    },
    responses: {
      200: json(PayResponse, 'Paid; the order is completed'),
      202: json(PayAccepted, 'Still finalizing with the supplier'),
      ...commonErrors,
      402: errorResponse('Insufficient credit: the amount exceeds balance + credit_limit'),
      502: errorResponse('The supplier refused; the debit was reversed and the order is payable again'),
    },
  }),
  orders: createRoute({
    ...get(
      '/partners/orders/',
      'Travel orders, newest first',
      'Extension filters (status, travel_from, travel_to, agent) narrow the list; GET /partners/orders/export/ answers every order they select as CSV.',
    ),
    request: { query: OrderListQuery },
    responses: { 200: json(page(TravelOrder), 'A page of travel orders'), ...commonErrors },
  }),
  ordersExport: createRoute({
    ...get(
      '/partners/orders/export/',
      'Travel orders as CSV (extension)',
      'Every travel order the same filters as the list select, newest first, as a file to download.',
    ),
    request: { query: OrderFilterQuery },
    responses: { 200: orderExportAnswer(), ...commonErrors },
  }),
  productOrders: createRoute({
    ...get('/partners/product-orders/', 'Product orders, newest first'),
    request: { query: PageQuery },
    responses: { 200: json(page(ProductOrder), 'A page of product orders'), ...commonErrors },
  }),
};

export function accountRoutes(deps: ApiDeps) {
  return partnerRouter()
    .openapi(routes.wallet, async (c) => ok(c, renderWallet(await getWallet(deps.db, c.get('partner').id))))
    .openapi(routes.ledger, async (c) => {
      const rows = await listLedger(deps.db, c.get('partner').id, parsePage(c.req.valid('query').page));
      return ok(c, renderPage(rows, c.req.url, renderLedgerRow));
    })
    .openapi(routes.orders, async (c) => answerOrderList(c, deps, c.req.valid('query')))
    .openapi(routes.ordersExport, async (c) => answerOrderExport(c, deps, c.req.valid('query')))
    .openapi(routes.productOrders, async (c) => {
      const found = await listProductOrders(deps.db, c.get('partner').id, parsePage(c.req.valid('query').page), c.get('partner').principal.ownBookingsOf);
      return ok(c, renderPage(found, c.req.url, renderProductOrder));
    })
    .openapi(routes.pay, async (c) => {
      const body = c.req.valid('json');
      const scenario = scenarioOf(deps, c.req.valid('header'));
      const outcome = await pay(
        {
          db: deps.db,
          temporal: deps.temporal,
          taskQueue: deps.taskQueue,
          payWaitMs: deps.payWaitMs,
          eagerStart: deps.eagerStart,
          outcomes: deps.outcomes,
          onRetry: c.get('countPayRetry'),
        },
        c.get('partner'),
        { orderId: body.order_id, productOrderId: body.product_order_id, idempotencyKey: body.idempotency_key, scenario, receivedAt: c.get('receivedAt') },
      ).catch((err: unknown) => {
        payOutcomes.inc({ outcome: err instanceof DomainError ? err.code : unreachablePart(err) ? 'unavailable' : 'error' });
        throw err;
      });
      payOutcomes.inc({ outcome: outcome.state });
      if (outcome.state === 'processing') return c.json({ ok: true as const, data: renderPayAccepted(outcome) }, 202);
      return ok(c, renderPaid(outcome.result));
    });
}
