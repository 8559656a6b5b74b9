import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orders } from '../../db/schema';
import { DomainError, notFound } from '../errors';
import { formatDecimal } from '../money/money';
import { isStorableId } from '../ids';
import { readableBy, type OrderRow } from '../orders';
import { dayText } from '../money/statements';
import { financeKinds, orderFinanceDocuments, sellerLogoOf, snapshotOf, type FinanceDocumentRow, type FinanceSnapshot, type MonthlySummary } from './finance';
import type { DocumentSettings } from './issuer';
import type { Branding, DocumentContent } from './model';
import { brandingOf } from './profile';
import { TRAVEL_DOCUMENT_OF, travelDocument, travelDocumentAvailability, type SupplierFacts } from './travel';

export interface DocumentDeps {
  db: Db;
  settings: DocumentSettings;
  facts: SupplierFacts;
}

/** One document of an order as its list shows it: whether it can be had, and why not. */
export interface DocumentEntry {
  kind: string;
  title: string;
  available: boolean;
  reason: string | null;
  /** A finance document's number. */
  number: string | null;
}

/**
 * An order the partner may read: its own, or, for a parent agency, one of its sub-agencies'
 * (whose traveller documents carry the sub-agency's branding, and whose invoices the parent
 * issued it). Another partner's order is as unknown as one that does not exist.
 */
async function partnersOrder(db: Db, partnerId: number, orderId: number): Promise<OrderRow> {
  const [order] = isStorableId(orderId)
    ? await db
        .select()
        .from(orders)
        .where(and(eq(orders.id, orderId), readableBy(partnerId)))
    : [];
  if (!order) throw notFound(`order ${orderId}`);
  return order;
}

const TITLES = { invoice: 'Invoice', credit_note: 'Credit note' } as const;
/** A finance document's title: what the company sold a parent of its sub-agency's order is its purchase. */
const titleOf = (doc: FinanceDocumentRow) => (snapshotOf(doc).purchase ? `Purchase ${TITLES[doc.kind].toLowerCase()}` : TITLES[doc.kind]);
/** Why an order has no invoice, by its status. */
const NO_INVOICE: Partial<Record<OrderRow['status'], string>> = {
  pending: 'the order is not paid yet',
  processing: 'the payment is not confirmed yet',
  failed: 'the order failed: nothing was charged',
  expired: 'the order expired unpaid',
};

/**
 * The order's documents: its traveller document, its invoices and its credit notes (issued
 * here where owed); for a sub-agency's parent, also what the company sold it of the order.
 */
export async function orderDocuments(deps: DocumentDeps, partnerId: number, orderId: number): Promise<{ order: OrderRow; documents: DocumentEntry[] }> {
  const order = await partnersOrder(deps.db, partnerId, orderId);
  const travel = TRAVEL_DOCUMENT_OF[order.service];
  const state = await travelDocumentAvailability(deps.db, order);
  const finance = financeKinds(await orderFinanceDocuments(deps.db, deps.settings, order, partnerId), order.partnerId);
  const documents: DocumentEntry[] = [
    { kind: travel.kind, title: travel.title, available: state.available, reason: state.available ? null : state.reason, number: null },
    ...finance.map(({ kind, doc }) => ({
      kind,
      title: `${titleOf(doc)} ${snapshotOf(doc).number}`,
      available: true,
      reason: null,
      number: snapshotOf(doc).number,
    })),
  ];
  if (!finance.some((f) => f.kind === 'invoice')) {
    const reason = NO_INVOICE[order.status] ?? 'the order has no payment that stands';
    documents.push({ kind: 'invoice', title: 'Invoice', available: false, reason, number: null });
    if (partnerId !== order.partnerId) documents.push({ kind: 'purchase-invoice', title: 'Purchase invoice', available: false, reason, number: null });
  }
  return { order, documents };
}

const money = (minor: number, currency: string) => `${formatDecimal(minor, currency)} ${currency}`;
const percent = (hundredths: number) => `${(hundredths / 100).toFixed(2).replace(/\.?0+$/, '')}%`;

