/**
 * The company's double-entry books. Every movement of a partner's wallet (a ledger row)
 * posts transfers between named accounts, in the same transaction: a transfer takes one
 * amount from one account and gives it to another of the same currency, so the books
 * balance by construction (the database refuses anything else, src/db/schema/books.ts). Account
 * balances are credits minus debits; the accounts of a currency always sum to zero.
 *
 * The accounts:
 * - `wallet:P`: what partner P has with the company (its wallet's balance; below zero, what
 *   it owes on credit);
 * - `credit_line:P` and `credit_extended:CUR`: the credit granted to P, and its counterpart;
 * - `funding:CUR`: money partners paid in (top-ups);
 * - `supplier:NAME:CUR`: what is owed to a supplier, in the currency it prices in;
 * - `margin:CUR`: revenue from margins; `fees:CUR`: cancellation fees the company keeps;
 * - `fx:CUR`: currency conversion (a sale paid in one currency and owed in another passes
 *   through both); `fx_differences:CUR`: what rates gained or lost between a sale and its refund;
 * - `adjustments:CUR`: operators' corrections;
 * - `agency_credit:P`: where parent agency P's credit passes to its sub-agencies' credit lines
 *   (it gives from its wallet and the sub-agency's line receives, so it always nets to zero);
 * - `agency_margin:P`: parent agency P's margins on its sub-agencies' sales, which the company
 *   owes it (docs/decisions/sub-agencies.md).
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type DbOrTx, type Tx } from '../../db/client';
import type { TransferKind } from '../../db/schema';
import type { Money } from '../../suppliers/money';
import { convert } from './fx';

export const account = {
  wallet: (partnerId: number) => `wallet:${partnerId}`,
  creditLine: (partnerId: number) => `credit_line:${partnerId}`,
  creditExtended: (currency: string) => `credit_extended:${currency}`,
  funding: (currency: string) => `funding:${currency}`,
  supplier: (name: string, currency: string) => `supplier:${name}:${currency}`,
  margin: (currency: string) => `margin:${currency}`,
  fees: (currency: string) => `fees:${currency}`,
  fx: (currency: string) => `fx:${currency}`,
  fxDifferences: (currency: string) => `fx_differences:${currency}`,
  adjustments: (currency: string) => `adjustments:${currency}`,
  agencyCredit: (parentId: number) => `agency_credit:${parentId}`,
  agencyMargin: (parentId: number) => `agency_margin:${parentId}`,
};

/** One transfer to post: `amount` from `debit` to `credit`, in `currency`. */
export interface Leg {
  kind: TransferKind;
  debit: string;
  credit: string;
  currency: string;
  amount: number;
  reverses?: number;
}

/** A leg of a signed amount: a negative one goes the other way, a zero one is none. */
export function leg(kind: TransferKind, debit: string, credit: string, currency: string, amount: number): Leg[] {
  if (!Number.isSafeInteger(amount)) throw new Error(`a transfer of ${amount} ${currency} is not a whole number of minor units`);
  if (amount === 0) return [];
  return amount > 0 ? [{ kind, debit, credit, currency, amount }] : [{ kind, debit: credit, credit: debit, currency, amount: -amount }];
}

/**
 * Posts the transfers of one wallet movement (ledger row `entry`), in the caller's
 * transaction, in one statement: the accounts they name are opened if new.
 */
export async function post(tx: Tx, entry: { id: number; orderId: number | null }, legs: Leg[]): Promise<void> {
  if (legs.length === 0) return;
  const values = legs.map(
    (l) => sql`(${l.kind}, ${l.debit}, ${l.credit}, ${l.currency}, ${l.amount}::bigint, ${l.reverses ?? null}::integer, ${legs.indexOf(l)}::integer)`,
  );
  await tx.execute(sql`
    with legs (kind, debit, credit, currency, amount, reverses, n) as (values ${sql.join(values, sql`, `)}),
    opened as (
      insert into accounts (code, currency)
      select code, currency from (select debit, currency from legs union select credit, currency from legs) a (code, currency)
      order by code -- one order for all: two first sales opening the same accounts never deadlock
      on conflict do nothing
    )
    insert into transfers (ledger_entry_id, order_id, kind, debit_account, credit_account, currency, amount_minor, reverses_transfer_id)
    select ${entry.id}::integer, ${entry.orderId}::integer, kind, debit, credit, currency, amount, reverses from legs order by n`);
}

