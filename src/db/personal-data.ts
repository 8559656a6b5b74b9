import { customType } from 'drizzle-orm/pg-core';
import { isSealed, sealedKeyId, type SecretBox } from '../platform/secret-box';

/**
 * Travellers' personal data (names, passport numbers, national ids, birth dates, e-mail
 * addresses, phone numbers) is sealed column by column before it reaches the database, so
 * that the database's files, its write-ahead log, a backup or a dump never hold it readable.
 * The columns are still `jsonb`: each holds one JSON string, the value's JSON sealed with
 * AES-256-GCM for its column (src/platform/secret-box.ts), under the personal-data key.
 *
 * The key is the process's, given once at start-up by {@link usePersonalDataKeys}: every
 * query that writes or reads these columns seals and opens through it, whichever domain
 * function runs it. A value in the clear (a row written before its column was sealed) is
 * read as it is, and sealed by the upkeep (src/domain/privacy.ts).
 */
let current: SecretBox | undefined;
/** Every box this process was given, newest first: a value sealed under any of their keys opens. */
let given: SecretBox[] = [];

/**
 * The box personal data is sealed under in this process from now on: it seals under its key,
 * and opens under its key and the previous ones it was given (while a key is being changed).
 * A box given before keeps opening what it sealed.
 */
export function usePersonalDataKeys(box: SecretBox): void {
  current = box;
  given = [box, ...given.filter((b) => b.keyId !== box.keyId)];
}

const noKey = () => new Error('no personal-data key in this process: travellers’ data can be neither sealed nor read (usePersonalDataKeys at start-up)');

/** The box that seals, and the one that opens what was sealed under `keyId`. */
export const personalDataKeys = {
  get keyId(): string {
    if (!current) throw noKey();
    return current.keyId;
  },
  seal(plain: string, owner: string): string {
    if (!current) throw noKey();
    return current.seal(plain, owner);
  },
  open(stored: string, owner: string): string {
    if (!current) throw noKey();
    const id = sealedKeyId(stored);
    return (given.find((b) => id !== null && b.opens(id)) ?? current).open(stored, owner);
  },
  opens: (keyId: string): boolean => given.some((b) => b.opens(keyId)),
};

/** What a sealed value is bound to: its table and column, so that it opens nowhere else. */
export const personalDataOwner = (table: string, column: string) => `personal-data:${table}.${column}`;

/** Seals a column's value (what drizzle writes for it). */
export function sealPersonal(value: unknown, owner: string): string {
  return personalDataKeys.seal(JSON.stringify(value), owner);
}

/** A column's value as stored (a sealed string, or a value in the clear) opened. */
export function openPersonal<T>(stored: unknown, owner: string): T {
  if (typeof stored === 'string' && isSealed(stored)) return JSON.parse(personalDataKeys.open(stored, owner)) as T;
  return stored as T;
}

/**
 * A `jsonb` column of `table` holding personal data, sealed: written and read as a `T`
 * through drizzle, stored as one sealed JSON string. SQL sees only the string (no JSON
 * operator reaches inside it); a null stays null.
 */
export function personalData<T>(table: string, column: string) {
  const owner = personalDataOwner(table, column);
  return customType<{ data: T; driverData: unknown }>({
    dataType: () => 'jsonb',
    toDriver: (value) => JSON.stringify(sealPersonal(value, owner)),
    fromDriver: (stored) => openPersonal<T>(stored, owner),
  })(column);
}
