import { count, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { preparedQuery } from '../../db/prepared';
import { ledgerEntries, orders, partners, wallets, type OrderService } from '../../db/schema';
import { creditGrantLegs, post, topUpLegs, type Leg } from './books';
import { DomainError, notFound, validation } from '../errors';
import { formatDecimal } from './money';
import { paginateCounted, type PageSlice } from '../pagination';
import { actorNow } from '../../platform/request-context';

export type WalletRow = typeof wallets.$inferSelect;
export type LedgerRow = typeof ledgerEntries.$inferSelect;

/** Locks the partner's wallet row for the rest of the transaction; every balance change goes through it. */
export async function lockWallet(tx: Tx, partnerId: number): Promise<WalletRow> {
  const [row] = await tx.select().from(wallets).where(eq(wallets.partnerId, partnerId)).for('update');
  if (!row) throw notFound(`wallet of partner ${partnerId}`);
  return row;
}

export interface Movement {
  direction: 'debit' | 'credit';
  type: 'payment' | 'refund' | 'topup' | 'adjustment' | 'sub_agency_credit';
  amount: number;
  orderId?: number;
  workflowId?: string;
  runId?: string;
  step?: string;
  reversesEntryId?: number;
  note?: string;
}

/**
 * Moves money on a wallet locked by `lockWallet`: one ledger row, the balance change and
 * the transfers `legs` that post it to the books (src/domain/money/books.ts), in the caller's
 * transaction, so the balance always equals the sum of the ledger and its account.
 */
export async function applyMovement(tx: Tx, wallet: WalletRow, m: Movement, legs: Leg[]): Promise<LedgerRow> {
  const balanceAfter = m.direction === 'credit' ? wallet.balance + m.amount : wallet.balance - m.amount;
  const [entry] = await tx
    .insert(ledgerEntries)
    .values({ partnerId: wallet.partnerId, balanceAfter, actor: actorNow(), ...m })
    .returning();
  await tx.update(wallets).set({ balance: balanceAfter, updatedAt: new Date() }).where(eq(wallets.partnerId, wallet.partnerId));
  wallet.balance = balanceAfter;
  await post(tx, { id: entry!.id, orderId: entry!.orderId }, legs);
  return entry!;
}

export async function recordTopUp(tx: Tx, partnerId: number, amount: number, note?: string): Promise<LedgerRow> {
  const wallet = await lockWallet(tx, partnerId);
  return applyMovement(tx, wallet, { direction: 'credit', type: 'topup', amount, note }, topUpLegs(partnerId, wallet.currency, amount));
}

/**
 * Sets the credit limit and records the change as a credit_grant row. A grant moves the
 * limit, not the balance, so its balance_after is the unchanged balance; the ledger's
 * grants add up to the credit limit as its payments, refunds and top-ups add up to the balance.
 */
export async function recordCreditGrant(tx: Tx, partnerId: number, newLimit: number, note?: string): Promise<LedgerRow | null> {
  const [partner] = await tx.select({ parentId: partners.parentId }).from(partners).where(eq(partners.id, partnerId));
  if (partner?.parentId) throw validation('amount', `partner ${partnerId} is a sub-agency of partner ${partner.parentId}: its credit is granted by its parent`);
  const wallet = await lockWallet(tx, partnerId);
  const delta = newLimit - wallet.creditLimit;
  if (delta === 0) return null;
  if (wallet.balance + newLimit < 0) {
    throw validation('amount', `the partner owes ${formatDecimal(-wallet.balance, wallet.currency)}; the credit limit cannot be set below that`);
  }
  const [entry] = await tx
    .insert(ledgerEntries)
    .values({
      partnerId,
      actor: actorNow(),
      direction: delta > 0 ? 'credit' : 'debit',
      type: 'credit_grant',
      amount: Math.abs(delta),
      balanceAfter: wallet.balance,
      note,
    })
    .returning();
  await tx.update(wallets).set({ creditLimit: newLimit, updatedAt: new Date() }).where(eq(wallets.partnerId, partnerId));
  await post(tx, { id: entry!.id, orderId: null }, creditGrantLegs(partnerId, wallet.currency, delta));
  return entry!;
}

/** The partner's wallet: balance and credit limit in minor units. */
const walletOf = preparedQuery('wallet_of_partner', (db, name) =>
  db
    .select()
    .from(wallets)
    .where(eq(wallets.partnerId, sql.placeholder('partnerId')))
    .prepare(name),
);

export async function getWallet(db: DbOrTx, partnerId: number): Promise<WalletRow> {
  const [row] = await walletOf(db, { partnerId });
  if (!row) throw notFound(`wallet of partner ${partnerId}`);
  return row;
}

/** Credits the wallet; answers the wallet after it. */
export async function topUp(db: DbOrTx, partnerId: number, amount: number, note?: string): Promise<WalletRow> {
  return db.transaction(async (tx) => {
    await recordTopUp(tx, partnerId, amount, note);
    return lockWallet(tx, partnerId);
  });
}

/** Sets the credit limit; answers the wallet after it. */
export async function setCreditLimit(db: DbOrTx, partnerId: number, newLimit: number, note?: string): Promise<WalletRow> {
  return db.transaction(async (tx) => {
    await recordCreditGrant(tx, partnerId, newLimit, note);
    return lockWallet(tx, partnerId);
  });
}

/**
 * A ledger row as its partner reads it: the fields shown (not which workflow step wrote it),
 * the wallet's currency and the service of the order it concerns (null without one).
 */
export type LedgerEntry = Pick<
  LedgerRow,
  'id' | 'direction' | 'type' | 'amount' | 'balanceAfter' | 'orderId' | 'reversesEntryId' | 'note' | 'createdAt' | 'actor'
> & {
  currency: string;
  orderService: OrderService | null;
};

const ledgerCount = preparedQuery('ledger_count', (db, name) =>
  db
    .select({ n: count() })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.partnerId, sql.placeholder('partnerId')))
    .prepare(name),
);
/**
 * A page of the partner's ledger in one read: each row's shown fields with its order's
 * service, the wallet's currency and the ledger's length. Only what the page shows is read:
 * every field read is parsed and mapped, fifteen rows a page.
 */
