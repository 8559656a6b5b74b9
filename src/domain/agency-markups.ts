import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { agencyMarkups, MARKUP_SERVICES, partners, type MarkupService } from '../db/schema';
import { validation } from './errors';
import type { AgencyMarkup } from './markup';
import { MAX_PERCENT_HUNDREDTHS, parsePercent, RULES_TTL_MS } from './markup-rules';
import { parseAmount } from './money';
import { readCache } from './read-cache';

/**
 * A parent agency's markups for its sub-agencies (docs/decisions/sub-agencies.md): by service,
 * a percent of the operator's price to the parent and a fixed amount. Read through a cache as
 * the operators' rules are, forgotten at once on a change made through this process.
 */

export type AgencyMarkupRow = typeof agencyMarkups.$inferSelect;

const cache = readCache({ max: 10_000, ttlMs: RULES_TTL_MS });

/** The partner's parent and the parent's markups for it by service; null for an agency that is no one's sub-agency. */
interface ChildPricing {
  parentId: number;
  markups: Partial<Record<MarkupService, { percentHundredths: number; fixedMinor: number }>>;
}

async function childPricingOf(db: DbOrTx, partnerId: number): Promise<ChildPricing | null> {
  return cache.read(db, String(partnerId), async () => {
    const [partner] = await db.select({ parentId: partners.parentId }).from(partners).where(eq(partners.id, partnerId));
    if (!partner || partner.parentId === null) return null;
    const rows = await db.select().from(agencyMarkups).where(eq(agencyMarkups.childId, partnerId));
    return {
      parentId: partner.parentId,
      markups: Object.fromEntries(rows.map((r) => [r.service, { percentHundredths: r.percentHundredths, fixedMinor: r.fixed }])),
    };
  });
}

/** Whom the operator's rules price a sale for: a sub-agency's sales are priced as its parent's. */
export async function operatorPriceFor(db: DbOrTx, partnerId: number): Promise<number> {
  return (await childPricingOf(db, partnerId))?.parentId ?? partnerId;
}

/** The parent's markup on a sub-agency's sale of `service`; null for an agency of its own (or a service without one: margin 0). */
export async function agencyMarkupFor(db: DbOrTx, partnerId: number, service: MarkupService): Promise<AgencyMarkup | null> {
  const child = await childPricingOf(db, partnerId);
  if (!child) return null;
  const m = child.markups[service];
  return m ? { parentId: child.parentId, ...m } : { parentId: child.parentId, percentHundredths: 0, fixedMinor: 0 };
}

export const forgetAgencyMarkups = (db: object) => cache.forget(db);

/** One service's markup as a parent sets it: percent and fixed (a decimal of the wallet's currency). */
export interface AgencyMarkupInput {
  service: string;
  percent?: unknown;
  fixed?: unknown;
}

function percentOf(input: unknown, field: string): number {
  try {
    return parsePercent(input);
  } catch {
    throw validation(field, `must be a non-negative decimal with at most two decimals, at most ${MAX_PERCENT_HUNDREDTHS / 100}`);
  }
}

/** Replaces every markup of the sub-agency with `input` (an empty list removes them all). */
export async function setAgencyMarkups(db: DbOrTx, childId: number, input: AgencyMarkupInput[]): Promise<AgencyMarkupRow[]> {
  const seen = new Set<string>();
  const rows = input.map((m, i) => {
    if (!(MARKUP_SERVICES as readonly string[]).includes(m.service)) throw validation(`markups[${i}].service`, `must be one of ${MARKUP_SERVICES.join(', ')}`);
    if (seen.has(m.service)) throw validation(`markups[${i}].service`, `${m.service} is given twice`);
    seen.add(m.service);
    const percentHundredths = m.percent === undefined || m.percent === null ? 0 : percentOf(m.percent, `markups[${i}].percent`);
    const fixed = m.fixed === undefined || m.fixed === null ? 0 : parseAmount(`markups[${i}].fixed`, m.fixed, { allowZero: true });
    if (percentHundredths === 0 && fixed === 0) throw validation(`markups[${i}]`, 'set percent or fixed above 0');
    return { childId, service: m.service as MarkupService, percentHundredths, fixed };
  });
  const written = await db.transaction(async (tx) => {
    await tx.delete(agencyMarkups).where(eq(agencyMarkups.childId, childId));
    if (rows.length > 0) await tx.insert(agencyMarkups).values(rows);
    return tx.select().from(agencyMarkups).where(eq(agencyMarkups.childId, childId)).orderBy(asc(agencyMarkups.service));
  });
  cache.forget(db);
  return written;
}

export async function listAgencyMarkups(db: DbOrTx, childId: number): Promise<AgencyMarkupRow[]> {
  return db.select().from(agencyMarkups).where(and(eq(agencyMarkups.childId, childId))).orderBy(asc(agencyMarkups.service));
}
