import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { agencyMarkups, partners, type MarkupService } from '../../db/schema';
import type { AgencyMarkup } from './markup';
import { readCache } from '../read-cache';

/**
 * What prices a sub-agency's sale (docs/decisions/sub-agencies.md): its parent, and the
 * parent's markups for it by service. Read through a cache of a few seconds, as the
 * operators' rules are (RULES_TTL_MS), forgotten at once on a change made through this process.
 */

const AGENCY_MARKUPS_TTL_MS = 5_000;
const cache = readCache({ max: 10_000, ttlMs: AGENCY_MARKUPS_TTL_MS });

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

/** The parent's markup on a sub-agency's sale of `service` (none set: a markup of 0); null for an agency of its own. */
export async function agencyMarkupFor(db: DbOrTx, partnerId: number, service: MarkupService): Promise<AgencyMarkup | null> {
  const child = await childPricingOf(db, partnerId);
  if (!child) return null;
  const m = child.markups[service];
  return m ? { parentId: child.parentId, ...m } : { parentId: child.parentId, percentHundredths: 0, fixedMinor: 0 };
}

export const forgetAgencyMarkups = (db: object) => cache.forget(db);
