import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  foreignKey,
  type AnyPgColumn,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import type { ActorRecord } from '../platform/actor';
import { personalData } from './personal-data';

export type { ActorRecord };

// Money is integer minor units (1/100 of the wallet currency) everywhere in the
// database; `mode: 'number'` is exact up to 2^53 minor units, far beyond any wallet.
const money = (name: string) => bigint(name, { mode: 'number' });
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const partners = pgTable(
  'partners',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    // Requests per minute on each interface (A and B counted apart); null: the engine's
    // default (RATE_LIMIT_PER_MINUTE). Set by operators (admin partner rate-limit).
    rateLimitPerMinute: integer('rate_limit_per_minute'),
    // The agency this one is a sub-agency of (docs/decisions/sub-agencies.md): one level, so a
    // parent has no parent. Null: an agency of its own, as every partner created by an operator.
    parentId: integer('parent_id').references((): AnyPgColumn => partners.id),
    createdAt: createdAt(),
  },
  (t) => [index('partners_parent_idx').on(t.parentId)],
);

/** What a person in an agency is (docs/decisions/rights.md; src/domain/rights.ts says what each may do). */
export const AGENCY_ROLES = ['owner', 'finance', 'agent', 'viewer'] as const;
export type AgencyRole = (typeof AGENCY_ROLES)[number];

/**
 * The people of an agency: a name, an e-mail (unique within the agency), a role, and for an
 * agent whether they see only the bookings they made. A user is deactivated, never deleted:
 * what they did stays attributed to them.
 */
export const agencyUsers = pgTable(
  'agency_users',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    name: text('name').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: AGENCY_ROLES }).notNull(),
    ownBookingsOnly: boolean('own_bookings_only').notNull().default(false),
    status: text('status', { enum: ['active', 'inactive'] })
      .notNull()
      .default('active'),
    // The console's password (argon2id, PHC string: docs/decisions/console-sign-in.md); none until a link is used.
    passwordHash: text('password_hash'),
    passwordSetAt: timestamp('password_set_at', { withTimezone: true }),
    // The optional second factor: a TOTP secret sealed for this user (src/platform/secret-box.ts), in use once confirmed.
    totpSecret: text('totp_secret'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    // The last time step a code was taken for: a code is used once.
    totpLastStep: integer('totp_last_step'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('agency_users_email_uq').on(t.partnerId, sql`lower(${t.email})`), index('agency_users_partner_idx').on(t.partnerId, t.id)],
);

/**
 * A browser signed in to a console: the SHA-256 of the token its cookie holds, whose session
 * it is (an agency's user, or an operator), and when it ends (idle or at the latest).
 * Signing out, deactivating the user or revoking the operator ends it.
 */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: serial('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: integer('user_id').references(() => agencyUsers.id),
    operatorId: integer('operator_id').references((): AnyPgColumn => operators.id),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('console_sessions_user_idx').on(t.userId),
    index('console_sessions_operator_idx').on(t.operatorId),
    check('console_sessions_whose', sql`(${t.userId} is null) <> (${t.operatorId} is null)`),
  ],
);

/**
 * One-time links that let a user set their console password: an invitation for a new user,
 * a reset for one who lost it. Only the SHA-256 of the link's token is kept; the link is
 * shown once to whoever made it.
 */
export const consoleLinks = pgTable(
  'console_links',
  {
    id: serial('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: integer('user_id')
      .notNull()
      .references(() => agencyUsers.id),
    purpose: text('purpose', { enum: ['invitation', 'reset'] }).notNull(),
    createdBy: jsonb('created_by').$type<ActorRecord>().notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('console_links_user_idx').on(t.userId)],
);

/**
 * An agency's named API connections: credentials for Interface A (an API key, stored as is
 * since it is sent as an identifier, and the secret's SHA-256) or for Interface B (the
 * bearer key's SHA-256), each with the rights it was given. A connection may belong to a
 * user: it then acts as that user, within both the user's role and its own rights. Revoked
 * connections keep their row so that what they did stays attributed.
 */
export const apiConnections = pgTable(
  'api_connections',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    name: text('name').notNull(),
    interface: text('interface', { enum: ['a', 'b'] }).notNull(),
    apiKey: text('api_key').unique(),
    secretHash: text('secret_hash'),
    keyHash: text('key_hash').unique(),
    rights: text('rights').array().notNull(),
    userId: integer('user_id').references(() => agencyUsers.id),
    status: text('status', { enum: ['active', 'revoked'] })
      .notNull()
      .default('active'),
    createdAt: createdAt(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('api_connections_partner_idx').on(t.partnerId, t.id),
    index('api_connections_user_idx').on(t.userId),
    check(
      'api_connections_credentials',
      sql`(${t.interface} = 'a' and ${t.apiKey} is not null and ${t.secretHash} is not null and ${t.keyHash} is null) or (${t.interface} = 'b' and ${t.keyHash} is not null and ${t.apiKey} is null and ${t.secretHash} is null)`,
    ),
    check('api_connections_revoked', sql`(${t.status} = 'revoked') = (${t.revokedAt} is not null)`),
  ],
);

/**
 * The rate limiter's counters on PostgreSQL (rate-limiter-flexible's RateLimiterPostgres
 * table, in its own layout): one row per partner and interface, the requests counted in
 * the window that ends at `expire` (epoch ms). Created by a migration, so that every API
 * replica finds it at start-up instead of racing to create it.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: varchar('key', { length: 255 }).primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});

/**
 * Supplier search answers every API process shares (src/domain/search/shared.ts): the JSON
 * of an answer, keyed by the normalised request, with when it was fetched and until when it
 * is fresh, then servable stale; and a claim (`filling_until`) while one process calls the
 * supplier for it. A cache: rows past `stale_until` are swept, and losing them loses nothing.
 */
export const searchAnswers = pgTable(
  'search_answers',
  {
    key: text('key').primaryKey(),
    supplier: text('supplier').notNull(),
    service: text('service').notNull(),
    answer: text('answer'),
    fetchedAt: bigint('fetched_at', { mode: 'number' }),
    freshUntil: bigint('fresh_until', { mode: 'number' }),
    staleUntil: bigint('stale_until', { mode: 'number' }),
    fillingUntil: bigint('filling_until', { mode: 'number' }),
  },
  (t) => [index('search_answers_stale_until').on(t.staleUntil)],
);

/** Each supplier's search budget, a token bucket every API process takes from (src/domain/search/budget.ts). */
export const searchBudgets = pgTable('search_budgets', {
  supplier: text('supplier').primaryKey(),
  tokens: doublePrecision('tokens').notNull(),
  at: timestamp('at', { withTimezone: true, precision: 6 }).notNull(),
});

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
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
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
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The last line of defence against overspending: no code path may take the
    // balance below -credit_limit, whatever bug sits above the database.
    check('wallet_within_credit', sql`${t.balance} + ${t.creditLimit} >= 0`),
    check('wallet_credit_limit_non_negative', sql`${t.creditLimit} >= 0`),
  ],
);

