/** Ids are PostgreSQL `serial` (int4): a number past this cannot name a row, so it is simply not found. */
export const MAX_ID = 2_147_483_647;

export const isStorableId = (n: number) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_ID;
