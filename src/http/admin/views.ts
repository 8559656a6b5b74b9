import type { OfflineRefundDecision } from '../../domain/flights/operator';
import { creditLeftPercent, walletView, type AlertState } from '../../domain/money/credit-alerts';
import { isOperatorEvent } from '../../domain/events';
import { formatMinor, isKnownCurrency } from '../../platform/currency';
import { formatRate, type CurrentRate, type RateRow } from '../../domain/money/fx';
import { formatDecimal } from '../../domain/money/money';
import { formatPercent, type PricingRuleRow } from '../../domain/money/markup-rules';
import type { OrderInspection, ParkedWorkflow, WorkflowView } from '../../domain/operators';
import type { OrderRow } from '../../domain/orders';
import type { IssuedCredentials } from '../../domain/partners';
import type { LedgerRow } from '../../domain/money/wallet';
import type { VisaDecisionResult } from '../../domain/visa/applications';
import { renderTravelOrder } from '../partner/schemas';
import { actorView } from '../../domain/order-view';
import type { ActorRecord } from '../../platform/actor';

/** The operator API's shapes (src/http/admin/app.ts): what `admin` prints as JSON. */

const renderWorkflow = <S>(w: WorkflowView<S> | null) =>
  w
    ? {
        workflow_id: w.workflowId,
        run_id: w.runId,
        status: w.status,
        state: w.state,
        failure: w.failure,
        worker_version: w.version ? { build_id: w.version.buildId, behavior: w.version.behavior } : null,
      }
    : null;

/**
 * What an order priced in a supplier's currency records: the supplier's amount and currency,
 * and the rate its price was converted with. Only on an order that has them.
 */
function renderSupplierPrice(order: OrderRow) {
  if (order.supplierAmount === null || order.supplierCurrency === null) return {};
  const { supplierAmount: amount, supplierCurrency: currency } = order;
  return {
    supplier_price: {
      amount: isKnownCurrency(currency) ? formatMinor(amount, currency) : String(amount),
      currency,
      fx_rate: order.fxRateAmount !== null && order.fxRateScale !== null ? formatRate({ amount: order.fxRateAmount, scale: order.fxRateScale }) : null,
      fx_rate_id: order.fxRateId,
    },
  };
}

/** What an order's price is made of, for operators only: the net, the margin (and the parent agency's share of it) and the rule that set it. */
const renderPriceParts = (order: OrderRow) => ({
  price_parts: {
    supplier: order.supplier,
    net: order.netPrice === null ? null : formatDecimal(order.netPrice, order.currency),
    margin: order.margin === null ? null : formatDecimal(order.margin, order.currency),
    // Of the margin, what is a sub-agency's parent's (docs/decisions/sub-agencies.md).
    agency_margin: formatDecimal(order.agencyMargin, order.currency),
    pricing_rule_id: order.pricingRuleId,
  },
});

/** `admin order inspect`: the order (as partners see it, with its partner), its money, and its workflows. */
export function renderInspection({ order, ledger, payment, cancellation, events }: OrderInspection) {
  const money = (l: LedgerRow | null) => (l ? { ledger_id: l.id, amount: formatDecimal(l.amount, order.currency) } : null);
  return {
    order: { ...renderTravelOrder(order), partner_id: order.partnerId, ...renderSupplierPrice(order), ...renderPriceParts(order) },
    ledger: ledger.map((l) => ({
      id: l.id,
      type: l.type,
      direction: l.direction,
      amount: formatDecimal(l.amount, order.currency),
      step: l.step,
      workflow_id: l.workflowId,
      at: l.createdAt.toISOString(),
      by: actorView(l.actor),
    })),
    // The payment run and the money it moved: its debit and, when it failed, the reversal.
    payment: payment ? { ...renderWorkflow(payment)!, debit: money(payment.debit), reversal: money(payment.reversal) } : null,
    cancellation: renderWorkflow(cancellation),
    // What its partner heard, and what only operators see (order.needs_attention: where a workflow parked and why).
    events: events.map((e) => ({
      id: e.position,
      type: e.type,
      at: e.createdAt.toISOString(),
      by: actorView((e.data.acted_by ?? null) as ActorRecord | null),
      ...(isOperatorEvent(e.type) ? { operator_only: true, needs_attention: e.data.needs_attention ?? null } : {}),
    })),
  };
}