/** An invoice or a credit note as drawn: from its snapshot alone. */
export function financeContent(s: FinanceSnapshot): DocumentContent {
  const title = s.kind === 'invoice' ? 'Invoice' : 'Credit note';
  return {
    title,
    reference: `${title} ${s.number}`,
    parties: { seller: s.seller, buyer: s.buyer },
    facts: [
      ['Number', s.number],
      ['Issued', dayText(new Date(s.issued_at))],
      [s.kind === 'invoice' ? 'Paid' : 'Refunded', dayText(s.date)],
      ['Order', String(s.order_id)],
      ...(s.purchase ? ([['Sub-agency', `${s.purchase.sub_agency} (${s.purchase.sub_agency_id})`]] as Array<[string, string]>) : []),
      ...(s.refers_to ? ([['Credits invoice', s.refers_to]] as Array<[string, string]>) : []),
      ['Currency', s.currency],
    ],
    tables: [
      {
        title: 'Lines',
        columns: ['Description', 'Quantity', 'Unit price', 'Amount'],
        right: [1, 2, 3],
        rows: s.lines.map((l) => [l.description, String(l.quantity), formatDecimal(l.unit_minor, s.currency), formatDecimal(l.total_minor, s.currency)]),
      },
      {
        title: 'Totals',
        columns: ['', 'Amount'],
        right: [1],
        rows: [
          [`Net of ${s.tax.name}`, money(s.tax.net_minor, s.currency)],
          [`${s.tax.name} ${percent(s.tax.rate_hundredths)} (included)`, money(s.tax.amount_minor, s.currency)],
          [s.kind === 'invoice' ? 'Total paid' : 'Total refunded', money(s.total_minor, s.currency)],
        ],
      },
    ],
    notes: s.purchase
      ? [
          s.kind === 'invoice'
            ? 'Paid from the sub-agency’s wallet, on the credit you granted it; your margin is owed to you by the company.'
            : 'Credited to the sub-agency’s wallet with its refund.',
        ]
      : s.kind === 'invoice'
        ? ['Paid from the agency’s wallet.']
        : ['Credited to the agency’s wallet.'],
  };
}

/** The monthly summary as drawn. */
export function summaryContent(sum: MonthlySummary, seller: { name: string; lines: string[] }): DocumentContent {
  return {
    title: 'Monthly invoice summary',
    reference: `${sum.buyer.name}, ${sum.month}`,
    parties: { seller, buyer: sum.buyer },
    facts: [
      ['Month', sum.month],
      ['Documents', String(sum.documents.length)],
    ],
    tables: [
      {
        title: 'Invoices and credit notes',
        columns: ['Number', 'Kind', 'Date', 'Order', 'Amount', 'Currency'],
        right: [4],
        rows: sum.documents.map((d) => {
          const s = snapshotOf(d);
          return [s.number, titleOf(d), s.date, String(d.orderId), formatDecimal(d.kind === 'invoice' ? d.total : -d.total, d.currency), d.currency];
        }),
      },
      {
        title: 'Totals',
        columns: ['Currency', 'Invoiced', 'Credited', 'Net', 'Tax within net'],
        right: [1, 2, 3, 4],
        rows: sum.totals.map((t) => [
          t.currency,
          formatDecimal(t.invoiced, t.currency),
          formatDecimal(t.credited, t.currency),
          formatDecimal(t.net, t.currency),
          formatDecimal(t.tax, t.currency),
        ]),
      },
    ],
    notes: sum.documents.length === 0 ? ['No invoices or credit notes this month.'] : [],
  };
}

/** One of the order's documents by its kind: its content, and the agency's branding for a traveller document, its issuer's logo for a finance one. */
export async function orderDocument(
  deps: DocumentDeps,
  partnerId: number,
  orderId: number,
  kind: string,
): Promise<{ content: DocumentContent; branding: Branding | null; filename: string }> {
  const order = await partnersOrder(deps.db, partnerId, orderId);
  const travel = TRAVEL_DOCUMENT_OF[order.service];
  if (kind === travel.kind) {
    const content = await travelDocument(deps.db, order, deps.facts);
    return { content, branding: await brandingOf(deps.db, order.partnerId), filename: `${kind}-order-${order.id}.pdf` };
  }
  const finance = /^(purchase-)?(invoice|credit-note)(-[1-9]\d{0,3})?$/.exec(kind);
  // Purchases are a sub-agency's parent's: to anyone else the order has no such document.
  if (finance && (!finance[1] || partnerId !== order.partnerId)) {
    const found = financeKinds(await orderFinanceDocuments(deps.db, deps.settings, order, partnerId), order.partnerId).find((f) => f.kind === kind);
    if (!found) {
      throw new DomainError(
        'conflict',
        `order ${order.id} has no ${finance[1] ? 'purchase ' : ''}${kind.slice(finance[1]?.length ?? 0).replace('-', ' ')}: ${finance[2] === 'invoice' ? (NO_INVOICE[order.status] ?? 'the order has no payment that stands') : 'nothing of it was refunded'}`,
      );
    }
    const s = snapshotOf(found.doc);
    // An agency's invoice under its logo, as it was when issued; the company's under none.
    const logo = await sellerLogoOf(deps.db, s);
    const branding = logo ? { name: s.seller.name, lines: [], logoPng: logo } : null;
    return { content: financeContent(s), branding, filename: `${s.kind === 'invoice' ? 'invoice' : 'credit-note'}-${s.number}.pdf` };
  }
  const purchases = partnerId === order.partnerId ? '' : ', purchase-invoice, purchase-credit-note';
  throw notFound(`document "${kind}" of order ${order.id} (a ${order.service} order has: ${travel.kind}, invoice, credit-note${purchases})`);
}
