/** What agencies' documents say about them, and the finance documents issued (invoices, credit notes). */
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, money, updatedAt } from './columns';
import { orderRef } from './orders';
import { partnerRef, partners } from './partners';
import { ledgerEntries } from './wallets';

/**
 * What an agency's documents say about it (docs/decisions/documents.md): its legal details
 * and its logo, set by the agency itself. The logo is kept as checked (a PNG) or as made
 * safe (an SVG), with the PNG the PDFs draw. No row: the partner's name alone.
 */
export const agencyProfiles = pgTable(
  'agency_profiles',
  {
    partnerId: integer('partner_id')
      .primaryKey()
      .references(() => partners.id),
    legalName: text('legal_name'),
    address: text('address'),
    taxId: text('tax_id'),
    registrationNumber: text('registration_number'),
    email: text('email'),
    phone: text('phone'),
    logoType: text('logo_type', { enum: ['image/png', 'image/svg+xml'] }),
    // The logo as uploaded (PNG) or as sanitised (SVG), base64; and the PNG the PDFs draw.
    logo: text('logo'),
    logoPng: text('logo_png'),
    logoWidth: integer('logo_width'),
    logoHeight: integer('logo_height'),
    updatedAt: updatedAt(),
  },
  (t) => [check('agency_profiles_logo_whole', sql`(${t.logoType} is null) = (${t.logo} is null) and (${t.logo} is null) = (${t.logoPng} is null)`)],
);

/** The last number each issuing entity gave a finance document: one gapless sequence per issuer. */
export const documentCounters = pgTable(
  'document_counters',
  {
    issuer: text('issuer').primaryKey(),
    lastNumber: integer('last_number').notNull().default(0),
  },
  (t) => [check('document_counters_non_negative', sql`${t.lastNumber} >= 0`)],
);

/**
 * The logos issued finance documents carry, by the SHA-256 of the PNG drawn: an agency that
 * issues its sub-agencies' invoices may change its logo, and those it issued keep theirs.
 */
export const documentLogos = pgTable('document_logos', {
  sha256: text('sha256').primaryKey(),
  // The PNG, base64.
  png: text('png').notNull(),
  createdAt: createdAt(),
});

export const FINANCE_DOCUMENT_KINDS = ['invoice', 'credit_note'] as const;
export type FinanceDocumentKind = (typeof FINANCE_DOCUMENT_KINDS)[number];

/**
 * Invoices (one per payment of an order) and credit notes (one per refund), numbered in
 * their issuer's sequence, and never changed: `snapshot` is everything the document says,
 * fixed when it was issued; its PDF is drawn from it. `partner_id` is the buyer: the
 * order's partner, or a sub-agency's parent for what the company sells it of that order.
 */
export const financeDocuments = pgTable(
  'finance_documents',
  {
    id: serial('id').primaryKey(),
    issuer: text('issuer').notNull(),
    number: integer('number').notNull(),
    kind: text('kind', { enum: FINANCE_DOCUMENT_KINDS }).notNull(),
    partnerId: partnerRef(),
    orderId: orderRef(),
    // The payment an invoice bills, the refund a credit note gives back.
    ledgerEntryId: integer('ledger_entry_id')
      .notNull()
      .references(() => ledgerEntries.id),
    // The month of that movement (YYYY-MM, UTC): the monthly summary it belongs to.
    month: text('month').notNull(),
    total: money('total_minor').notNull(),
    currency: text('currency').notNull(),
    snapshot: jsonb('snapshot').$type<Record<string, unknown>>().notNull(),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('finance_documents_number_uq').on(t.issuer, t.number),
    // One per movement and buyer: a sub-agency's payment is invoiced to it by its parent, and to its parent by the company.
    uniqueIndex('finance_documents_movement_buyer_uq').on(t.ledgerEntryId, t.partnerId),
    index('finance_documents_order_idx').on(t.orderId, t.id),
    index('finance_documents_partner_month_idx').on(t.partnerId, t.month, t.number),
    check('finance_documents_number_positive', sql`${t.number} > 0`),
    check('finance_documents_month', sql`${t.month} ~ '^[0-9]{4}-[0-9]{2}$'`),
  ],
);
