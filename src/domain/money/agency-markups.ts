import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { agencyMarkups, MARKUP_SERVICES, type MarkupService } from '../../db/schema';
import { validation } from '../errors';
import { forgetAgencyMarkups } from './agency-markup-reads';
import { MAX_PERCENT_HUNDREDTHS, parsePercent } from './markup-rules';
import { parseAmount } from './money';

/**
 * A parent agency's markups for its sub-agencies (docs/decisions/sub-agencies.md): by service,
 * a percent of the operator's price to the parent and a fixed amount; read for pricing by
 * agency-markup-reads.ts.
 */

export type AgencyMarkupRow = typeof agencyMarkups.$inferSelect;

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
  forgetAgencyMarkups(db);
  return written;
}

export async function listAgencyMarkups(db: DbOrTx, childId: number): Promise<AgencyMarkupRow[]> {
  return db
    .select()
    .from(agencyMarkups)
    .where(and(eq(agencyMarkups.childId, childId)))
    .orderBy(asc(agencyMarkups.service));
}