const ledgerPage = preparedQuery('ledger_page', (db, name) =>
  db
    .select({
      id: ledgerEntries.id,
      direction: ledgerEntries.direction,
      type: ledgerEntries.type,
      amount: ledgerEntries.amount,
      balanceAfter: ledgerEntries.balanceAfter,
      orderId: ledgerEntries.orderId,
      reversesEntryId: ledgerEntries.reversesEntryId,
      note: ledgerEntries.note,
      createdAt: ledgerEntries.createdAt,
      actor: ledgerEntries.actor,
      currency: wallets.currency,
      orderService: orders.service,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(ledgerEntries)
    .innerJoin(wallets, eq(wallets.partnerId, ledgerEntries.partnerId))
    .leftJoin(orders, eq(orders.id, ledgerEntries.orderId))
    .where(eq(ledgerEntries.partnerId, sql.placeholder('partnerId')))
    .orderBy(desc(ledgerEntries.id))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(name),
);

/**
 * Newest first, page size 15, in one prepared read (partners page through it, and the count
 * then always matches the rows); only an empty page reads the count apart.
 */
export async function listLedger(db: DbOrTx, partnerId: number, page: number): Promise<PageSlice<LedgerEntry>> {
  return paginateCounted(
    page,
    async () => (await ledgerCount(db, { partnerId }))[0]!.n,
    async (offset, limit) => (await ledgerPage(db, { partnerId, limit, offset })).map(({ total, ...item }) => ({ item, total })),
  );
}

/** Thrown inside a debit when the wallet cannot cover the amount; maps to 402. */
export const insufficientCredit = (available: number, amount: number, currency: string) =>
  new DomainError(
    'insufficient_credit',
    `insufficient credit: the amount ${formatDecimal(amount, currency)} exceeds the available ${formatDecimal(available, currency)} ${currency}`,
  );
