/** Ids are PostgreSQL `serial` (int4): a number past this cannot name a row, so it is simply not found. */
export const MAX_ID = 2_147_483_647;

export const isStorableId = (n: number) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_ID;

/** The row id a path segment names, or null when it cannot name one (not digits, or past MAX_ID). */
export function storableIdOf(raw: string): number | null {
  if (!/^[1-9]\d{0,9}$/.test(raw)) return null;
  const n = Number(raw);
  return n <= MAX_ID ? n : null;
}
