import { count, desc, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/client';
import { ledgerEntries, orders, wallets } from '../db/schema';
import { DomainError, notFound, validation } from './errors';
import { formatDecimal } from './money';
import { paginate, type Page } from './pagination';

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
  type: 'payment' | 'refund' | 'topup' | 'adjustment';
  amount: number;
  orderId?: number;
  workflowId?: string;
  runId?: string;
  step?: string;
  reversesEntryId?: number;
  note?: string;
}

/**
 * Moves money on a wallet locked by `lockWallet`: one ledger row and the balance change,
 * in the caller's transaction, so the balance always equals the sum of the ledger.
 */
export async function applyMovement(tx: Tx, wallet: WalletRow, m: Movement): Promise<LedgerRow> {
  const balanceAfter = m.direction === 'credit' ? wallet.balance + m.amount : wallet.balance - m.amount;
  const [entry] = await tx
    .insert(ledgerEntries)
    .values({ partnerId: wallet.partnerId, balanceAfter, ...m })
    .returning();
  await tx.update(wallets).set({ balance: balanceAfter, updatedAt: new Date() }).where(eq(wallets.partnerId, wallet.partnerId));
  wallet.balance = balanceAfter;
  return entry!;
}

export async function recordTopUp(tx: Tx, partnerId: number, amount: number, note?: string): Promise<LedgerRow> {
  const wallet = await lockWallet(tx, partnerId);
  return applyMovement(tx, wallet, { direction: 'credit', type: 'topup', amount, note });
}

/**
 * Sets the credit limit and records the change as a credit_grant row. A grant moves the
 * limit, not the balance, so its balance_after is the unchanged balance; the ledger's
 * grants add up to the credit limit as its payments, refunds and top-ups add up to the balance.
 */
export async function recordCreditGrant(tx: Tx, partnerId: number, newLimit: number, note?: string): Promise<LedgerRow | null> {
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
      direction: delta > 0 ? 'credit' : 'debit',
      type: 'credit_grant',
      amount: Math.abs(delta),
      balanceAfter: wallet.balance,
      note,
    })
    .returning();
  await tx.update(wallets).set({ creditLimit: newLimit, updatedAt: new Date() }).where(eq(wallets.partnerId, partnerId));
  return entry!;
}

export function renderWallet(w: WalletRow) {
  return {
    balance: formatDecimal(w.balance, w.currency),
    credit_limit: formatDecimal(w.creditLimit, w.currency),
    available: formatDecimal(w.balance + w.creditLimit, w.currency),
    currency: w.currency,
    updated_at: w.updatedAt.toISOString(),
  };
}
export type WalletView = ReturnType<typeof renderWallet>;

export async function getWallet(db: DbOrTx, partnerId: number): Promise<WalletView> {
  const [row] = await db.select().from(wallets).where(eq(wallets.partnerId, partnerId));
  if (!row) throw notFound(`wallet of partner ${partnerId}`);
  return renderWallet(row);
}

export async function topUp(db: DbOrTx, partnerId: number, amount: number, note?: string) {
  return db.transaction(async (tx) => {
    await recordTopUp(tx, partnerId, amount, note);
    return renderWallet(await lockWallet(tx, partnerId));
  });
}

export async function setCreditLimit(db: DbOrTx, partnerId: number, newLimit: number, note?: string) {
  return db.transaction(async (tx) => {
    await recordCreditGrant(tx, partnerId, newLimit, note);
    return renderWallet(await lockWallet(tx, partnerId));
  });
}

export interface LedgerView {
  id: number;
  direction: 'debit' | 'credit';
  type: LedgerRow['type'];
  amount: string;
  balance_after: string;
  order: number | null;
  product_order: number | null;
  reverses: number | null;
  note: string | null;
  created_at: string;
}

/** Newest first, page size 15. */
export async function listLedger(db: DbOrTx, partnerId: number, page: number, requestUrl: string): Promise<Page<LedgerView>> {
  const [wallet] = await db.select().from(wallets).where(eq(wallets.partnerId, partnerId));
  if (!wallet) throw notFound(`wallet of partner ${partnerId}`);
  const mine = eq(ledgerEntries.partnerId, partnerId);
  return paginate(
    requestUrl,
    page,
    async () => (await db.select({ n: count() }).from(ledgerEntries).where(mine))[0]!.n,
    async (offset, limit) => {
      const rows = await db
        .select({ entry: ledgerEntries, service: orders.service })
        .from(ledgerEntries)
        .leftJoin(orders, eq(orders.id, ledgerEntries.orderId))
        .where(mine)
        .orderBy(desc(ledgerEntries.id))
        .limit(limit)
        .offset(offset);
      return rows.map(({ entry: e, service }) => ({
        id: e.id,
        direction: e.direction,
        type: e.type,
        amount: formatDecimal(e.amount, wallet.currency),
        balance_after: formatDecimal(e.balanceAfter, wallet.currency),
        order: e.orderId !== null && service !== 'product' ? e.orderId : null,
        product_order: e.orderId !== null && service === 'product' ? e.orderId : null,
        reverses: e.reversesEntryId,
        note: e.note,
        created_at: e.createdAt.toISOString(),
      }));
    },
  );
}

/** Thrown inside a debit when the wallet cannot cover the amount; maps to 402. */
export const insufficientCredit = (available: number, amount: number, currency: string) =>
  new DomainError(
    'insufficient_credit',
    `insufficient credit: the amount ${formatDecimal(amount, currency)} exceeds the available ${formatDecimal(available, currency)} ${currency}`,
  );
