import { createHash } from 'node:crypto';
import { and, asc, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  documentCounters,
  documentLogos,
  financeDocuments,
  ledgerEntries,
  orderItems,
  orders,
  partners,
  transfers,
  type FinanceDocumentKind,
} from '../../db/schema';
import { account } from '../money/books';
import { validation } from '../errors';
import { describeOrders } from '../money/statements';
import { documentNumber, issuerOf, operatorIssuer, type DocumentSettings, type Issuer } from './issuer';
import type { Party } from './model';
import { brandingOf } from './profile';

/** Everything an issued invoice or credit note says, fixed when it is issued: its PDF is drawn from this alone. */
export interface FinanceSnapshot {
  kind: FinanceDocumentKind;
  number: string;
  issuer: string;
  issued_at: string;
  /** The day of the payment or refund it states (UTC). */
  date: string;
  order_id: number;
  currency: string;
  seller: Party;
  buyer: Party;
  lines: Array<{ description: string; quantity: number; unit_minor: number; total_minor: number }>;
  total_minor: number;
  tax: { name: string; rate_hundredths: number; amount_minor: number; net_minor: number };
  /** A credit note's invoice. */
  refers_to: string | null;
  /** The SHA-256 of the seller's logo as issued (`document_logos`); none for the company's. */
  seller_logo?: string;
  /**
   * On what the company sells a parent agency of its sub-agency's order: the sub-agency, and
   * the parent's margin the movement carried (its own share, not the company's to charge).
   */
  purchase?: { sub_agency_id: number; sub_agency: string; agency_margin_minor: number };
}

export type FinanceDocumentRow = typeof financeDocuments.$inferSelect;

/** Order statuses whose payment stands: the supplier confirmed it, whatever happened after. */
const SETTLED = ['completed', 'cancelled', 'refunded', 'refund_requested'] as const;

/** The tax within a total that includes it, half up: total × rate / (100% + rate), in exact integers. */
export function taxWithin(totalMinor: number, rateHundredths: number): number {
  const t = BigInt(totalMinor);
  const r = BigInt(rateHundredths);
  const d = 10_000n + r;
  return Number((2n * t * r + d) / (2n * d));
}

/** The month a moment falls in (UTC), YYYY-MM. */
const monthOf = (at: Date) => at.toISOString().slice(0, 7);

type Movement = { id: number; orderId: number; partnerId: number; type: 'payment' | 'refund'; amount: number; createdAt: Date };

/**
 * The movements that are owed documents: payments of settled orders that were not reversed
 * (an invoice each), and refunds (a credit note each; a reversal of a payment the supplier
 * refused is no refund: that payment has no invoice). Of `partnerId`'s orders, and with
 * `children` of its sub-agencies' too.
 */
async function movementsOwed(db: DbOrTx, where: { partnerId: number; children?: boolean; orderId?: number; from?: Date; to?: Date }): Promise<Movement[]> {
  // A reversal is a row of the same order: found through the ledger's order index.
  const reversal = sql`exists (select 1 from ${ledgerEntries} r where r.order_id = ${ledgerEntries.orderId} and r.reverses_entry_id = ${ledgerEntries.id})`;
  const rows = await db
    .select({
      id: ledgerEntries.id,
      orderId: ledgerEntries.orderId,
      partnerId: ledgerEntries.partnerId,
      type: ledgerEntries.type,
      amount: ledgerEntries.amount,
      createdAt: ledgerEntries.createdAt,
    })
    .from(ledgerEntries)
    .innerJoin(orders, eq(orders.id, ledgerEntries.orderId))
    .where(
      and(
        where.children
          ? inArray(
              ledgerEntries.partnerId,
              db
                .select({ id: partners.id })
                .from(partners)
                .where(or(eq(partners.id, where.partnerId), eq(partners.parentId, where.partnerId))),
            )
          : eq(ledgerEntries.partnerId, where.partnerId),
        where.orderId !== undefined ? eq(ledgerEntries.orderId, where.orderId) : undefined,
        where.from ? gte(ledgerEntries.createdAt, where.from) : undefined,
        where.to ? lt(ledgerEntries.createdAt, where.to) : undefined,
        inArray(orders.status, [...SETTLED]),
        sql`((${ledgerEntries.type} = 'payment' and not ${reversal}) or (${ledgerEntries.type} = 'refund' and ${ledgerEntries.reversesEntryId} is null))`,
      ),
    )
    .orderBy(asc(ledgerEntries.id));
  return rows as Movement[];
}

/** A document a movement is owed: to the partner that moved, or to that sub-agency's parent (a purchase). */
interface Owed {
  movement: Movement;
  buyerId: number;
  /** The sub-agency whose order the company sells its parent. */
  purchaseOf: number | null;
}

