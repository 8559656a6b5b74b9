/// <reference types="@duffel/api" />
import { randomBytes } from 'node:crypto';
import type { PaginationMeta } from '@duffel/api/types';
import type { z } from 'zod';
import { notFound, StandInError, validation } from './errors';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A Duffel-like id: a resource prefix, `_0000`, then 22 base-62 characters. */
export function newId(prefix: string): string {
  const bytes = randomBytes(22);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 62];
  return `${prefix}_0000${out.slice(4)}`;
}

/** A six-character airline record locator (no I, O, 0 or 1: they read alike). */
export function newLocator(length = 6): string {
  const letters = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let out = '';
  for (const b of randomBytes(length)) out += letters[b % letters.length];
  return out;
}

export const requestId = (): string => randomBytes(15).toString('base64url');

/** The `data` of a request body, or Duffel's 422 when the body has no envelope. */
export function unwrap(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('data' in body)) {
    throw validation('validation_required', 'data', '/data', "The request body must be a JSON object with a 'data' key.");
  }
  return (body as { data: unknown }).data;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Parses `data` with a zod schema; the first problem becomes Duffel's 422 naming the field. */
export function parseBody<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
  const field = String([...path].reverse().find((k) => typeof k === 'string') ?? 'data');
  const pointer = `/${path.join('/')}`;
  if (valueAt(data, issue.path) === undefined && issue.code === 'invalid_type') {
    throw validation('validation_required', field, pointer, `Field '${field}' can't be blank`);
  }
  throw validation('validation_format', field, pointer, `Field '${field}' is invalid: ${issue.message}`);
}

export interface Page<T> {
  data: T[];
  meta: Required<Pick<PaginationMeta, 'limit'>> & { after: string | null; before: string | null };
}

const cursorOf = (index: number) => Buffer.from(`i:${index}`).toString('base64url');
function indexOf(cursor: string): number {
  const match = /^i:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new StandInError(400, 'invalid_request_error', 'invalid_pagination_cursor', 'Invalid cursor', 'The pagination cursor is invalid.');
  return Number(match[1]);
}

/** Cursor pagination as Duffel's lists page: `limit` 1..200 (50 by default), `after` / `before` cursors. */
export function paginate<T>(items: readonly T[], query: { limit?: string; after?: string; before?: string }): Page<T> {
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw validation('validation_format', 'limit', '/limit', 'limit must be an integer between 1 and 200');
  }
  let start = 0;
  if (query.after) start = indexOf(query.after) + 1;
  else if (query.before) start = Math.max(0, indexOf(query.before) - limit);
  const end = query.before && !query.after ? Math.min(items.length, indexOf(query.before)) : Math.min(items.length, start + limit);
  return {
    data: items.slice(start, end),
    meta: { limit, after: end < items.length ? cursorOf(end - 1) : null, before: start > 0 ? cursorOf(start) : null },
  };
}

export const mustFind = <T>(map: ReadonlyMap<string, T>, id: string): T => {
  const found = map.get(id);
  if (!found) throw notFound();
  return found;
};
