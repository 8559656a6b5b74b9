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