/** Each movement's documents, in the ledger's order: the partner's, then, for a sub-agency, its parent's purchase. */
async function documentsOwed(db: DbOrTx, movements: Movement[]): Promise<Owed[]> {
  if (movements.length === 0) return [];
  const ids = [...new Set(movements.map((m) => m.partnerId))];
  const parents = new Map(
    (await db.select({ id: partners.id, parentId: partners.parentId }).from(partners).where(inArray(partners.id, ids))).map((p) => [p.id, p.parentId]),
  );
  return movements.flatMap((m) => {
    const parentId = parents.get(m.partnerId) ?? null;
    const own: Owed = { movement: m, buyerId: m.partnerId, purchaseOf: null };
    return parentId === null ? [own] : [own, { movement: m, buyerId: parentId, purchaseOf: m.partnerId }];
  });
}

type Draft = Omit<FinanceSnapshot, 'number' | 'issued_at' | 'refers_to'>;

/** What a document will say, but its number: built before the issuer's sequence is locked. */
async function draft(db: DbOrTx, settings: DocumentSettings, owed: Owed): Promise<{ content: Draft; issuer: Issuer } | null> {
  if (owed.purchaseOf !== null) return purchaseDraft(db, settings, owed.movement, owed.buyerId);
  const m = owed.movement;
  const issuer = await issuerOf(db, settings, m.partnerId);
  return { content: await partnerDraft(db, settings, m, issuer), issuer };
}

/** The partner's own document of its movement: its total is the movement's. */
async function partnerDraft(db: DbOrTx, settings: DocumentSettings, m: Movement, issuer: Issuer): Promise<Draft> {
  const [order] = await db.select().from(orders).where(eq(orders.id, m.orderId));
  const buyer = await brandingOf(db, m.partnerId);
  const subject = (await describeOrders(db, [m.orderId], undefined, { travellers: false })).get(m.orderId) ?? `Order ${m.orderId}`;
  let lines: FinanceSnapshot['lines'] = [{ description: subject, quantity: 1, unit_minor: m.amount, total_minor: m.amount }];
  if (order!.service === 'product' && m.type === 'payment') {
    const items = await db.select().from(orderItems).where(eq(orderItems.orderId, m.orderId)).orderBy(asc(orderItems.id));
    if (items.reduce((n, i) => n + i.lineTotal, 0) === m.amount) {
      lines = items.map((i) => ({ description: `${i.name} (${i.sku})`, quantity: i.quantity, unit_minor: i.unitPrice, total_minor: i.lineTotal }));
    }
  }
  if (m.type === 'refund') lines = lines.map((l) => ({ ...l, description: `Refund: ${l.description}` }));
  return {
    kind: m.type === 'payment' ? 'invoice' : 'credit_note',
    issuer: issuer.code,
    date: m.createdAt.toISOString().slice(0, 10),
    order_id: m.orderId,
    currency: order!.currency,
    seller: issuer.party,
    buyer: { name: buyer.name, lines: buyer.lines },
    lines,
    total_minor: m.amount,
    tax: taxOf(settings, m.amount),
  };
}

function taxOf(settings: DocumentSettings, totalMinor: number): FinanceSnapshot['tax'] {
  const tax = taxWithin(totalMinor, settings.tax.rateHundredths);
  return { name: settings.tax.name, rate_hundredths: settings.tax.rateHundredths, amount_minor: tax, net_minor: totalMinor - tax };
}

/** What a movement moved the parent's margin account by, as the books posted it (up on a sale, down on a refund). */
async function agencyMarginMoved(db: DbOrTx, ledgerEntryId: number, parentId: number): Promise<number> {
  const code = account.agencyMargin(parentId);
  const [row] = await db
    .select({
      moved: sql<string>`coalesce(sum(case when ${transfers.creditAccount} = ${code} then ${transfers.amount} else -${transfers.amount} end), 0)`,
    })
    .from(transfers)
    .where(and(eq(transfers.ledgerEntryId, ledgerEntryId), or(eq(transfers.creditAccount, code), eq(transfers.debitAccount, code))));
  return Number(row?.moved ?? 0);
}

/**
 * What the company sells a parent agency of its sub-agency's movement: the movement less the
 * parent's margin in it, as the books split it. A payment is invoiced at the sub-agency's
 * price less the parent's margin; a refund is credited what the sub-agency got back less the
 * margin the parent gave back (a refund smaller than that margin leaves the parent owing the
 * difference: an invoice). Its lines are the sub-agency's and the margin, signed as the
 * document reads. Nothing is owed when the two cancel out.
 */