/** What a transfer in the books records (src/domain/books.ts). */
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

export const LEDGER_TYPES = ['payment', 'refund', 'topup', 'credit_grant', 'adjustment', 'sub_agency_credit'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

export const ORDER_SERVICES = ['product', 'hotel', 'flight', 'tour', 'residence', 'visa'] as const;
export type OrderService = (typeof ORDER_SERVICES)[number];
export const ORDER_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled', 'refunded', 'refund_requested'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const PAYMENT_METHODS = ['PARTNER_CREDIT', 'GATEWAY'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** What a supplier charges (minor units of its currency) and the exchange rate a price was converted with: orders and the bookings they come from. */
const supplierPrice = () => ({
  supplierAmount: bigint('supplier_amount_minor', { mode: 'number' }),
  supplierCurrency: text('supplier_currency'),
  fxRateAmount: bigint('fx_rate_amount', { mode: 'number' }),
  fxRateScale: integer('fx_rate_scale'),
  fxRateId: integer('fx_rate_id').references(() => exchangeRates.id),
});

export const orders = pgTable(
  'orders',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    // 'product' orders are Interface A's product orders; every other service is a travel order.
    service: text('service', { enum: ORDER_SERVICES }).notNull(),
    status: text('status', { enum: ORDER_STATUSES }).notNull().default('pending'),
    totalPrice: money('total_price_minor').notNull(),
    currency: text('currency').notNull(),
    paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }).notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    supplierRef: text('supplier_ref'),
    // Interface B's Idempotency-Key for orders it creates directly: one order per key and partner.
    idempotencyKey: text('idempotency_key'),
    // The request the key was first used with (src/domain/agency/idempotency.ts): the key again with another is refused.
    idempotencyRequest: text('idempotency_request'),
    // The pay workflow run that holds (processing) or settled (completed) the order.
    paymentWorkflowId: text('payment_workflow_id'),
    paymentRunId: text('payment_run_id'),
    // What the supplier charges for the order: its amount (minor units of `supplierCurrency`),
    // and, when that is not the wallet's currency, the exchange rate the order's price was
    // converted with (an exact decimal: fxRateAmount / 10^fxRateScale wallet units per unit)
    // and its row. Null on orders of services priced by the engine itself.
    ...supplierPrice(),
    // Who supplies it: the booking's supplier, 'simulator' for the engine's own services.
    supplier: text('supplier').notNull().default('simulator'),
    // The price's two parts in the wallet's currency, never shown to partners: what the
    // supplier is paid (net) and the company's margin, with the pricing rule that set it.
    // total = net + margin. Null on an order sold at the supplier's price (margin 0).
    netPrice: money('net_minor'),
    margin: money('margin_minor'),
    pricingRuleId: integer('pricing_rule_id').references((): AnyPgColumn => pricingRules.id),
    // The share of the margin that is the parent agency's, on a sub-agency's order; the rest is the company's.
    agencyMargin: money('agency_margin_minor').notNull().default(0),
    // Who made the order, and who last asked for something to happen to it (pay, cancel,
    // refund): order events snapshot the row, so each carries who set it moving.
    createdBy: jsonb('created_by').$type<ActorRecord>(),
    actedBy: jsonb('acted_by').$type<ActorRecord>(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    index('orders_partner_service_idx').on(t.partnerId, t.service, t.id),
    uniqueIndex('orders_idempotency_uq').on(t.partnerId, t.idempotencyKey),
    check('orders_total_non_negative', sql`${t.totalPrice} >= 0`),
    check(
      'orders_price_parts',
      sql`(${t.netPrice} is null and ${t.margin} is null) or (${t.netPrice} >= 0 and ${t.margin} >= 0 and ${t.netPrice} + ${t.margin} = ${t.totalPrice})`,
    ),
    check('orders_agency_margin_within_margin', sql`${t.agencyMargin} >= 0 and ${t.agencyMargin} <= coalesce(${t.margin}, 0)`),
  ],
);

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
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
    actor: jsonb('actor').$type<ActorRecord>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ledger_workflow_step_uq').on(t.workflowId, t.runId, t.step),
    index('ledger_partner_idx').on(t.partnerId, t.id),
    // A partner's statement reads its movements by date (src/domain/statements.ts).
    index('ledger_partner_created_idx').on(t.partnerId, t.createdAt),
    // An order's money movements: its refunds, the operators' view of it.
    index('ledger_order_idx').on(t.orderId),
    check('ledger_amount_positive', sql`${t.amount} > 0`),
  ],
);

