import { CurrencyAmountError } from '../../platform/currency';
import type { MarkupService, OrderService } from '../../db/schema';
import { partsOf } from './books';
import { MAX_AMOUNT_MINOR } from './money';

/**
 * Markups: how a net price becomes the partner's sell price (docs/decisions/pricing-rules.md).
 * Pure: the rules in force are read by src/domain/money/markup-rules.ts.
 */

/** One operator's rule, as the engine applies it. */
export interface MarkupRule {
  id: number;
  service: MarkupService;
  /** The partner it is narrowed to; null: every partner. */
  partnerId: number | null;
  /** The supplier it is narrowed to ('simulator', 'duffel'); null: every supplier. */
  supplier: string | null;
  /** Hundredths of a percent of net: 750 is 7.5%. */
  percentHundredths: number;
  /** Minor units of the wallet's currency added to every sale. */
  fixedMinor: number;
  /** The least margin the rule takes, in minor units of the wallet's currency. */
  minMarginMinor: number;
  /** The first and last days (UTC, YYYY-MM-DD) it applies; null: open. */
  validFrom: string | null;
  validTo: string | null;
}

/** What a sale is priced against: the service, who buys, who supplies, and the day (UTC, YYYY-MM-DD). */
export interface SaleContext {
  service: MarkupService;
  partnerId: number;
  supplier: string;
  day: string;
}

/** A price in its two parts, with the rule that set the margin (null: sold at net). */
export interface SellPrice {
  netMinor: number;
  /** The whole margin: the company's and, on a sub-agency's sale, its parent's. */
  marginMinor: number;
  sellMinor: number;
  ruleId: number | null;
  /** The parent agency's share of the margin (0 unless a sub-agency buys). */
  agencyMarginMinor: number;
}

/** A parent agency's markup for one of its sub-agencies, on the operator's price to the parent. */
export interface AgencyMarkup {
  parentId: number;
  percentHundredths: number;
  fixedMinor: number;
}

/** The markup service an order's service is priced under. */
export const MARKUP_SERVICE_OF: Record<OrderService, MarkupService> = {
  hotel: 'hotels',
  flight: 'flights',
  product: 'products',
  tour: 'tours',
  residence: 'residence',
  visa: 'visa',
};

/** Whether `rule` applies to `sale`: its service, its partner and supplier if it names them, and the day within its dates. */
export function applies(rule: MarkupRule, sale: SaleContext): boolean {
  return (
    rule.service === sale.service &&
    (rule.partnerId === null || rule.partnerId === sale.partnerId) &&
    (rule.supplier === null || rule.supplier === sale.supplier) &&
    (rule.validFrom === null || rule.validFrom <= sale.day) &&
    (rule.validTo === null || sale.day <= rule.validTo)
  );
}

/**
 * The rule that prices `sale`, most specific first: among the rules that apply, one naming
 * the partner beats one that does not; then one naming the supplier beats one that does
 * not; then the newest (highest id) wins. Null when none applies.
 */
export function chooseRule<R extends MarkupRule>(rules: readonly R[], sale: SaleContext): R | null {
  let best: R | null = null;
  for (const rule of rules) {
    if (!applies(rule, sale)) continue;
    if (best === null || rank(rule) > rank(best) || (rank(rule) === rank(best) && rule.id > best.id)) best = rule;
  }
  return best;
}

const rank = (r: MarkupRule) => (r.partnerId !== null ? 2 : 0) + (r.supplier !== null ? 1 : 0);

/**
 * The margin `rule` takes on `netMinor`: the percent of net, rounded once at the minor unit
 * half away from zero (as src/domain/money/fx.ts converts), plus the fixed amount, at least the
 * minimum margin. No rule: 0.
 */
export function marginOf(rule: MarkupRule | null, netMinor: number): number {
  if (!Number.isSafeInteger(netMinor) || netMinor < 0) throw new RangeError(`not a net price in minor units: ${netMinor}`);
  if (rule === null) return 0;
  const scaled = BigInt(netMinor) * BigInt(rule.percentHundredths);
  // net >= 0, so half away from zero is half up: (x + 5000) / 10000, truncated.
  const percent = (scaled + 5_000n) / 10_000n;
  const margin = percent + BigInt(rule.fixedMinor);
  const atLeast = margin < BigInt(rule.minMarginMinor) ? BigInt(rule.minMarginMinor) : margin;
  if (atLeast + BigInt(netMinor) > BigInt(MAX_AMOUNT_MINOR)) {
    throw new CurrencyAmountError('too_large', `${netMinor} minor units with their markup are more than the engine keeps`);
  }
  return Number(atLeast);
}