async function purchaseDraft(db: DbOrTx, settings: DocumentSettings, m: Movement, parentId: number): Promise<{ content: Draft; issuer: Issuer } | null> {
  const issuer = operatorIssuer(settings);
  const own = await partnerDraft(db, settings, m, issuer);
  const margin = await agencyMarginMoved(db, m.id, parentId);
  // Signed as the company charges the parent: a payment up, a refund down.
  const moved = m.type === 'payment' ? m.amount : -m.amount;
  const owes = moved - margin;
  if (owes === 0) return null;
  const sign = Math.sign(moved) * Math.sign(owes);
  const child = await brandingOf(db, m.partnerId);
  const buyer = await brandingOf(db, parentId);
  const lines = [
    ...own.lines.map((l) => ({ ...l, description: `${child.name}: ${l.description}`, unit_minor: sign * l.unit_minor, total_minor: sign * l.total_minor })),
    ...(margin === 0
      ? []
      : [
          {
            description: margin > 0 ? 'Less your margin on the sub-agency’s price' : 'Your margin, given back',
            quantity: 1,
            unit_minor: -Math.sign(owes) * margin,
            total_minor: -Math.sign(owes) * margin,
          },
        ]),
  ];
  const total = Math.abs(owes);
  return {
    issuer,
    content: {
      ...own,
      kind: owes > 0 ? 'invoice' : 'credit_note',
      buyer: { name: buyer.name, lines: buyer.lines },
      lines,
      total_minor: total,
      tax: taxOf(settings, total),
      purchase: { sub_agency_id: m.partnerId, sub_agency: child.name, agency_margin_minor: Math.abs(margin) },
    },
  };
}

/**
 * Issues a document a movement is owed, once: under the issuer's counter row, locked, so
 * that its number is the next of one gapless sequence and is given in the same transaction
 * that keeps the document (a transaction rolled back takes its number with it). Issued
 * before, it is answered as it was.
 */
async function issue(db: Db, settings: DocumentSettings, owed: Owed): Promise<FinanceDocumentRow | null> {
  const drafted = await draft(db, settings, owed);
  if (!drafted) return null;
  const { content, issuer } = drafted;
  const { movement: m, buyerId } = owed;
  return db.transaction(async (tx) => {
    await tx.insert(documentCounters).values({ issuer: content.issuer }).onConflictDoNothing();
    const [counter] = await tx.select().from(documentCounters).where(eq(documentCounters.issuer, content.issuer)).for('update');
    const [existing] = await tx
      .select()
      .from(financeDocuments)
      .where(and(eq(financeDocuments.ledgerEntryId, m.id), eq(financeDocuments.partnerId, buyerId)));
    if (existing) return existing;
    const refersTo =
      content.kind === 'credit_note'
        ? ((
            await tx
              .select({ snapshot: financeDocuments.snapshot })
              .from(financeDocuments)
              .where(and(eq(financeDocuments.orderId, m.orderId), eq(financeDocuments.partnerId, buyerId), eq(financeDocuments.kind, 'invoice')))
              .orderBy(asc(financeDocuments.number))
          ).at(-1)?.snapshot.number as string | undefined)
        : undefined;
    const n = counter!.lastNumber + 1;
    const issuedAt = new Date();
    const snapshot: FinanceSnapshot = { ...content, number: documentNumber(issuer.prefix, n), issued_at: issuedAt.toISOString(), refers_to: refersTo ?? null };
    if (issuer.logoPng) {
      snapshot.seller_logo = createHash('sha256').update(issuer.logoPng).digest('hex');
      await tx
        .insert(documentLogos)
        .values({ sha256: snapshot.seller_logo, png: issuer.logoPng.toString('base64') })
        .onConflictDoNothing();
    }
    const [row] = await tx
      .insert(financeDocuments)
      .values({
        issuer: content.issuer,
        number: n,
        kind: content.kind,
        partnerId: buyerId,
        orderId: m.orderId,
        ledgerEntryId: m.id,
        month: monthOf(m.createdAt),
        total: content.total_minor,
        currency: content.currency,
        snapshot: snapshot as unknown as Record<string, unknown>,
        issuedAt,
      })
      .returning();
    await tx.update(documentCounters).set({ lastNumber: n }).where(eq(documentCounters.issuer, content.issuer));
    return row!;
  });
}

/**
 * Issues, in the ledger's order, what these movements are owed and have not had yet (an
 * order's invoice before its credit note; a sub-agency's document before its parent's).
 */
