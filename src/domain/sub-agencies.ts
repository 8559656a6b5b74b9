import { and, asc, eq } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../db/client';
import { ledgerEntries, partners, wallets } from '../db/schema';
import { agencyCreditLegs, post } from './money/books';
import { DomainError, notFound, validation } from './errors';
import { formatDecimal } from './money/money';
import { createPartner, disablePartner, enablePartner, type NewPartnerCredentials } from './partners';
import { applyMovement, insufficientCredit, lockWallet, type WalletRow } from './money/wallet';

/**
 * Sub-agencies (docs/decisions/sub-agencies.md): an agency's child agencies, one level deep.
 * A child has its own credentials and wallet, in its parent's currency; its credit limit is
 * granted by its parent out of the parent's own available credit.
 */

/** The agency `partnerId` is a sub-agency of; null for an agency of its own. Never changes once created. */
export async function parentIdOf(db: DbOrTx, partnerId: number): Promise<number | null> {
  const [row] = await db.select({ parentId: partners.parentId }).from(partners).where(eq(partners.id, partnerId));
  return row?.parentId ?? null;
}

/** A sub-agency as its parent (or an operator) lists it: its state, wallet and credit. */
export interface SubAgency {
  id: number;
  parentId: number;
  name: string;
  status: 'active' | 'disabled';
  balance: number;
  creditLimit: number;
  currency: string;
  createdAt: Date;
}

const subAgencyColumns = {
  id: partners.id,
  parentId: partners.parentId,
  name: partners.name,
  status: partners.status,
  balance: wallets.balance,
  creditLimit: wallets.creditLimit,
  currency: wallets.currency,
  createdAt: partners.createdAt,
};

/** Creates a sub-agency of `parentId` with no credit: the only moment its secret and agency key are visible. */
export async function createSubAgency(db: Db, parentId: number, name: string): Promise<NewPartnerCredentials> {
  const [parent] = await db
    .select({ id: partners.id, parentId: partners.parentId, currency: wallets.currency })
    .from(partners)
    .innerJoin(wallets, eq(wallets.partnerId, partners.id))
    .where(eq(partners.id, parentId));
  if (!parent) throw notFound(`partner ${parentId}`);
  if (parent.parentId !== null) throw validation('parent', `partner ${parentId} is a sub-agency itself; sub-agencies are one level deep`);
  // Its wallet is in its parent's currency: what the parent grants it and earns on it are the parent's money.
  return createPartner(db, { name: typeof name === 'string' ? name : '', creditLimitMinor: 0, topUpMinor: 0, currency: parent.currency, parentId });
}

export async function listSubAgencies(db: DbOrTx, parentId: number): Promise<SubAgency[]> {
  const rows = await db
    .select(subAgencyColumns)
    .from(partners)
    .innerJoin(wallets, eq(wallets.partnerId, partners.id))
    .where(eq(partners.parentId, parentId))
    .orderBy(asc(partners.id));
  return rows.map((r) => ({ ...r, parentId: r.parentId! }));
}

/** The sub-agency `childId` of `parentId`; not found when it is no child of that parent (another's child looks like no child at all). */
export async function requireSubAgency(db: DbOrTx, parentId: number, childId: number): Promise<SubAgency> {
  const [row] = await db
    .select(subAgencyColumns)
    .from(partners)
    .innerJoin(wallets, eq(wallets.partnerId, partners.id))
    .where(and(eq(partners.id, childId), eq(partners.parentId, parentId)));
  if (!row) throw notFound(`sub-agency ${childId}`);
  return { ...row, parentId: row.parentId! };
}

/** Disables or enables a parent's sub-agency: its credentials stop or start working again. */
export async function setSubAgencyStatus(db: Db, parentId: number, childId: number, status: 'active' | 'disabled'): Promise<SubAgency> {
  await requireSubAgency(db, parentId, childId);
  if (status === 'disabled') await disablePartner(db, childId);
  else await enablePartner(db, childId);
  return requireSubAgency(db, parentId, childId);
}