/**
 * The company's books (src/domain/books.ts): named accounts, each in one currency. An
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

/**
 * An operator's manual correction of a partner's wallet (src/domain/adjustments.ts): a signed
 * amount and why. Posted at once below the approval threshold; above it only proposed, and
 * posted when a second operator approves. `ledger_entry_id` is the movement that posted it,
 * unique: an adjustment moves the wallet once.
 */
export const walletAdjustments = pgTable(
  'wallet_adjustments',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
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

export const paymentKeys = pgTable(
  'payment_keys',
  {
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    idempotencyKey: text('idempotency_key').notNull(),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
    createdAt: createdAt(),
    // The key's last failed payment run whose failure has been given as an answer, and when
    // it first was: only a request that arrives after that may run the payment again
    // (src/domain/pay-request.ts). Null while no failure has been answered.
    answeredRunId: text('answered_run_id'),
    answeredAt: timestamp('answered_at', { withTimezone: true, mode: 'date', precision: 3 }),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.idempotencyKey] })],
);

export const productCategories = pgTable('product_categories', {
  id: serial('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
});

export const products = pgTable('products', {
  id: serial('id').primaryKey(),
  sku: text('sku').notNull().unique(),
  name: text('name').notNull(),
  categoryId: integer('category_id')
    .notNull()
    .references(() => productCategories.id),
  description: text('description').notNull(),
  destinations: jsonb('destinations').$type<string[]>().notNull().default([]),
  price: money('price_minor').notNull(),
  delivery: text('delivery', { enum: ['digital', 'physical'] }).notNull(),
  stock: integer('stock').notNull().default(0),
});

export const productVariants = pgTable(
  'product_variants',
  {
    id: serial('id').primaryKey(),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    sku: text('sku').notNull().unique(),
    name: text('name').notNull(),
    price: money('price_minor').notNull(),
    dataGb: integer('data_gb'),
    validityDays: integer('validity_days'),
    // The variant a basket item gets when it names none (the spec makes `variant` optional).
    isDefault: boolean('is_default').notNull().default(false),
  },
  // At most one default per product; the seed gives every product with variants exactly one.
  (t) => [
    uniqueIndex('product_variants_one_default_uq')
      .on(t.productId)
      .where(sql`${t.isDefault}`),
  ],
);

export const baskets = pgTable(
  'baskets',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    // Whose basket it is: the agency's user who fills it, or none for a connection acting as no user.
    userId: integer('user_id').references(() => agencyUsers.id),
    status: text('status', { enum: ['open', 'checked_out'] })
      .notNull()
      .default('open'),
    createdAt: createdAt(),
  },
  // One current basket per partner and user.
  (t) => [
    uniqueIndex('baskets_one_open_uq')
      .on(t.partnerId, sql`coalesce(${t.userId}, 0)`)
      .where(sql`${t.status} = 'open'`),
  ],
);

export const basketItems = pgTable(
  'basket_items',
  {
    id: serial('id').primaryKey(),
    basketId: integer('basket_id')
      .notNull()
      .references(() => baskets.id),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    variantId: integer('variant_id').references(() => productVariants.id),
    quantity: integer('quantity').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('basket_items_basket_idx').on(t.basketId)],
);

export const orderItems = pgTable(
  'order_items',
  {
    id: serial('id').primaryKey(),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id),
    variantId: integer('variant_id').references(() => productVariants.id),
    // Snapshot at checkout: what the supplier is asked to deliver, whatever the catalogue becomes.
    sku: text('sku').notNull(),
    name: text('name').notNull(),
    quantity: integer('quantity').notNull(),
    unitPrice: money('unit_price_minor').notNull(),
    lineTotal: money('line_total_minor').notNull(),
  },
  // An order is read with its lines (a payment's debit, every order view): by order, never by scan.
  (t) => [index('order_items_order_idx').on(t.orderId, t.id)],
);

export const HOTEL_BOOKING_STATUSES = ['placing', 'prebooked', 'held', 'confirmed', 'expired', 'released', 'cancelled', 'failed'] as const;
export type HotelBookingStatus = (typeof HOTEL_BOOKING_STATUSES)[number];

/**
 * A hotel booking as the partner builds it: a supplier hold (prebooked without guest
 * names, held with them), then a travel order, then a confirmed reservation. The hotel,
 * room, dates and price are the supplier's answer when the hold was placed.
 */