async function issueOwed(db: Db, settings: DocumentSettings, movements: Movement[]): Promise<void> {
  if (movements.length === 0) return;
  const had = new Set(
    (
      await db
        .select({ id: financeDocuments.ledgerEntryId, buyer: financeDocuments.partnerId })
        .from(financeDocuments)
        .where(
          inArray(
            financeDocuments.ledgerEntryId,
            movements.map((m) => m.id),
          ),
        )
    ).map((r) => `${r.id}:${r.buyer}`),
  );
  for (const owed of await documentsOwed(db, movements)) if (!had.has(`${owed.movement.id}:${owed.buyerId}`)) await issue(db, settings, owed);
}

/**
 * An order's invoices and credit notes as `readerId` may have them, issued first where owed:
 * the order's partner's, in their numbers' order, and, when its parent reads, what the
 * company sold the parent of it.
 */
export async function orderFinanceDocuments(
  db: Db,
  settings: DocumentSettings,
  order: { id: number; partnerId: number },
  readerId: number,
): Promise<FinanceDocumentRow[]> {
  await issueOwed(db, settings, await movementsOwed(db, { partnerId: order.partnerId, orderId: order.id }));
  const docs = await db
    .select()
    .from(financeDocuments)
    .where(and(eq(financeDocuments.orderId, order.id), inArray(financeDocuments.partnerId, [order.partnerId, readerId])))
    .orderBy(asc(financeDocuments.number));
  return [...docs.filter((d) => d.partnerId === order.partnerId), ...docs.filter((d) => d.partnerId !== order.partnerId)];
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export interface MonthlySummary {
  partnerId: number;
  month: string;
  buyer: Party;
  documents: FinanceDocumentRow[];
  /** Per currency: what was invoiced, credited, and the tax within each. */
  totals: Array<{ currency: string; invoiced: number; credited: number; net: number; tax: number }>;
}

/**
 * The partner's invoices and credit notes of a month (by the day of their payment or refund,
 * UTC), issued first where owed: a parent's include what the company sold it of its
 * sub-agencies' orders.
 */
export async function monthlySummary(db: Db, settings: DocumentSettings, partnerId: number, month: string): Promise<MonthlySummary> {
  const m = MONTH.exec(month);
  if (!m) throw validation('month', 'must be a month as YYYY-MM, e.g. "2026-12"');
  const from = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  const to = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
  await issueOwed(db, settings, await movementsOwed(db, { partnerId, children: true, from, to }));
  const documents = await db
    .select()
    .from(financeDocuments)
    .where(and(eq(financeDocuments.partnerId, partnerId), eq(financeDocuments.month, month)))
    .orderBy(asc(financeDocuments.number));
  const totals = new Map<string, MonthlySummary['totals'][number]>();
  for (const d of documents) {
    const t = totals.get(d.currency) ?? { currency: d.currency, invoiced: 0, credited: 0, net: 0, tax: 0 };
    const tax = (d.snapshot as unknown as FinanceSnapshot).tax.amount_minor;
    const sign = d.kind === 'invoice' ? 1 : -1;
    if (d.kind === 'invoice') t.invoiced += d.total;
    else t.credited += d.total;
    t.net += sign * d.total;
    t.tax += sign * tax;
    totals.set(d.currency, t);
  }
  const buyer = await brandingOf(db, partnerId);
  return { partnerId, month, buyer: { name: buyer.name, lines: buyer.lines }, documents, totals: [...totals.values()] };
}

/**
 * The kind names an order's finance documents go by in its document list: the first
 * `invoice`, then `invoice-2`, and so on; what the company sold a sub-agency's parent of the
 * order (a buyer other than the order's partner) `purchase-invoice`, `purchase-credit-note`.
 */
export function financeKinds(docs: FinanceDocumentRow[], orderPartnerId: number): Array<{ kind: string; doc: FinanceDocumentRow }> {
  const seen = new Map<string, number>();
  return docs.map((doc) => {
    const name = `${doc.partnerId === orderPartnerId ? '' : 'purchase-'}${doc.kind === 'invoice' ? 'invoice' : 'credit-note'}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return { kind: n === 1 ? name : `${name}-${n}`, doc };
  });
}

/** The logo an issued document carries, as it was when issued. */
export async function sellerLogoOf(db: DbOrTx, s: FinanceSnapshot): Promise<Buffer | null> {
  if (!s.seller_logo) return null;
  const [logo] = await db.select({ png: documentLogos.png }).from(documentLogos).where(eq(documentLogos.sha256, s.seller_logo));
  return logo ? Buffer.from(logo.png, 'base64') : null;
}

/** What an issued document says. */
export function snapshotOf(doc: FinanceDocumentRow): FinanceSnapshot {
  return doc.snapshot as unknown as FinanceSnapshot;
}