export function renderParked(parked: ParkedWorkflow[]) {
  return {
    count: parked.length,
    results: parked.map((p) => ({
      workflow_id: p.workflowId,
      workflow_type: p.workflowType,
      kind: p.kind,
      order_id: p.orderId,
      partner_id: p.partnerId,
      service: p.service,
      started_at: p.startedAt.toISOString(),
      state: p.state,
    })),
  };
}

export function renderRefundDecision({ order, workflowId, outcome }: OfflineRefundDecision, operator: string) {
  if (!outcome) return { order_id: order.id, status: 'deciding', workflow_id: workflowId };
  return {
    order_id: order.id,
    status: outcome.approved ? 'refunded' : 'completed',
    refund_amount: formatDecimal(outcome.result?.refundMinor ?? 0, order.currency),
    ledger_id: outcome.result?.ledgerId ?? null,
    decided_by: operator,
  };
}

export function renderVisaDecision({ order, result }: { order: OrderRow; result: VisaDecisionResult | null }, operator: string) {
  if (!result) return { order_id: order.id, status: 'deciding' };
  return {
    order_id: order.id,
    status: result.status,
    refund_amount: formatDecimal(result.refundMinor, order.currency),
    ledger_id: result.ledgerId,
    decided_by: operator,
  };
}

/** Credentials as issued (created or rotated): only the parts that were issued. */
export const renderCredentials = (c: IssuedCredentials) => ({
  partner_id: c.partnerId,
  ...(c.apiKey !== undefined ? { api_key: c.apiKey } : {}),
  ...(c.apiSecret !== undefined ? { api_secret: c.apiSecret } : {}),
  ...(c.agencyKey !== undefined ? { agency_key: c.agencyKey } : {}),
});

/** `admin fx set`: the rate as stored. */
export const renderRate = (r: RateRow) => ({
  id: r.id,
  currency: r.currency,
  wallet_currency: r.walletCurrency,
  rate: formatRate(r.rate),
  set_by: r.setBy,
  set_at: r.setAt.toISOString(),
});

/**
 * `admin fx list`: each pair's current rate (into the engine's default wallet currency first,
 * then into each other wallet currency), its age, and whether it is too old to sell with.
 */
export function renderRates(rates: CurrentRate[], walletCurrency: string, maxAgeMs: number) {
  const first = (r: CurrentRate) => (r.walletCurrency === walletCurrency ? 0 : 1);
  return {
    wallet_currency: walletCurrency,
    max_age_hours: maxAgeMs / (60 * 60 * 1000),
    results: [...rates]
      .sort((a, b) => first(a) - first(b) || a.walletCurrency.localeCompare(b.walletCurrency) || a.currency.localeCompare(b.currency))
      .map((r) => ({ ...renderRate(r), age_seconds: Math.floor(r.ageMs / 1000), stale: r.ageMs > maxAgeMs })),
  };
}

/** A partner's credit alerts and where its wallet stands against them (admin partner alerts, partners near-limit). */
export function renderAlertState(s: AlertState) {
  const currency = s.wallet.currency;
  return {
    partner_id: s.partnerId,
    name: s.name,
    status: s.status,
    wallet: walletView(s.wallet),
    thresholds: s.thresholds,
    defaults: s.defaults,
    prepaid_base: s.prepaidBase === null ? null : formatDecimal(s.prepaidBase, currency),
    base: s.base === null ? null : formatDecimal(s.base, currency),
    credit_left_percent: creditLeftPercent(s),
    below: s.below,
  };
}
/** `admin markup set|list|remove`: a pricing rule, its amounts as decimals of the wallet's currency. */
export const renderMarkup = (r: PricingRuleRow) => ({
  id: r.id,
  service: r.service,
  partner_id: r.partnerId,
  supplier: r.supplier,
  percent: formatPercent(r.percentHundredths),
  fixed: formatDecimal(r.fixed, r.currency),
  min_margin: formatDecimal(r.minMargin, r.currency),
  currency: r.currency,
  from: r.validFrom,
  to: r.validTo,
  created_by: r.createdBy,
  created_at: r.createdAt.toISOString(),
  removed_at: r.removedAt?.toISOString() ?? null,
  removed_by: r.removedBy,
});
