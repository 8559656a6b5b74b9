/** Partners' wallets, their credit alerts, every movement of a wallet (the ledger) and operators' corrections. */
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { actor, createdAt, money, updatedAt } from './columns';
import { orders } from './orders';
import { partnerRef, partners } from './partners';

/**
 * A partner's credit alerts (docs/decisions/credit-alerts.md), set by operators: the shares
 * of credit left (whole percents, 1–99) under which `wallet.low_balance` is emitted, and
 * for a partner without credit the amount those shares are of. No row: 40% and 20%, and
 * none for a prepaid partner. Migration 0022's trigger on `wallets` reads it.
 */
export const walletAlertSettings = pgTable(
  'wallet_alert_settings',
  {
    partnerId: integer('partner_id')
      .primaryKey()
      .references(() => partners.id),
    thresholds: integer('thresholds').array().notNull(),
    prepaidBase: money('prepaid_base_minor'),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('wallet_alert_thresholds_percent', sql`0 < all(${t.thresholds}) and 100 > all(${t.thresholds}) and cardinality(${t.thresholds}) <= 5`),
    check('wallet_alert_prepaid_base_positive', sql`${t.prepaidBase} is null or ${t.prepaidBase} > 0`),
  ],
);

export const wallets = pgTable(
  'wallets',
  {
    partnerId: integer('partner_id')
      .primaryKey()
      .references(() => partners.id),
    balance: money('balance_minor').notNull().default(0),
    creditLimit: money('credit_limit_minor').notNull().default(0),
    currency: text('currency').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // The last line of defence against overspending: no code path may take the
    // balance below -credit_limit, whatever bug sits above the database.
    check('wallet_within_credit', sql`${t.balance} + ${t.creditLimit} >= 0`),
    check('wallet_credit_limit_non_negative', sql`${t.creditLimit} >= 0`),
  ],
);

export const LEDGER_TYPES = ['payment', 'refund', 'topup', 'credit_grant', 'adjustment', 'sub_agency_credit'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    direction: text('direction', { enum: ['debit', 'credit'] }).notNull(),
    // sub_agency_credit: a parent's wallet giving credit to a sub-agency (debit) or taking back what it did not use (credit).
    type: text('type', { enum: LEDGER_TYPES }).notNull(),
    amount: money('amount_minor').notNull(),
    balanceAfter: money('balance_after_minor').notNull(),
    orderId: integer('order_id').references(() => orders.id),
    // Which workflow run and step wrote the row: Temporal retries activities, and the
    // unique (workflow_id, run_id, step) triple turns a retried write into a no-op.
    workflowId: text('workflow_id'),
    runId: text('run_id'),
    step: text('step'),
    reversesEntryId: integer('reverses_entry_id'),
    note: text('note'),
    // Who moved the money: for an order's payment or refund, who asked for it.
    actor: actor('actor'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ledger_workflow_step_uq').on(t.workflowId, t.runId, t.step),
    index('ledger_partner_idx').on(t.partnerId, t.id),
    // A partner's statement reads its movements by date (src/domain/money/statements.ts).
    index('ledger_partner_created_idx').on(t.partnerId, t.createdAt),
    // An order's money movements: its refunds, the operators' view of it.
    index('ledger_order_idx').on(t.orderId),
    check('ledger_amount_positive', sql`${t.amount} > 0`),
  ],
);

/**
 * An operator's manual correction of a partner's wallet (src/domain/money/adjustments.ts): a signed
 * amount and why. Posted at once below the approval threshold; above it only proposed, and
 * posted when a second operator approves. `ledger_entry_id` is the movement that posted it,
 * unique: an adjustment moves the wallet once.
 */
export const walletAdjustments = pgTable(
  'wallet_adjustments',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    amount: money('amount_minor').notNull(),
    currency: text('currency').notNull(),
    reason: text('reason').notNull(),
    status: text('status', { enum: ['proposed', 'posted'] }).notNull(),
    proposedBy: text('proposed_by').notNull(),
    proposedAt: timestamp('proposed_at', { withTimezone: true }).notNull().defaultNow(),
    approvedBy: text('approved_by'),
    postedAt: timestamp('posted_at', { withTimezone: true }),
    ledgerEntryId: integer('ledger_entry_id').references(() => ledgerEntries.id),
  },
  (t) => [
    uniqueIndex('wallet_adjustments_ledger_entry_uq').on(t.ledgerEntryId),
    index('wallet_adjustments_partner_idx').on(t.partnerId, t.id),
    check('wallet_adjustments_amount_not_zero', sql`${t.amount} <> 0`),
    check('wallet_adjustments_posted', sql`(${t.status} = 'posted') = (${t.ledgerEntryId} is not null and ${t.postedAt} is not null)`),
  ],
);
