import { DomainError } from './errors';

export const PAGE_SIZE = 15;

/** One page of a list, as the domain knows it: which page, how many there are, and the rows on it. */
export interface PageSlice<T> {
  page: number;
  totalPages: number;
  total: number;
  items: T[];
}

/**
 * Loads one page. `load` gets the offset and limit. A page past the last one names nothing:
 * not found (Interface A answers 404, as DRF answers "Invalid page").
 */
export async function paginate<T>(page: number, count: () => Promise<number>, load: (offset: number, limit: number) => Promise<T[]>): Promise<PageSlice<T>> {
  const total = await count();
  const totalPages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (page > totalPages) throw new DomainError('not_found', `page ${page} not found: there are ${totalPages} page(s)`);
  return { page, totalPages, total, items: await load((page - 1) * PAGE_SIZE, PAGE_SIZE) };
}

/** A row of a page read in one statement, with the number of rows of the whole list (`count(*) over ()`). */
export interface CountedRow<T> {
  item: T;
  total: number;
}

/**
 * Loads one page in one read: `load` answers its rows, each carrying the whole list's count.
 * A page that comes back empty says nothing about the count, so only then (an empty list,
 * or a page past the last one) is it read as `paginate` reads it.
 */
export async function paginateCounted<T>(
  page: number,
  count: () => Promise<number>,
  load: (offset: number, limit: number) => Promise<CountedRow<T>[]>,
): Promise<PageSlice<T>> {
  const rows = await load((page - 1) * PAGE_SIZE, PAGE_SIZE);
  if (rows.length === 0) return paginate(page, count, async () => []);
  const total = rows[0]!.total;
  return { page, totalPages: Math.max(1, Math.ceil(total / PAGE_SIZE)), total, items: rows.map((r) => r.item) };
}