/** How a parent's setting of a child's credit is keyed: one per key and child, as a payment's key is per order. */
const grantRun = (childId: number, key: string) => ({ workflowId: `sub-agency-credit:${childId}`, runId: key });
const noteOf = (limit: number, currency: string) => `credit limit set to ${formatDecimal(limit, currency)}`;

export interface CreditSet {
  child: SubAgency;
  parentWallet: WalletRow;
  /** The set was made earlier with the same key: nothing was written now. */
  replayed: boolean;
}

/**
 * Sets a sub-agency's credit limit to `newLimit`, out of its parent's wallet, in one
 * transaction: the parent's wallet gives what the limit grows by (a `sub_agency_credit`
 * debit; refused beyond what the parent has available), and gets back what it shrinks by,
 * which may be no more than the child has not used (its balance + limit stays >= 0). The
 * child's side is a `credit_grant` row. Both wallets are locked, parent first (no other
 * path locks two wallets). `key` makes a retry a no-op; the same key with another limit is a conflict.
 */
export async function setSubAgencyCredit(db: Db, parentId: number, childId: number, newLimit: number, key: string): Promise<CreditSet> {
  if (!Number.isSafeInteger(newLimit) || newLimit < 0) throw validation('credit_limit', 'must be a non-negative amount');
  return db.transaction(async (tx) => {
    await requireSubAgency(tx, parentId, childId);
    const parent = await lockWallet(tx, parentId);
    const child = await lockWallet(tx, childId);
    const run = grantRun(childId, key);
    const [done] = await tx
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.workflowId, run.workflowId), eq(ledgerEntries.runId, run.runId), eq(ledgerEntries.step, 'child')));
    if (done) {
      if (done.note !== noteOf(newLimit, child.currency)) {
        throw new DomainError('conflict', `idempotency_key ${key} was used to set another credit limit for sub-agency ${childId}; use a new key`);
      }
      return { child: await requireSubAgency(tx, parentId, childId), parentWallet: parent, replayed: true };
    }
    const delta = newLimit - child.creditLimit;
    if (delta > 0 && parent.balance + parent.creditLimit < delta) throw insufficientCredit(parent.balance + parent.creditLimit, delta, parent.currency);
    if (delta < 0 && child.balance + newLimit < 0) {
      throw validation(
        'credit_limit',
        `sub-agency ${childId} has used ${formatDecimal(-child.balance, child.currency)}; only what it has not used can be taken back`,
      );
    }
    if (delta !== 0) await moveCredit(tx, { parent, child, delta, newLimit, run });
    return { child: await requireSubAgency(tx, parentId, childId), parentWallet: parent, replayed: false };
  });
}

async function moveCredit(
  tx: Tx,
  m: { parent: WalletRow; child: WalletRow; delta: number; newLimit: number; run: { workflowId: string; runId: string } },
): Promise<void> {
  const { parent, child, delta } = m;
  const legs = agencyCreditLegs(parent.partnerId, child.partnerId, parent.currency, delta);
  const note = noteOf(m.newLimit, child.currency);
  await applyMovement(
    tx,
    parent,
    {
      direction: delta > 0 ? 'debit' : 'credit',
      type: 'sub_agency_credit',
      amount: Math.abs(delta),
      ...m.run,
      step: 'parent',
      note: `${delta > 0 ? 'credit given to' : 'credit taken back from'} sub-agency ${child.partnerId}: ${note}`,
    },
    legs.parent,
  );
  const [entry] = await tx
    .insert(ledgerEntries)
    .values({
      partnerId: child.partnerId,
      direction: delta > 0 ? 'credit' : 'debit',
      type: 'credit_grant',
      amount: Math.abs(delta),
      balanceAfter: child.balance,
      ...m.run,
      step: 'child',
      note,
    })
    .returning();
  await tx.update(wallets).set({ creditLimit: m.newLimit, updatedAt: new Date() }).where(eq(wallets.partnerId, child.partnerId));
  await post(tx, { id: entry!.id, orderId: null }, legs.child);
}
