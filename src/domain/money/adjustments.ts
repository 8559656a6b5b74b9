/**
 * Operators' manual corrections of a partner's wallet (docs/decisions/double-entry-books.md):
 * a signed amount with its reason, posted as one `adjustment` movement of the wallet and one
 * transfer between `adjustments:CUR` and `wallet:P`. Up to the approval threshold it is posted
 * when made; above it, it is only proposed, and another operator's approval posts it.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { walletAdjustments } from '../../db/schema';
import { account, leg } from './books';
import { DomainError, notFound, validation } from '../errors';
import { convert, latestRate } from './fx';
import { formatDecimal, parseAmount } from './money';
import { requirePartner } from '../partners';
import { applyMovement, lockWallet } from './wallet';

export type AdjustmentRow = typeof walletAdjustments.$inferSelect;

/** The proposer of an adjustment asked to approve it: the admin API answers 403. */
export class OwnApprovalError extends DomainError {
  constructor(id: number, operator: string) {
    super('conflict', `adjustment ${id} was proposed by ${operator}; another operator must approve it`);
  }
}

/** "-1500.25" or "+20" or 20: a non-zero signed amount in minor units. */
export function parseSignedAmount(field: string, input: unknown): number {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : input;
  if (typeof text !== 'string') throw validation(field, 'must be a signed decimal amount, e.g. "-1500.00" or "+250"');
  const trimmed = text.trim();
  const negative = trimmed.startsWith('-');
  const unsigned = trimmed.replace(/^[+-]/, '');
  if (unsigned === '' || /^[+-]/.test(unsigned)) throw validation(field, 'must be a signed decimal amount, e.g. "-1500.00" or "+250"');
  const minor = parseAmount(field, unsigned);
  return negative ? -minor : minor;
}

/**
 * Posts a proposed adjustment on its wallet, in the caller's transaction: the wallet moves by
 * its amount (a debit may not take it past its credit limit), with its ledger row and its
 * transfer, and the adjustment records them.
 */
async function post(tx: Tx, adjustment: AdjustmentRow, approvedBy: string | null): Promise<AdjustmentRow> {
  const wallet = await lockWallet(tx, adjustment.partnerId);
  if (wallet.currency !== adjustment.currency) {
    throw new DomainError('conflict', `adjustment ${adjustment.id} is in ${adjustment.currency} but the wallet is in ${wallet.currency}`);
  }
  const amount = Math.abs(adjustment.amount);
  const available = wallet.balance + wallet.creditLimit;
  if (adjustment.amount < 0 && available < amount) {
    throw new DomainError(
      'conflict',
      `adjustment ${adjustment.id} of ${formatDecimal(adjustment.amount, wallet.currency)} would take partner ${wallet.partnerId} past its credit limit: ${formatDecimal(available, wallet.currency)} ${wallet.currency} available`,
    );
  }
  const entry = await applyMovement(
    tx,
    wallet,
    {
      direction: adjustment.amount > 0 ? 'credit' : 'debit',
      type: 'adjustment',
      amount,
      note: `adjustment ${adjustment.id}: ${adjustment.reason}`.slice(0, 500),
    },
    leg('adjustment', account.adjustments(wallet.currency), account.wallet(wallet.partnerId), wallet.currency, adjustment.amount),
  );
  const [posted] = await tx
    .update(walletAdjustments)
    .set({ status: 'posted', approvedBy, postedAt: new Date(), ledgerEntryId: entry.id })
    .where(eq(walletAdjustments.id, adjustment.id))
    .returning();
  return posted!;
}

/** The largest adjustment one operator posts alone, in minor units of its currency (the engine's). */
export interface ApprovalThreshold {
  minor: number;
  currency: string;
}

/**
 * Whether `amountMinor` of a wallet's `currency` is more than `threshold`: compared in the
 * threshold's currency through the latest rate either way between the two (an approval bound
 * is no price, so an old rate serves). With no rate either way it counts as more: a second
 * operator looks at what cannot be measured.
 */
