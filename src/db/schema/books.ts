/** The company's double-entry books (src/domain/money/books.ts): accounts and the transfers between them. */
import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, pgTable, serial, text, unique } from 'drizzle-orm/pg-core';
import { createdAt, money } from './columns';
import { orders } from './orders';
import { ledgerEntries } from './wallets';

/** What a transfer in the books records (src/domain/money/books.ts). */
export const TRANSFER_KINDS = [
  'topup',
  'credit_grant',
  'sale_net',
  'sale_margin',
  'fx_conversion',
  'supplier_refund',
  'margin_reversal',
  'fee_kept',
  'exchange_difference',
  'reversal',
  'adjustment',
  'agency_credit',
  'agency_margin',
  'agency_margin_reversal',
] as const;
export type TransferKind = (typeof TRANSFER_KINDS)[number];

/**
 * The company's books (src/domain/money/books.ts): named accounts, each in one currency. An
 * account's code says what it is (its kind is the code's first part), e.g. `wallet:12`,
 * `supplier:duffel:GBP`, `margin:EUR`; the check keeps codes to the kinds the books know.
 */
export const accounts = pgTable(
  'accounts',
  {
    code: text('code').primaryKey(),
    kind: text('kind')
      .notNull()
      .generatedAlwaysAs(sql`split_part(code, ':', 1)`),
    currency: text('currency').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('accounts_code_currency_uq').on(t.code, t.currency),
    check(
      'accounts_code_known',
      sql`${t.code} ~ '^((wallet|credit_line|agency_credit|agency_margin):[0-9]+|supplier:[a-z0-9_-]+:[A-Z]{3}|(credit_extended|funding|margin|fees|fx|fx_differences|adjustments):[A-Z]{3})$'`,
    ),
    check(
      'accounts_currency_code',
      sql`${t.currency} ~ '^[A-Z]{3}$' and (${t.code} ~ '^(wallet|credit_line|agency_credit|agency_margin):' or ${t.code} like '%:' || ${t.currency})`,
    ),
  ],
);

/**
 * A transfer moves one amount from one account (debited) to another (credited) in their
 * shared currency, so it balances by construction: there is no other way to write money
 * into the books. Every transfer belongs to the wallet movement (ledger row) that caused it.
 */
export const transfers = pgTable(
  'transfers',
  {
    id: serial('id').primaryKey(),
    ledgerEntryId: integer('ledger_entry_id')
      .notNull()
      .references(() => ledgerEntries.id),
    orderId: integer('order_id').references(() => orders.id),
    kind: text('kind', { enum: TRANSFER_KINDS }).notNull(),
    debitAccount: text('debit_account').notNull(),
    creditAccount: text('credit_account').notNull(),
    currency: text('currency').notNull(),
    amount: money('amount_minor').notNull(),
    reversesTransferId: integer('reverses_transfer_id'),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({ name: 'transfers_debit_account_fk', columns: [t.debitAccount, t.currency], foreignColumns: [accounts.code, accounts.currency] }),
    foreignKey({ name: 'transfers_credit_account_fk', columns: [t.creditAccount, t.currency], foreignColumns: [accounts.code, accounts.currency] }),
    foreignKey({ name: 'transfers_reverses_fk', columns: [t.reversesTransferId], foreignColumns: [t.id] }),
    check('transfers_amount_positive', sql`${t.amount} > 0`),
    check('transfers_two_accounts', sql`${t.debitAccount} <> ${t.creditAccount}`),
    index('transfers_entry_idx').on(t.ledgerEntryId),
    index('transfers_debit_idx').on(t.debitAccount, t.createdAt),
    index('transfers_credit_idx').on(t.creditAccount, t.createdAt),
    index('transfers_order_idx').on(t.orderId),
  ],
);
