/**
 * Partners as operators list them: each with its status and wallet, by id, narrowed by
 * status and by a part of the name, a page at a time. Never a credential.
 */
import { and, asc, eq, ilike, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { partners, wallets } from '../db/schema';
import type { Page } from './audit';

export interface PartnerFilter {
  status?: 'active' | 'disabled';
  /** Matched anywhere in the name, case-insensitively. */
  name?: string;
}

export interface ListedPartner {
  id: number;
  name: string;
  status: 'active' | 'disabled';
  createdAt: Date;
  rateLimitPerMinute: number | null;
  /** The agency it is a sub-agency of; null: one of its own. */
  parentId: number | null;
  balance: number | null;
  creditLimit: number | null;
  currency: string | null;
}

const contains = (part: string) => `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listPartners(db: DbOrTx, filter: PartnerFilter, page: Page): Promise<{ rows: ListedPartner[]; total: number }> {
  const where = and(
    filter.status === undefined ? undefined : eq(partners.status, filter.status),
    filter.name === undefined ? undefined : ilike(partners.name, contains(filter.name)),
  );
  const [{ total }] = (await db
    .select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(partners)
    .where(where)) as [{ total: number }];
  const rows = await db
    .select({
      id: partners.id,
      name: partners.name,
      status: partners.status,
      createdAt: partners.createdAt,
      rateLimitPerMinute: partners.rateLimitPerMinute,
      parentId: partners.parentId,
      balance: wallets.balance,
      creditLimit: wallets.creditLimit,
      currency: wallets.currency,
    })
    .from(partners)
    .leftJoin(wallets, eq(wallets.partnerId, partners.id))
    .where(where)
    .orderBy(asc(partners.id))
    .limit(page.pageSize)
    .offset((page.page - 1) * page.pageSize);
  return { rows, total };
}
