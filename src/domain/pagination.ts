import { DomainError, validation } from './errors';

export const PAGE_SIZE = 15;

export interface Page<T> {
  current_page: number;
  total_pages: number;
  total_count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** Parses `?page=`: absent means 1; anything but a positive integer is a 400. */
export function parsePage(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw validation('page', 'must be a positive integer');
  return Number(raw);
}

/**
 * Loads one page with DRF's shape. `load` gets the offset and limit; next/previous are
 * absolute URLs built from the request URL so every other query parameter is kept.
 * A page past the last one is a 404, as DRF answers "Invalid page".
 */
export async function paginate<T>(
  requestUrl: string,
  page: number,
  count: () => Promise<number>,
  load: (offset: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const total = await count();
  const totalPages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (page > totalPages) throw new DomainError('not_found', `page ${page} not found: there are ${totalPages} page(s)`);
  const results = await load((page - 1) * PAGE_SIZE, PAGE_SIZE);
  const link = (p: number) => {
    const url = new URL(requestUrl);
    if (p === 1) url.searchParams.delete('page');
    else url.searchParams.set('page', String(p));
    return url.toString();
  };
  return {
    current_page: page,
    total_pages: totalPages,
    total_count: total,
    next: page < totalPages ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results,
  };
}