async function aboveThreshold(db: DbOrTx, amountMinor: number, currency: string, threshold: ApprovalThreshold): Promise<boolean> {
  const size = Math.abs(amountMinor);
  if (currency === threshold.currency) return size > threshold.minor;
  const toThreshold = await latestRate(db, currency, threshold.currency);
  if (toThreshold) return convert({ amountMinor: size, from: currency, to: threshold.currency, rate: toThreshold }) > threshold.minor;
  const fromThreshold = await latestRate(db, threshold.currency, currency);
  if (fromThreshold) return size > convert({ amountMinor: threshold.minor, from: threshold.currency, to: currency, rate: fromThreshold });
  return true;
}

/**
 * An operator's adjustment of a partner's wallet: posted at once when its size is at most
 * `threshold` (converted into the wallet's currency), else proposed for another operator to approve.
 */
export async function proposeAdjustment(
  tx: Tx,
  input: { partnerId: number; amount: unknown; reason: string; operator: string; threshold: ApprovalThreshold },
): Promise<AdjustmentRow> {
  const amount = parseSignedAmount('amount', input.amount);
  await requirePartner(tx, input.partnerId);
  const wallet = await lockWallet(tx, input.partnerId);
  const [proposed] = await tx
    .insert(walletAdjustments)
    .values({ partnerId: input.partnerId, amount, currency: wallet.currency, reason: input.reason, status: 'proposed', proposedBy: input.operator })
    .returning();
  if (await aboveThreshold(tx, amount, wallet.currency, input.threshold)) return proposed!;
  return post(tx, proposed!, null);
}

/**
 * Another operator approves a proposed adjustment, which posts it. Approving one already
 * posted answers it as it is: the row lock makes concurrent approvals take turns, and only
 * the first finds it proposed. Its proposer cannot approve it.
 */
export async function approveAdjustment(tx: Tx, id: number, operator: string): Promise<{ adjustment: AdjustmentRow; posted: boolean }> {
  const [row] = await tx.select().from(walletAdjustments).where(eq(walletAdjustments.id, id)).for('update');
  if (!row) throw notFound(`adjustment ${id}`);
  if (row.status === 'posted') return { adjustment: row, posted: false };
  if (row.proposedBy === operator) {
    throw new OwnApprovalError(id, operator);
  }
  return { adjustment: await post(tx, row, operator), posted: true };
}

export async function getAdjustment(db: DbOrTx, id: number): Promise<AdjustmentRow> {
  const [row] = await db.select().from(walletAdjustments).where(eq(walletAdjustments.id, id));
  if (!row) throw notFound(`adjustment ${id}`);
  return row;
}

/** Adjustments, newest first, of one partner or of all, in one status or any. */
export async function listAdjustments(
  db: DbOrTx,
  filter: { partnerId?: number; status?: AdjustmentRow['status'] },
  page: { offset: number; limit: number },
): Promise<{ rows: AdjustmentRow[]; total: number }> {
  const where = and(
    filter.partnerId === undefined ? undefined : eq(walletAdjustments.partnerId, filter.partnerId),
    filter.status === undefined ? undefined : eq(walletAdjustments.status, filter.status),
  );
  const [{ total }] = (await db
    .select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(walletAdjustments)
    .where(where)) as [{ total: number }];
  const rows = await db.select().from(walletAdjustments).where(where).orderBy(desc(walletAdjustments.id)).limit(page.limit).offset(page.offset);
  return { rows, total };
}

export const renderAdjustment = (a: AdjustmentRow) => ({
  id: a.id,
  partner_id: a.partnerId,
  amount: formatDecimal(a.amount, a.currency),
  currency: a.currency,
  reason: a.reason,
  status: a.status,
  proposed_by: a.proposedBy,
  proposed_at: a.proposedAt.toISOString(),
  approved_by: a.approvedBy,
  posted_at: a.postedAt?.toISOString() ?? null,
  ledger_entry_id: a.ledgerEntryId,
});