/** The transfers a ledger row posted, to reverse them. */
async function transfersOf(tx: DbOrTx, ledgerEntryId: number): Promise<Array<{ id: number; debit: string; credit: string; currency: string; amount: number }>> {
  return rowsOf<{ id: number; debit: string; credit: string; currency: string; amount: string }>(
    await tx.execute(sql`
      select id, debit_account as debit, credit_account as credit, currency, amount_minor as amount
      from transfers where ledger_entry_id = ${ledgerEntryId} order by id`),
  ).map((t) => ({ ...t, amount: Number(t.amount) }));
}

/** Exactly the opposite of what a ledger row posted (a payment reversed, a stay change undone). */
export async function reversalLegs(tx: DbOrTx, ledgerEntryId: number): Promise<Leg[]> {
  return (await transfersOf(tx, ledgerEntryId)).map((t) => ({
    kind: 'reversal',
    debit: t.credit,
    credit: t.debit,
    currency: t.currency,
    amount: t.amount,
    reverses: t.id,
  }));
}

export const topUpLegs = (partnerId: number, currency: string, amount: number): Leg[] =>
  leg('topup', account.funding(currency), account.wallet(partnerId), currency, amount);

/** A credit limit moved by `delta` (up: granted, down: withdrawn). */
export const creditGrantLegs = (partnerId: number, currency: string, delta: number): Leg[] =>
  leg('credit_grant', account.creditExtended(currency), account.creditLine(partnerId), currency, delta);

/**
 * A parent's credit to a sub-agency moved by `delta` (up: granted, down: given back): the
 * parent's side (its wallet's ledger row) and the sub-agency's (its credit_grant row).
 */
export const agencyCreditLegs = (parentId: number, childId: number, currency: string, delta: number): { parent: Leg[]; child: Leg[] } => ({
  parent: leg('agency_credit', account.wallet(parentId), account.agencyCredit(parentId), currency, delta),
  child: leg('credit_grant', account.agencyCredit(parentId), account.creditLine(childId), currency, delta),
});

/** What the books need of an order: who supplies it, its price's parts, and what the supplier charges in its own currency. */
export interface BookedOrder {
  id: number;
  partnerId: number;
  supplier: string;
  currency: string;
  totalPrice: number;
  netPrice: number | null;
  /** The whole margin; `agencyMargin` of it is the parent agency's (`agencyParentId`), the rest the company's. */
  margin: number | null;
  agencyMargin?: number;
  agencyParentId?: number | null;
  supplierAmount: number | null;
  supplierCurrency: string | null;
  fxRateAmount: number | null;
  fxRateScale: number | null;
}

/** The order's price parts: sold at the supplier's price when it records none. */
export function partsOf(order: Pick<BookedOrder, 'totalPrice' | 'netPrice' | 'margin'>): { net: number; margin: number } {
  return order.netPrice === null ? { net: order.totalPrice, margin: 0 } : { net: order.netPrice, margin: order.margin ?? 0 };
}

/** The margin's two shares: the company's and the parent agency's (with its account; none when the buyer is no sub-agency). */
function marginShares(order: BookedOrder, margin: number): { company: number; agency: number; agencyAccount: string | null } {
  const agency = order.agencyParentId ? Math.min(order.agencyMargin ?? 0, margin) : 0;
  return { company: margin - agency, agency, agencyAccount: order.agencyParentId ? account.agencyMargin(order.agencyParentId) : null };
}

/** Legs of a margin's shares from `wallet` (or back to it, for negative amounts): the company's to margin:CUR, the parent's to its account. */
function marginLegs(kind: TransferKind, order: BookedOrder, wallet: string, cur: string, company: number, agency: number, agencyAccount: string | null): Leg[] {
  return [
    ...leg(kind, wallet, account.margin(cur), cur, company),
    ...(agencyAccount ? leg(kind === 'sale_margin' ? 'agency_margin' : 'agency_margin_reversal', wallet, agencyAccount, cur, agency) : []),
  ];
}

/** The supplier is owed in its own currency, converted at the order's rate (the sale's conversion). */
function foreignOf(order: BookedOrder): { currency: string; paid: number; rate: { amount: number; scale: number } } | null {
  if (order.supplierCurrency === null || order.supplierAmount === null || order.supplierCurrency === order.currency) return null;
  if (order.fxRateAmount === null || order.fxRateScale === null) return null;
  return { currency: order.supplierCurrency, paid: order.supplierAmount, rate: { amount: order.fxRateAmount, scale: order.fxRateScale } };
}

/**
 * What the partner's payment of the whole order posts: the net to the supplier (through
 * the conversion accounts when it prices in another currency) and the margin to revenue.
 * The payment debit writes the same legs in SQL (src/domain/money/payment-ledger.ts).
 */
