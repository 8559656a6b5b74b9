import type { Context } from 'hono';
import { z } from 'zod';
import { DomainError, notFound } from '../../domain/errors';
import { isStorableId } from '../../domain/ids';
import type { Page } from '../../domain/audit';

/** The request's JSON body checked against `schema`; a 400 naming the first field that is wrong. */
export async function body<T extends z.ZodTypeAny>(c: Context, schema: T): Promise<z.infer<T>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new DomainError('validation', 'body: must be a JSON object');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new DomainError('validation', `${i.path.join('.') || 'body'}: ${i.message}`);
  }
  return parsed.data;
}

/** The row id in the path, named `what` in the message when it is not one. */
export function idParam(c: Context, what: string): number {
  const raw = c.req.param('id') ?? '';
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new DomainError('validation', `${what}: must be a positive integer id`);
  if (!isStorableId(Number(raw))) throw notFound(`${what} ${raw}`);
  return Number(raw);
}

/** `?page=&page_size=`: page from 1, at most `max` rows a page. */
export function pageOf(c: Context, defaults: { pageSize: number; max: number }): Page {
  const number = (name: string, fallback: number, max: number) => {
    const raw = c.req.query(name);
    if (raw === undefined) return fallback;
    if (!/^[1-9]\d{0,6}$/.test(raw) || Number(raw) > max) throw new DomainError('validation', `${name}: must be a whole number from 1 to ${max}`);
    return Number(raw);
  };
  return { page: number('page', 1, 1_000_000), pageSize: number('page_size', defaults.pageSize, defaults.max) };
}

/** A page of a list as the admin API answers it: the rows, how many match, and the next page if there is one. */
export function pageAnswer<T>(page: Page, total: number, results: T[]) {
  return { count: total, page: page.page, page_size: page.pageSize, next_page: page.page * page.pageSize < total ? page.page + 1 : null, results };
}

/** An optional text query parameter, at most `max` characters. */
export function textQuery(c: Context, name: string, max: number): string | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > max) throw new DomainError('validation', `${name}: at most ${max} characters`);
  return raw;
}