export const hotelBookings = pgTable(
  'hotel_bookings',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    // Who placed the hold (the order made from it records the same): what an agent who sees only their own bookings may act on.
    createdBy: jsonb('created_by').$type<ActorRecord>(),
    status: text('status', { enum: HOTEL_BOOKING_STATUSES }).notNull().default('placing'),
    // Which supplier holds it (FLIGHT_SUPPLIER / HOTEL_SUPPLIER when it was made).
    supplier: text('supplier').notNull().default('simulator'),
    // What the supplier charges, and the rate it was priced with (see orders).
    ...supplierPrice(),
    rateKey: text('rate_key').notNull(),
    supplierHoldId: text('supplier_hold_id'),
    hotelId: integer('hotel_id'),
    hotelName: text('hotel_name'),
    cityId: integer('city_id'),
    roomName: text('room_name'),
    board: text('board'),
    refundable: boolean('refundable'),
    checkIn: date('check_in'),
    checkOut: date('check_out'),
    rooms: jsonb('rooms').$type<Array<{ adults: number; children_ages: number[] }>>(),
    guests: personalData<unknown[][]>('hotel_bookings', 'guests'),
    contact: personalData<{ phone_number: string; email: string }>('hotel_bookings', 'contact'),
    totalPrice: money('total_price_minor'),
    // The price's two parts and the pricing rule, as the order made from the booking records them.
    netPrice: money('net_minor'),
    margin: money('margin_minor'),
    pricingRuleId: integer('pricing_rule_id').references((): AnyPgColumn => pricingRules.id),
    agencyMargin: money('agency_margin_minor').notNull().default(0),
    currency: text('currency').notNull(),
    cancellationPolicy: jsonb('cancellation_policy').$type<Array<{ from: string; penalty_minor: number }>>(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    orderId: integer('order_id').references(() => orders.id),
    confirmationNumber: text('confirmation_number'),
    failure: text('failure'),
    // Interface B's own fields of a booking made there (room_id, guest_name, special_requests, idempotency key).
    agency: personalData<{ room_id: string; guest_name: string; guest_email: string; special_requests: string | null }>('hotel_bookings', 'agency'),
    // Interface B's Idempotency-Key: one booking per key and partner, whatever races.
    idempotencyKey: text('idempotency_key'),
    // The request the key was first used with (src/domain/agency/idempotency.ts): the key again with another is refused.
    idempotencyRequest: text('idempotency_request'),
    // When its travellers' personal data was erased (src/domain/privacy.ts): after the trip, or on request.
    personalDataErasedAt: timestamp('personal_data_erased_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('hotel_bookings_order_uq').on(t.orderId),
    index('hotel_bookings_partner_idx').on(t.partnerId),
    uniqueIndex('hotel_bookings_idempotency_uq').on(t.partnerId, t.idempotencyKey),
    // A hold's release and a cancellation find the booking by what the supplier named it.
    index('hotel_bookings_supplier_hold_idx').on(t.supplierHoldId),
    index('hotel_bookings_confirmation_idx').on(t.confirmationNumber),
  ],
);

/** A cancellation quote: the penalty shown by cancel_display, honoured by cancel until it expires. */
export const cancelQuotes = pgTable('cancel_quotes', {
  id: text('id').primaryKey(),
  partnerId: integer('partner_id')
    .notNull()
    .references(() => partners.id),
  orderId: integer('order_id')
    .notNull()
    .references(() => orders.id),
  penalty: money('penalty_minor').notNull(),
  refund: money('refund_minor').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt(),
});

/**
 * A change a partner makes to a ticketed flight (docs/decisions/flight-changes.md): other
 * flights (`change`: the airline's change offer it confirmed) or bags added (`services`),
 * priced in the wallet's currency (signed: negative is money back), and where its workflow
 * stands. One per partner and idempotency key.
 */
export const FLIGHT_CHANGE_KINDS = ['change', 'services'] as const;
export const FLIGHT_CHANGE_STATUSES = ['confirming', 'confirmed', 'failed'] as const;
export const flightChanges = pgTable(
  'flight_changes',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
    idempotencyKey: text('idempotency_key').notNull(),
    kind: text('kind', { enum: FLIGHT_CHANGE_KINDS }).notNull().default('change'),
    status: text('status', { enum: FLIGHT_CHANGE_STATUSES }).notNull().default('confirming'),
    supplier: text('supplier').notNull(),
    // A change's: the airline's change offer, and the change made from it once it is.
    changeOfferId: text('change_offer_id'),
    supplierChangeId: text('supplier_change_id'),
    // What the airline charges (its change total: fare difference and penalty; negative, it refunds), in its currency.
    supplierAmount: bigint('supplier_amount_minor', { mode: 'number' }).notNull(),
    supplierCurrency: text('supplier_currency').notNull(),
    // The same in the wallet's currency, its penalty part, and the engine's fee: total = net + fee.
    netMinor: bigint('net_minor', { mode: 'number' }).notNull(),
    penaltyMinor: money('penalty_minor').notNull(),
    feeMinor: money('fee_minor').notNull(),
    // The parent agency's share of the fee, on a sub-agency's change.
    agencyFeeMinor: money('agency_fee_minor').notNull().default(0),
    totalMinor: bigint('total_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    pricingRuleId: integer('pricing_rule_id'),
    // The legs removed (indexes) and the legs the airline's offer puts in their place.
    remove: jsonb('remove').$type<number[]>().notNull().default([]),
    add: jsonb('add').$type<unknown[]>().notNull().default([]),
    // The services added, as the partner chose them ({service_id, quantity}), and how many bags the order had before.
    services: jsonb('services').$type<Array<{ service_id: string; quantity: number }>>().notNull().default([]),
    bagsBefore: integer('bags_before'),
    workflowId: text('workflow_id').notNull(),
    failure: text('failure'),
    createdBy: jsonb('created_by').$type<ActorRecord>(),
    createdAt: createdAt(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('flight_changes_key_uq').on(t.partnerId, t.idempotencyKey),
    index('flight_changes_order_idx').on(t.orderId),
    check('flight_changes_total', sql`${t.totalMinor} = ${t.netMinor} + ${t.feeMinor}`),
    check('flight_changes_kind', sql`(${t.kind} = 'change') = (${t.changeOfferId} is not null)`),
  ],
);

export const FLIGHT_BOOKING_STATUSES = ['booking', 'booked', 'ticketed', 'expired', 'cancelled', 'refunded', 'refund_requested', 'failed'] as const;
export type FlightBookingStatus = (typeof FLIGHT_BOOKING_STATUSES)[number];

/**
 * A flight booking: the airline's PNR with its ticket time limit, then tickets once paid.
 * The itinerary, fare and travellers are what the airline answered when it booked.
 */
export const flightBookings = pgTable(
  'flight_bookings',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    status: text('status', { enum: FLIGHT_BOOKING_STATUSES }).notNull().default('booking'),
    // Which supplier holds it (FLIGHT_SUPPLIER / HOTEL_SUPPLIER when it was made).
    supplier: text('supplier').notNull().default('simulator'),
    // What the supplier charges, and the rate it was priced with (see orders).
    ...supplierPrice(),
    fareSourceCode: text('fare_source_code').notNull(),
    pnr: text('pnr'),
    supplierBookingRef: text('supplier_booking_ref'),
    ticketTimeLimit: timestamp('ticket_time_limit', { withTimezone: true }),
    departureAt: timestamp('departure_at', { withTimezone: true }).notNull(),
    cabin: text('cabin'),
    fareFamily: text('fare_family'),
    refundable: boolean('refundable'),
    refundPenalty: money('refund_penalty_minor'),
    legs: jsonb('legs').$type<unknown[]>(),
    travelers: personalData<Array<Record<string, unknown>>>('flight_bookings', 'travelers').notNull(),
    contact: personalData<{ phone_number: string; email: string }>('flight_bookings', 'contact').notNull(),
    tickets: jsonb('tickets').$type<Array<{ traveler_index: number; ticket_number: string }>>(),
    // Seats and bags booked on it, as the airline's order lists them.
    services: jsonb('services').$type<unknown[]>(),
    totalPrice: money('total_price_minor'),
    currency: text('currency').notNull(),
    orderId: integer('order_id').references(() => orders.id),
    refundReason: text('refund_reason'),
    failure: text('failure'),
    // When its travellers' personal data was erased (src/domain/privacy.ts): after the trip, or on request.
    personalDataErasedAt: timestamp('personal_data_erased_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('flight_bookings_order_uq').on(t.orderId),
    index('flight_bookings_partner_idx').on(t.partnerId),
    // A release and a refund find the booking by the airline order's id.
    index('flight_bookings_supplier_ref_idx').on(t.supplierBookingRef),
  ],
);

export const SCHEDULE_CHANGE_STATUSES = ['pending', 'accepted', 'cancelled', 'changed'] as const;
export type ScheduleChangeStatus = (typeof SCHEDULE_CHANGE_STATUSES)[number];

/**
 * An airline's change to an issued flight order (docs/decisions/schedule-changes.md): what it
 * removed and added, until when the partner may decide, and what became of it. One row per
 * order and change, however many times the change is announced or found.
 */
export const scheduleChanges = pgTable(
  'schedule_changes',
  {
    id: serial('id').primaryKey(),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    supplier: text('supplier').notNull(),
    // The airline's (the supplier's) id of the change.
    changeId: text('change_id').notNull(),
    removed: jsonb('removed').$type<unknown[]>().notNull(),
    added: jsonb('added').$type<unknown[]>().notNull(),
    status: text('status', { enum: SCHEDULE_CHANGE_STATUSES }).notNull().default('pending'),
    decideBy: timestamp('decide_by', { withTimezone: true }).notNull(),
    // What the engine does at decide_by when the partner has not decided.
    defaultDecision: text('default_decision', { enum: ['accept', 'cancel'] }).notNull(),
    remindedAt: timestamp('reminded_at', { withTimezone: true }),
    // Who resolved it: the partner, the default at the deadline, or a change the partner asked for.
    resolvedBy: text('resolved_by', { enum: ['partner', 'default', 'change'] }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('schedule_changes_order_change_uq').on(t.orderId, t.changeId), index('schedule_changes_status_idx').on(t.status)],
);

/**
 * The events a supplier sent to our webhook route, by the supplier's event id: an event
 * delivered again is answered and left alone. `handled_at` is set once its work was handed on.
 */
export const supplierEvents = pgTable(
  'supplier_events',
  {
    id: serial('id').primaryKey(),
    supplier: text('supplier').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    handledAt: timestamp('handled_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('supplier_events_supplier_event_uq').on(t.supplier, t.eventId)],
);

// --- Tours ----------------------------------------------------------------------------

export const tours = pgTable('tours', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  title: text('title').notNull(),
  destinationCity: text('destination_city').notNull(),
  destinationCountry: text('destination_country').notNull(),
  category: text('category').notNull(),
  durationDays: integer('duration_days').notNull(),
  description: text('description').notNull(),
  itinerary: jsonb('itinerary').$type<Array<{ day: number; title: string; description: string }>>().notNull(),
  includes: jsonb('includes').$type<string[]>().notNull(),
});

export const tourDepartures = pgTable(
  'tour_departures',
  {
    id: serial('id').primaryKey(),
    tourId: integer('tour_id')
      .notNull()
      .references(() => tours.id),
    code: text('code').notNull().unique(),
    startDate: date('start_date').notNull(),
    capacity: integer('capacity').notNull(),
    // Seats held by prebooks and sold: a conditional UPDATE keeps it within capacity under concurrency.
    seatsTaken: integer('seats_taken').notNull().default(0),
    priceAdult: money('price_adult_minor').notNull(),
    priceChild: money('price_child_minor').notNull(),
    priceInfant: money('price_infant_minor').notNull(),
  },
  (t) => [check('tour_seats_within_capacity', sql`${t.seatsTaken} >= 0 and ${t.seatsTaken} <= ${t.capacity}`)],
);

export const TOUR_PREBOOK_STATUSES = ['held', 'confirmed', 'expired', 'cancelled'] as const;

export const tourPrebooks = pgTable(
  'tour_prebooks',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    // Who placed the hold (the order made from it records the same): what an agent who sees only their own bookings may act on.
    createdBy: jsonb('created_by').$type<ActorRecord>(),
    // The workflow that placed it: a retried activity finds its row instead of holding seats twice.
    holdRef: text('hold_ref').notNull().unique(),
    departureId: integer('departure_id')
      .notNull()
      .references(() => tourDepartures.id),
    passengers: personalData<Array<Record<string, unknown>>>('tour_prebooks', 'passengers').notNull(),
    seats: integer('seats').notNull(),
    totalPrice: money('total_price_minor').notNull(),
    // The price's two parts and the pricing rule, as the order made from the prebook records them.
    netPrice: money('net_minor'),
    margin: money('margin_minor'),
    pricingRuleId: integer('pricing_rule_id').references((): AnyPgColumn => pricingRules.id),
    agencyMargin: money('agency_margin_minor').notNull().default(0),
    currency: text('currency').notNull(),
    status: text('status', { enum: TOUR_PREBOOK_STATUSES }).notNull().default('held'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    orderId: integer('order_id').references(() => orders.id),
    confirmationNumber: text('confirmation_number'),
    // When its travellers' personal data was erased (src/domain/privacy.ts): after the trip, or on request.
    personalDataErasedAt: timestamp('personal_data_erased_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tour_prebooks_order_uq').on(t.orderId)],
);

// --- Residence ------------------------------------------------------------------------

export const properties = pgTable('properties', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  name: text('name').notNull(),
  type: text('type').notNull(),
  city: text('city').notNull(),
  region: text('region').notNull(),
  country: text('country').notNull(),
  address: text('address').notNull(),
  description: text('description').notNull(),
  bedrooms: integer('bedrooms').notNull(),
  maxGuests: integer('max_guests').notNull(),
  nightlyPrice: money('nightly_price_minor').notNull(),
  weekendPrice: money('weekend_price_minor').notNull(),
  cleaningFee: money('cleaning_fee_minor').notNull(),
  minNights: integer('min_nights').notNull(),
  amenities: jsonb('amenities').$type<string[]>().notNull(),
  houseRules: jsonb('house_rules').$type<string[]>().notNull(),
  cancellationPolicy: text('cancellation_policy', { enum: ['flexible', 'moderate', 'strict'] }).notNull(),
});

/** Nights the host keeps for itself: [start, end). */
export const propertyBlocks = pgTable('property_blocks', {
  id: serial('id').primaryKey(),
  propertyId: integer('property_id')
    .notNull()
    .references(() => properties.id),
  startDate: date('start_date').notNull(),
  endDate: date('end_date').notNull(),
});

export const RESERVATION_STATUSES = ['held', 'booked', 'confirmed', 'cancel_requested', 'cancelled', 'expired', 'completed'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];
/** Statuses that occupy the property's nights. */
export const ACTIVE_RESERVATION_STATUSES: ReservationStatus[] = ['held', 'booked', 'confirmed', 'cancel_requested'];

export const reservations = pgTable(
  'reservations',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    // Who placed the hold (the order made from it records the same): what an agent who sees only their own bookings may act on.
    createdBy: jsonb('created_by').$type<ActorRecord>(),
    holdRef: text('hold_ref').notNull().unique(),
    propertyId: integer('property_id')
      .notNull()
      .references(() => properties.id),
    checkIn: date('check_in').notNull(),
    checkOut: date('check_out').notNull(),
    guests: integer('guests').notNull(),
    leadGuest: personalData<Record<string, unknown>>('reservations', 'lead_guest'),
    totalPrice: money('total_price_minor').notNull(),
    // The price's two parts and the pricing rule, as the order made from the reservation records them.
    netPrice: money('net_minor'),
    margin: money('margin_minor'),
    pricingRuleId: integer('pricing_rule_id').references((): AnyPgColumn => pricingRules.id),
    agencyMargin: money('agency_margin_minor').notNull().default(0),
    currency: text('currency').notNull(),
    status: text('status', { enum: RESERVATION_STATUSES }).notNull().default('held'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    orderId: integer('order_id').references(() => orders.id),
    confirmationNumber: text('confirmation_number'),
    cancelRefund: money('cancel_refund_minor'),
    // When its travellers' personal data was erased (src/domain/privacy.ts): after the trip, or on request.
    personalDataErasedAt: timestamp('personal_data_erased_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('reservations_order_uq').on(t.orderId), index('reservations_property_idx').on(t.propertyId, t.checkIn)],
);

// --- Visa -----------------------------------------------------------------------------

export const visaProducts = pgTable('visa_products', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  country: text('country').notNull(),
  countryName: text('country_name').notNull(),
  visaType: text('visa_type').notNull(),
  title: text('title').notNull(),
  processingDays: integer('processing_days').notNull(),
  validityDays: integer('validity_days').notNull(),
  maxStayDays: integer('max_stay_days').notNull(),
  entries: text('entries').notNull(),
  serviceFee: money('service_fee_minor').notNull(),
  governmentFee: money('government_fee_minor').notNull(),
  refundOnRejectionPercent: integer('refund_on_rejection_percent').notNull(),
  requiredDocuments: jsonb('required_documents').$type<string[]>().notNull(),
  description: text('description').notNull(),
});

export const VISA_APPLICATION_STATUSES = ['draft', 'submitted', 'under_review', 'approved', 'rejected'] as const;

export const visaApplications = pgTable(
  'visa_applications',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    visaProductId: integer('visa_product_id')
      .notNull()
      .references(() => visaProducts.id),
    orderId: integer('order_id').references(() => orders.id),
    applicant: personalData<Record<string, unknown>>('visa_applications', 'applicant').notNull(),
    travelFrom: date('travel_from').notNull(),
    travelTo: date('travel_to').notNull(),
    documents: personalData<Array<{ type: string; reference: string }>>('visa_applications', 'documents').notNull(),
    status: text('status', { enum: VISA_APPLICATION_STATUSES }).notNull().default('draft'),
    supplierReference: text('supplier_reference'),
    decisionReason: text('decision_reason'),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    // Sandbox only: the embassy's answer and how long it takes, fixed when the partner applies.
    sandboxDecision: jsonb('sandbox_decision').$type<{ approve: boolean; afterMs: number }>(),
    // When its travellers' personal data was erased (src/domain/privacy.ts): after the trip, or on request.
    personalDataErasedAt: timestamp('personal_data_erased_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('visa_applications_order_uq').on(t.orderId)],
);

/**
 * Exchange rates kept by operators (docs/operations.md, "Exchange rates"). Append-only: a
 * currency's current rate is its latest row. The rate is an exact decimal, `rateAmount /
 * 10^rateScale` units of `walletCurrency` per 1 unit of `currency` (52000 = 52,000 IRT per GBP).
 */
export const exchangeRates = pgTable(
  'exchange_rates',
  {
    id: serial('id').primaryKey(),
    currency: text('currency').notNull(),
    walletCurrency: text('wallet_currency').notNull(),
    rateAmount: bigint('rate_amount', { mode: 'number' }).notNull(),
    rateScale: integer('rate_scale').notNull(),
    setBy: text('set_by').notNull(),
    setAt: timestamp('set_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('exchange_rates_pair_idx').on(t.currency, t.walletCurrency, t.id),
    check('exchange_rates_rate_positive', sql`${t.rateAmount} > 0`),
    check('exchange_rates_scale_range', sql`${t.rateScale} BETWEEN 0 AND 12`),
  ],
);

/**
 * A supplier's cities and hotels under the integer ids the partner's interfaces use
 * (src/suppliers/place-ids.ts): one row per place a supplier named, kept for good, with what
 * its adapter needs to know of it later.
 */
export const supplierPlaces = pgTable(
  'supplier_places',
  {
    id: serial('id').primaryKey(),
    supplier: text('supplier').notNull(),
    kind: text('kind', { enum: ['city', 'hotel'] }).notNull(),
    externalId: text('external_id').notNull(),
    info: jsonb('info').notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('supplier_places_external_idx').on(t.supplier, t.kind, t.externalId), check('supplier_places_kind', sql`${t.kind} IN ('city', 'hotel')`)],
);

/** `flight_change`: the fee on a change a partner makes to a ticketed flight (its margin on the change's net). */
export const MARKUP_SERVICES = ['hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change'] as const;
export type MarkupService = (typeof MARKUP_SERVICES)[number];

/**
 * A parent agency's markup for one of its sub-agencies, by service (docs/decisions/sub-agencies.md):
 * percent of the operator's price to the parent (hundredths of a percent) + fixed (minor units
 * of the wallet's currency). One row per sub-agency and service; none: no markup.
 */
export const agencyMarkups = pgTable(
  'agency_markups',
  {
    childId: integer('child_id')
      .notNull()
      .references(() => partners.id),
    service: text('service', { enum: MARKUP_SERVICES }).notNull(),
    percentHundredths: integer('percent_hundredths').notNull().default(0),
    fixed: money('fixed_minor').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.childId, t.service] }),
    check('agency_markups_service', sql`${t.service} IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change')`),
    check('agency_markups_non_negative', sql`${t.percentHundredths} >= 0 and ${t.fixed} >= 0`),
    check('agency_markups_sets_something', sql`${t.percentHundredths} > 0 or ${t.fixed} > 0`),
  ],
);

/**
 * Operators' markups (docs/decisions/pricing-rules.md): for a service, optionally narrowed to
 * a partner and to a supplier, on the days from `valid_from` to `valid_to` (either open).
 * Margin = percent of net (hundredths of a percent) + fixed, at least the minimum, in minor
 * units of `currency` (the wallet's). Removed rules stay (orders name the rule that priced them).
 */
export const pricingRules = pgTable(
  'pricing_rules',
  {
    id: serial('id').primaryKey(),
    service: text('service', { enum: MARKUP_SERVICES }).notNull(),
    partnerId: integer('partner_id').references(() => partners.id),
    supplier: text('supplier'),
    percentHundredths: integer('percent_hundredths').notNull().default(0),
    fixed: money('fixed_minor').notNull().default(0),
    minMargin: money('min_margin_minor').notNull().default(0),
    currency: text('currency').notNull(),
    validFrom: date('valid_from'),
    validTo: date('valid_to'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    removedAt: timestamp('removed_at', { withTimezone: true }),
    removedBy: text('removed_by'),
  },
  (t) => [
    index('pricing_rules_service_idx').on(t.service, t.id),
    check('pricing_rules_service', sql`${t.service} IN ('hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change')`),
    check('pricing_rules_non_negative', sql`${t.percentHundredths} >= 0 and ${t.fixed} >= 0 and ${t.minMargin} >= 0`),
    check('pricing_rules_sets_something', sql`${t.percentHundredths} > 0 or ${t.fixed} > 0 or ${t.minMargin} > 0`),
    check('pricing_rules_dates', sql`${t.validFrom} is null or ${t.validTo} is null or ${t.validFrom} <= ${t.validTo}`),
  ],
);

/** Every operator action through the admin API: who, when, what, why. Append-only. */
export const operatorActions = pgTable(
  'operator_actions',
  {
    id: serial('id').primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    operator: text('operator').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    reason: text('reason'),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [
    index('operator_actions_target_idx').on(t.target, t.id),
    index('operator_actions_operator_idx').on(t.operator, t.id),
    index('operator_actions_at_idx').on(t.at),
  ],
);

/**
 * The people (and scripts) who use the admin API, each with a token of their own. Only the
 * token's SHA-256 is kept: a token is 32 random bytes, so a digest cannot be searched back.
 * A revoked operator stays listed (the audit names it); its token no longer authenticates.
 */
export const operators = pgTable(
  'operators',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('operators_name_idx').on(t.name), uniqueIndex('operators_token_hash_idx').on(t.tokenHash)],
);

/**
 * Admin actions that move money, by the Idempotency-Key their caller sent: the request's
 * fingerprint and the answer given, written in the action's own transaction, so the same
 * key answers the first answer again and never acts twice.
 */
export const adminIdempotencyKeys = pgTable('admin_idempotency_keys', {
  key: text('key').primaryKey(),
  operator: text('operator').notNull(),
  method: text('method').notNull(),
  path: text('path').notNull(),
  requestHash: text('request_hash').notNull(),
  status: integer('status').notNull(),
  response: jsonb('response').$type<unknown>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Worker presence: each `npm run worker` process stamps its row every WORKER_HEARTBEAT_MS
 * while its worker runs and reaches Temporal, so an API replica can tell within seconds
 * whether any worker serves its task queue (Temporal's poller lists linger for minutes).
 * Times are the database's clock, so API and worker hosts need not agree on theirs.
 */
export const workerHeartbeats = pgTable(
  'worker_heartbeats',
  {
    identity: text('identity').primaryKey(),
    taskQueue: text('task_queue').notNull(),
    intervalMs: integer('interval_ms').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('worker_heartbeats_queue_idx').on(t.taskQueue, t.lastSeen)],
);

/**
 * Events for partners (an outbox): one row per state change a partner hears about, written
 * in the state change's own transaction by the triggers of migration 0012 (order moves) or
 * by the code that makes the change (src/domain/events.ts). `data` is a snapshot of the
 * subject at that moment: the order's row for order events, rendered as Interface A's
 * TravelOrder when read or delivered; the endpoint's public view for endpoint events.
 */
export const events = pgTable(
  'events',
  {
    id: serial('id').primaryKey(),
    type: text('type').notNull(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    orderId: integer('order_id').references(() => orders.id),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    // The event's public id and the feeds' cursor: numbered as the writing transaction
    // commits (migration 0014), so a partner's events are numbered in commit order and a
    // reader that has seen N never later finds a committed event below N. Null only
    // inside the writing transaction.
    position: bigint('position', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('events_position_uq').on(t.position),
    index('events_partner_type_position_idx').on(t.partnerId, t.type, t.position),
    index('events_partner_position_idx').on(t.partnerId, t.position),
    // An order's events, for operators (admin order inspect).
    index('events_order_position_idx').on(t.orderId, t.position),
    // Retention: the oldest first (src/domain/retention.ts).
    index('events_created_idx').on(t.createdAt),
  ],
);

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled', 'deleted'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/**
 * Where a partner wants its events pushed. The signing secret is kept sealed
 * (src/platform/secret-box.ts: the engine reads it back to sign with; it is shown to the
 * partner once). An empty `event_types` means every type.
 * Deleted endpoints keep their row, so their delivery history stays readable.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial('id').primaryKey(),
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    eventTypes: jsonb('event_types').$type<string[]>().notNull().default([]),
    // The interface it was registered through: deliveries carry events in that interface's style.
    style: text('style', { enum: ['a', 'b'] })
      .notNull()
      .default('a'),
    status: text('status', { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull().default('enabled'),
    // What its partner is told (the rule, the status code); the detail (the answer, the address found) is for operators only.
    disabledReason: text('disabled_reason'),
    disabledDetail: text('disabled_detail'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_partner_idx').on(t.partnerId, t.id)],
);

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

/**
 * One event owed to one endpoint, written with the event (migration 0012's fan-out trigger).
 * `relayed` says the endpoint's delivery workflow has been woken for it (worker/webhook-relay.ts);
 * a redelivery sets the row pending and unrelayed again.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: serial('id').primaryKey(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: integer('event_id')
      .notNull()
      .references(() => events.id),
    state: text('state', { enum: WEBHOOK_DELIVERY_STATES }).notNull().default('pending'),
    relayed: boolean('relayed').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_uq').on(t.endpointId, t.eventId),
    // An event's deliveries (retention, redelivery).
    index('webhook_deliveries_event_idx').on(t.eventId),
    index('webhook_deliveries_pending_idx')
      .on(t.endpointId, t.eventId)
      .where(sql`${t.state} = 'pending'`),
    index('webhook_deliveries_unrelayed_idx')
      .on(t.endpointId)
      .where(sql`${t.state} = 'pending' AND NOT ${t.relayed}`),
  ],
);

export const WEBHOOK_ATTEMPT_FAILURES = ['address_not_allowed', 'timeout', 'unreachable'] as const;
export type WebhookAttemptFailure = (typeof WEBHOOK_ATTEMPT_FAILURES)[number];

/** Every HTTP attempt at a delivery: what the receiver answered and how fast. Append-only. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: serial('id').primaryKey(),
    deliveryId: integer('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    responseExcerpt: text('response_excerpt'),
    error: text('error'),
    // Why an attempt without an answer failed, in words its partner may read (error has the detail).
    failure: text('failure', { enum: WEBHOOK_ATTEMPT_FAILURES }),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id)],
);

// --- Documents ------------------------------------------------------------------------

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
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
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
    partnerId: integer('partner_id')
      .notNull()
      .references(() => partners.id),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
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