/** What a parent adds to the operator's price to it: the percent, rounded once half up, plus the fixed amount. */
export function agencyMarginOf(agency: AgencyMarkup | null, parentPriceMinor: number): number {
  if (agency === null) return 0;
  const percent = (BigInt(parentPriceMinor) * BigInt(agency.percentHundredths) + 5_000n) / 10_000n;
  const margin = percent + BigInt(agency.fixedMinor);
  if (margin + BigInt(parentPriceMinor) > BigInt(MAX_AMOUNT_MINOR)) {
    throw new CurrencyAmountError('too_large', `${parentPriceMinor} minor units with their markup are more than the engine keeps`);
  }
  return Number(margin);
}

/** `netMinor` priced with `rule`, and then with the parent's markup when a sub-agency buys. */
export function sellPrice(rule: MarkupRule | null, netMinor: number, agency: AgencyMarkup | null = null): SellPrice {
  const operatorMargin = marginOf(rule, netMinor);
  const agencyMarginMinor = agencyMarginOf(agency, netMinor + operatorMargin);
  const marginMinor = operatorMargin + agencyMarginMinor;
  return { netMinor, marginMinor, sellMinor: netMinor + marginMinor, ruleId: rule?.id ?? null, agencyMarginMinor };
}

/**
 * A sale's rule, resolved once: applied to each of its prices (every rate of a search, each
 * line of a basket). The engine's own catalogue keeps its nets in the engine's currency: for
 * a wallet in another, `net` converts them first (src/domain/money/markup-rules.ts, ownMarkup), and
 * `price` and `sell` take the catalogue's net.
 */
export interface Markup {
  readonly rule: MarkupRule | null;
  /** The parent's markup, when a sub-agency buys. */
  readonly agency: AgencyMarkup | null;
  price(netMinor: number): SellPrice;
  /** The sell price alone. */
  sell(netMinor: number): number;
  /** The net in the wallet's currency. */
  net(netMinor: number): number;
  /** The operator's price (to the parent, when a sub-agency buys): the sell price without the parent's markup. */
  operatorSell(netMinor: number): number;
}

const same = (netMinor: number) => netMinor;

export function markupWith(rule: MarkupRule | null, agency: AgencyMarkup | null = null, toWallet: (netMinor: number) => number = same): Markup {
  return {
    rule,
    agency,
    price: (netMinor) => sellPrice(rule, toWallet(netMinor), agency),
    sell: (netMinor) => sellPrice(rule, toWallet(netMinor), agency).sellMinor,
    operatorSell: (netMinor) => {
      const net = toWallet(netMinor);
      return net + marginOf(rule, net);
    },
    net: toWallet,
  };
}

/**
 * The parts of a price summed over lines (a basket, a tour's passengers, a stay's nights):
 * its net, the sell total and the operator's total (each line priced as `operatorSell`); the
 * parent's share is what the sell total adds to the operator's.
 */
export function summedPrice(markup: Markup, totals: { net: number; operator: number; sell: number }): SellPrice {
  const marginMinor = totals.sell - totals.net;
  const agencyMarginMinor = Math.min(Math.max(totals.sell - totals.operator, 0), Math.max(marginMinor, 0));
  return { netMinor: totals.net, marginMinor, sellMinor: totals.sell, ruleId: markup.rule?.id ?? null, agencyMarginMinor };
}

/** No markup: every price is its net. */
export const AT_NET: Markup = markupWith(null);

/** The columns an order (or the booking it is made from) keeps a price's parts in. */
export const priceColumns = (p: SellPrice) => ({ netPrice: p.netMinor, margin: p.marginMinor, pricingRuleId: p.ruleId, agencyMargin: p.agencyMarginMinor });

/** The price parts a booking carries to its order (sold at net, margin 0, when it records none). */
export function carriedPriceColumns(row: {
  totalPrice: number;
  netPrice: number | null;
  margin: number | null;
  pricingRuleId: number | null;
  agencyMargin: number;
}) {
  const { net, margin } = partsOf(row);
  return { netPrice: net, margin, pricingRuleId: row.pricingRuleId, agencyMargin: row.netPrice === null ? 0 : row.agencyMargin };
}

/**
 * The least net that sells at `sellMinor` or more under `markup`, for a filter on sell prices
 * run on nets (a sell price never falls as net rises: a binary search is exact).
 */
export function netAtLeast(markup: Markup, sellMinor: number): number {
  let lo = 0;
  let hi = Math.max(0, sellMinor); // sell(n) >= n: this net always sells at sellMinor or more.
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (markup.sell(mid) >= sellMinor) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The greatest net that sells at `sellMinor` or less under `markup`; -1 when even a net of 0 sells above it. */
export function netAtMost(markup: Markup, sellMinor: number): number {
  if (markup.sell(0) > sellMinor) return -1;
  let lo = 0;
  let hi = sellMinor; // sell(n) >= n: no greater net sells at sellMinor or less.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (markup.sell(mid) <= sellMinor) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
