import { and, asc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { documentCounters, financeDocuments, ledgerEntries, orderItems, orders, type FinanceDocumentKind } from '../../db/schema';
import { validation } from '../errors';
import { describeOrders } from '../statements';
import { documentNumber, issuerOf, type DocumentSettings } from './issuer';
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
 * The movements that are owed a document: payments of settled orders that were not reversed
 * (an invoice each), and refunds (a credit note each; a reversal of a payment the supplier
 * refused is no refund: that payment has no invoice).
 */
async function movementsOwed(db: DbOrTx, where: { partnerId: number; orderId?: number; from?: Date; to?: Date }): Promise<Movement[]> {
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
        eq(ledgerEntries.partnerId, where.partnerId),
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

/** What a document will say, but its number: built before the issuer's sequence is locked. */
async function draft(db: DbOrTx, settings: DocumentSettings, m: Movement): Promise<Omit<FinanceSnapshot, 'number' | 'issued_at' | 'refers_to'>> {
  const [order] = await db.select().from(orders).where(eq(orders.id, m.orderId));
  const issuer = await issuerOf(db, settings, m.partnerId);
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
  const tax = taxWithin(m.amount, settings.tax.rateHundredths);
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
    tax: { name: settings.tax.name, rate_hundredths: settings.tax.rateHundredths, amount_minor: tax, net_minor: m.amount - tax },
  };
}

/**
 * Issues the document a movement is owed, once: under the issuer's counter row, locked, so
 * that its number is the next of one gapless sequence and is given in the same transaction
 * that keeps the document (a transaction rolled back takes its number with it). Issued
 * before, it is answered as it was.
 */
async function issue(db: Db, settings: DocumentSettings, m: Movement): Promise<FinanceDocumentRow> {
  const content = await draft(db, settings, m);
  const { prefix } = await issuerOf(db, settings, m.partnerId);
  return db.transaction(async (tx) => {
    await tx.insert(documentCounters).values({ issuer: content.issuer }).onConflictDoNothing();
    const [counter] = await tx.select().from(documentCounters).where(eq(documentCounters.issuer, content.issuer)).for('update');
    const [existing] = await tx.select().from(financeDocuments).where(eq(financeDocuments.ledgerEntryId, m.id));
    if (existing) return existing;
    const refersTo =
      content.kind === 'credit_note'
        ? ((
            await tx
              .select({ snapshot: financeDocuments.snapshot })
              .from(financeDocuments)
              .where(and(eq(financeDocuments.orderId, m.orderId), eq(financeDocuments.kind, 'invoice')))
              .orderBy(asc(financeDocuments.number))
          ).at(-1)?.snapshot.number as string | undefined)
        : undefined;
    const n = counter!.lastNumber + 1;
    const issuedAt = new Date();
    const snapshot: FinanceSnapshot = { ...content, number: documentNumber(prefix, n), issued_at: issuedAt.toISOString(), refers_to: refersTo ?? null };
    const [row] = await tx
      .insert(financeDocuments)
      .values({
        issuer: content.issuer,
        number: n,
        kind: content.kind,
        partnerId: m.partnerId,
        orderId: m.orderId,
        ledgerEntryId: m.id,
        month: monthOf(m.createdAt),
        total: m.amount,
        currency: content.currency,
        snapshot: snapshot as unknown as Record<string, unknown>,
        issuedAt,
      })
      .returning();
    await tx.update(documentCounters).set({ lastNumber: n }).where(eq(documentCounters.issuer, content.issuer));
    return row!;
  });
}

/** Issues, in the ledger's order, what these movements are owed and have not had yet (an order's invoice before its credit note). */
async function issueOwed(db: Db, settings: DocumentSettings, owed: Movement[]): Promise<void> {
  if (owed.length === 0) return;
  const had = new Set(
    (
      await db
        .select({ id: financeDocuments.ledgerEntryId })
        .from(financeDocuments)
        .where(
          inArray(
            financeDocuments.ledgerEntryId,
            owed.map((m) => m.id),
          ),
        )
    ).map((r) => r.id),
  );
  for (const m of owed) if (!had.has(m.id)) await issue(db, settings, m);
}

/** An order's invoices and credit notes, issued first where owed, in their numbers' order. */
export async function orderFinanceDocuments(db: Db, settings: DocumentSettings, partnerId: number, orderId: number): Promise<FinanceDocumentRow[]> {
  await issueOwed(db, settings, await movementsOwed(db, { partnerId, orderId }));
  return db.select().from(financeDocuments).where(eq(financeDocuments.orderId, orderId)).orderBy(asc(financeDocuments.number));
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

/** The partner's invoices and credit notes of a month (by the day of their payment or refund, UTC), issued first where owed. */
export async function monthlySummary(db: Db, settings: DocumentSettings, partnerId: number, month: string): Promise<MonthlySummary> {
  const m = MONTH.exec(month);
  if (!m) throw validation('month', 'must be a month as YYYY-MM, e.g. "2026-12"');
  const from = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  const to = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
  await issueOwed(db, settings, await movementsOwed(db, { partnerId, from, to }));
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

/** The kind names an order's finance documents go by in its document list: the first `invoice`, then `invoice-2`, and so on. */
export function financeKinds(docs: FinanceDocumentRow[]): Array<{ kind: string; doc: FinanceDocumentRow }> {
  const seen: Record<FinanceDocumentKind, number> = { invoice: 0, credit_note: 0 };
  return docs.map((doc) => {
    const n = ++seen[doc.kind];
    const name = doc.kind === 'invoice' ? 'invoice' : 'credit-note';
    return { kind: n === 1 ? name : `${name}-${n}`, doc };
  });
}

/** What an issued document says. */
export function snapshotOf(doc: FinanceDocumentRow): FinanceSnapshot {
  return doc.snapshot as unknown as FinanceSnapshot;
}
