import { notFound } from './errors';

/** Ids are PostgreSQL `serial` (int4): a number past this cannot name a row, so it is simply not found. */
export const MAX_ID = 2_147_483_647;

export const isStorableId = (n: number) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_ID;

/** The row id a path segment names; one that cannot name a row (not digits, or past MAX_ID) is `what` not found. */
export function rowIdOf(raw: string, what: string): number {
  const n = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!isStorableId(n)) throw notFound(`${what} ${raw}`);
  return n;
}