export function saleLegs(order: BookedOrder): Leg[] {
  const { net, margin } = partsOf(order);
  const wallet = account.wallet(order.partnerId);
  const cur = order.currency;
  const foreign = foreignOf(order);
  const shares = marginShares(order, margin);
  return [
    ...marginLegs('sale_margin', order, wallet, cur, shares.company, shares.agency, shares.agencyAccount),
    ...(foreign
      ? [
          ...leg('sale_net', wallet, account.fx(cur), cur, net),
          ...leg('fx_conversion', account.fx(foreign.currency), account.supplier(order.supplier, foreign.currency), foreign.currency, foreign.paid),
        ]
      : leg('sale_net', wallet, account.supplier(order.supplier, cur), cur, net)),
  ];
}

/**
 * A change of an order's price (a stay made longer or shorter): its net and margin move by
 * these amounts, each up as a further sale and down as a refund of that part. Only for
 * orders priced in the wallet's currency.
 */
export function priceChangeLegs(order: BookedOrder, change: { net: number; margin: number; agencyMargin?: number }): Leg[] {
  const wallet = account.wallet(order.partnerId);
  const cur = order.currency;
  const agencyAccount = order.agencyParentId ? account.agencyMargin(order.agencyParentId) : null;
  const agency = agencyAccount ? (change.agencyMargin ?? 0) : 0;
  const company = change.margin - agency;
  return [
    ...leg(change.net > 0 ? 'sale_net' : 'supplier_refund', wallet, account.supplier(order.supplier, cur), cur, change.net),
    ...leg(company > 0 ? 'sale_margin' : 'margin_reversal', wallet, account.margin(cur), cur, company),
    ...(agencyAccount ? leg(agency > 0 ? 'agency_margin' : 'agency_margin_reversal', wallet, agencyAccount, cur, agency) : []),
  ];
}

/** The supplier's side of a refund when it is known: its amount, and what it is worth today in the wallet's currency. */
export interface SupplierRefund {
  amount: Money;
  valuedMinor: number;
}

/**
 * What refunding `credit` of an order posts, as three separate movements:
 * - the supplier's refund: what it gives back of what it was paid (its own amount when
 *   known, otherwise the same share of its price as the partner gets back of the order's),
 *   at the order's rate, and the exchange difference when it is worth another amount today;
 * - the sale's margin, given back (the company's, and the parent agency's on a sub-agency's order);
 * - the fee the company keeps: what the supplier's refund and the margin come to beyond
 *   the partner's credit (negative, when the company gives back more than it recovers).
 * The partner's wallet moves by exactly `credit`.
 */
export function refundLegs(order: BookedOrder, credit: number, supplier?: SupplierRefund): Leg[] {
  const { net, margin } = partsOf(order);
  const wallet = account.wallet(order.partnerId);
  const cur = order.currency;
  const foreign = foreignOf(order);
  const paid = foreign ? foreign.paid : net;
  const supplierCurrency = foreign ? foreign.currency : cur;
  const given = supplier && supplier.amount.currency === supplierCurrency ? supplier.amount.amount_minor : null;
  const share = order.totalPrice === 0 ? 0 : Math.round((paid * credit) / order.totalPrice);
  const refunded = Math.min(Math.max(given ?? share, 0), paid);
  const atSaleRate = foreign ? convert({ amountMinor: refunded, from: foreign.currency, to: cur, rate: foreign.rate }) : refunded;
  const worthToday = given !== null && supplier ? supplier.valuedMinor : atSaleRate;
  const legs: Leg[] = foreign
    ? [
        ...leg('supplier_refund', account.supplier(order.supplier, foreign.currency), account.fx(foreign.currency), foreign.currency, refunded),
        ...leg('supplier_refund', account.fx(cur), wallet, cur, atSaleRate),
      ]
    : leg('supplier_refund', account.supplier(order.supplier, cur), wallet, cur, refunded);
  legs.push(...leg('exchange_difference', account.fxDifferences(cur), wallet, cur, worthToday - atSaleRate));
  const shares = marginShares(order, margin);
  legs.push(...leg('margin_reversal', account.margin(cur), wallet, cur, shares.company));
  if (shares.agencyAccount) legs.push(...leg('agency_margin_reversal', shares.agencyAccount, wallet, cur, shares.agency));
  legs.push(...leg('fee_kept', wallet, account.fees(cur), cur, worthToday + margin - credit));
  return legs;
}
