import { z } from '@hono/zod-openapi';
import { validation } from '../../domain/errors';
import type { PageSlice } from '../../domain/pagination';

/** Interface A's lists, paged as DRF pages them: 15 results a page, `?page=`, absolute next/previous links. */

export const page = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    current_page: z.number().int(),
    total_pages: z.number().int(),
    total_count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });

/**
 * A page in Interface A's (DRF's) envelope: next/previous are absolute URLs built from the
 * request URL, so every other query parameter is kept.
 */
export function renderPage<T, R>(slice: PageSlice<T>, requestUrl: string, render: (item: T) => R) {
  const link = (p: number) => {
    const url = new URL(requestUrl);
    if (p === 1) url.searchParams.delete('page');
    else url.searchParams.set('page', String(p));
    return url.toString();
  };
  return {
    current_page: slice.page,
    total_pages: slice.totalPages,
    total_count: slice.total,
    next: slice.page < slice.totalPages ? link(slice.page + 1) : null,
    previous: slice.page > 1 ? link(slice.page - 1) : null,
    results: slice.items.map(render),
  };
}

/** Parses `?page=`: absent means 1; anything but a positive integer is a 400. */
export function parsePage(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw validation('page', 'must be a positive integer');
  return Number(raw);
}

export const PageQuery = z.object({
  page: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, 'must be a positive integer')
    .optional()
    .openapi({ param: { name: 'page', in: 'query' }, example: '1', description: 'Page number; 15 results a page' }),
});
