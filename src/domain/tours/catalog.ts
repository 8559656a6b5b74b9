import { and, asc, count, eq, gte, ilike, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { tourDepartures, tours } from '../../db/schema';
import { todayUtc } from '../../platform/calendar';
import { notFound } from '../errors';
import { isStorableId } from '../ids';
import { paginate, type PageSlice } from '../pagination';

export type TourRow = typeof tours.$inferSelect;
export type DepartureRow = typeof tourDepartures.$inferSelect;

export interface TourFilters {
  destination?: string;
  category?: string;
  month?: string; // YYYY-MM: tours with a departure that month
  min_duration?: number;
  max_duration?: number;
  min_price?: number; // minor units, adult price of a departure
  max_price?: number;
  page: number;
}

/** A tour with its upcoming departures (those the filters kept, on a list), soonest first. */
export interface TourWithDepartures {
  tour: TourRow;
  departures: DepartureRow[];
}

/** GET /api/tours/: upcoming departures only; filters as search-options lists them. */
export async function listTours(db: DbOrTx, f: TourFilters): Promise<PageSlice<TourWithDepartures>> {
  const departureFilters: SQL[] = [gte(tourDepartures.startDate, todayUtc())];
  if (f.month) departureFilters.push(sql`to_char(${tourDepartures.startDate}, 'YYYY-MM') = ${f.month}`);
  if (f.min_price !== undefined) departureFilters.push(gte(tourDepartures.priceAdult, f.min_price));
  if (f.max_price !== undefined) departureFilters.push(lte(tourDepartures.priceAdult, f.max_price));
  const matching = db
    .select({ id: tourDepartures.tourId })
    .from(tourDepartures)
    .where(and(...departureFilters));

  const tourFilters: SQL[] = [inArray(tours.id, matching)];
  if (f.destination) {
    const d = f.destination.trim();
    tourFilters.push(or(ilike(tours.destinationCity, `%${d.replace(/[\\%_]/g, '\\$&')}%`), eq(tours.destinationCountry, d.toUpperCase()))!);
  }
  if (f.category) tourFilters.push(eq(tours.category, f.category));
  if (f.min_duration !== undefined) tourFilters.push(gte(tours.durationDays, f.min_duration));
  if (f.max_duration !== undefined) tourFilters.push(lte(tours.durationDays, f.max_duration));
  const where = and(...tourFilters);

  return paginate(
    f.page,
    async () => (await db.select({ n: count() }).from(tours).where(where))[0]!.n,
    async (offset, limit) => {
      const rows = await db.select().from(tours).where(where).orderBy(asc(tours.id)).limit(limit).offset(offset);
      const deps = rows.length
        ? await db
            .select()
            .from(tourDepartures)
            .where(
              and(
                inArray(
                  tourDepartures.tourId,
                  rows.map((r) => r.id),
                ),
                ...departureFilters,
              ),
            )
            .orderBy(asc(tourDepartures.startDate))
        : [];
      return rows.map((tour) => ({ tour, departures: deps.filter((d) => d.tourId === tour.id) }));
    },
  );
}

/** GET /api/tours/{id}/: itinerary and upcoming departures with seats left and prices per passenger type. */
export async function getTour(db: DbOrTx, id: number): Promise<TourWithDepartures> {
  const [tour] = isStorableId(id) ? await db.select().from(tours).where(eq(tours.id, id)) : [];
  if (!tour) throw notFound(`tour ${id}`);
  const deps = await db
    .select()
    .from(tourDepartures)
    .where(and(eq(tourDepartures.tourId, id), gte(tourDepartures.startDate, todayUtc())))
    .orderBy(asc(tourDepartures.startDate));
  return { tour, departures: deps };
}

/** GET /api/tours/search-options/: the values the list's filters take. */
export async function searchOptions(db: DbOrTx) {
  const all = await db.select().from(tours);
  const deps = await db.select().from(tourDepartures).where(gte(tourDepartures.startDate, todayUtc()));
  const months = [...new Set(deps.map((d) => d.startDate.slice(0, 7)))].sort();
  const prices = deps.map((d) => d.priceAdult);
  const durations = all.map((t) => t.durationDays);
  const destinations = new Map<string, { city: string; country: string }>();
  for (const t of all) destinations.set(t.destinationCity, { city: t.destinationCity, country: t.destinationCountry });
  return {
    destinations: [...destinations.values()].sort((a, b) => a.city.localeCompare(b.city)),
    categories: [...new Set(all.map((t) => t.category))].sort(),
    months,
    duration: { min: Math.min(...durations), max: Math.max(...durations) },
    /** Adult prices of upcoming departures, in minor units. */
    price: { min: Math.min(...prices), max: Math.max(...prices) },
  };
}
