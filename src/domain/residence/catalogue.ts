import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { properties } from '../../db/schema';
import { notFound } from '../errors';
import { isStorableId } from '../ids';
import { paginate, type PageSlice } from '../pagination';
import { freeBetween, takenRanges, type PropertyRow } from './availability';

export async function listProperties(
  db: DbOrTx,
  q: { city?: string; country?: string; type?: string; guests?: number; check_in?: string; check_out?: string; page: number },
): Promise<PageSlice<PropertyRow>> {
  const filters: SQL[] = [];
  if (q.city) filters.push(sql`lower(${properties.city}) = lower(${q.city})`);
  if (q.country) filters.push(eq(properties.country, q.country.toUpperCase()));
  if (q.type) filters.push(eq(properties.type, q.type));
  if (q.guests !== undefined) filters.push(sql`${properties.maxGuests} >= ${q.guests}`);
  // Availability for dates is a filter too, in the same query, so it is applied before paging.
  if (q.check_in && q.check_out) filters.push(freeBetween(db, q.check_in, q.check_out));
  const where = filters.length ? and(...filters) : undefined;
  return paginate(
    q.page,
    async () => (await db.select({ n: count() }).from(properties).where(where))[0]!.n,
    async (offset, limit) => db.select().from(properties).where(where).orderBy(asc(properties.id)).limit(limit).offset(offset),
  );
}

/** Property detail: description, amenities, house rules, policy, and the dates already taken in the next months. */
export async function propertyDetail(db: DbOrTx, id: number, now: Date): Promise<{ property: PropertyRow; unavailable: { from: string; to: string }[] }> {
  const [p] = isStorableId(id) ? await db.select().from(properties).where(eq(properties.id, id)) : [];
  if (!p) throw notFound(`property ${id}`);
  const from = now.toISOString().slice(0, 10);
  const to = new Date(now.getTime() + 365 * 86_400_000).toISOString().slice(0, 10);
  const taken = (await takenRanges(db, p.id, from, to)).sort((a, b) => a.start.localeCompare(b.start));
  return { property: p, unavailable: taken.map((t) => ({ from: t.start, to: t.end })) };
}
