import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { preparedQuery } from '../db/prepared';
import { agencyUsers, apiConnections, partners, wallets } from '../db/schema';
import { API_KEY_PATTERN, digest, matchesDigest, newAgencyKey, newApiKey, newApiSecret } from './credentials';
import { currencyDefinition } from '../platform/currency';
import { DomainError, notFound, validation } from './errors';
import { MINOR_DIGITS } from './money/money';
import { keyDirectory } from './key-directory';
import { readCache } from './read-cache';
import { principalOf, RIGHT_NAMES, type Principal } from './rights';
import { recordCreditGrant, recordTopUp } from './money/wallet';

export interface Partner {
  id: number;
  name: string;
  /** Requests per minute on each interface; null: the engine's default. */
  rateLimitPerMinute: number | null;
  /** The agency this one is a sub-agency of; null: an agency of its own. */
  parentId: number | null;
  /** The wallet's currency: what the partner is priced and charged in. */
  currency: string;
  /** Who acts for the partner on this request (its connection, or the user it belongs to) and what they may do. */
  principal: Principal;
}

/** A partner's credentials as issued: the secret and agency key exist in the clear only here, once. */
export interface IssuedCredentials {
  partnerId: number;
  apiKey?: string;
  apiSecret?: string;
  agencyKey?: string;
}

export type NewPartnerCredentials = Required<IssuedCredentials>;

/**
 * A wallet currency as an operator names it (`currency`): a code the engine knows (ISO 4217,
 * or IRT) with two minor digits, as every wallet amount is kept and written
 * (src/domain/money/money.ts). Refused naming the field otherwise.
 */
export function parseWalletCurrency(field: string, input: unknown): string {
  const code = typeof input === 'string' ? input.trim() : '';
  if (!/^[A-Z]{3}$/.test(code)) throw validation(field, 'must be a three-letter currency code in capitals, e.g. "EUR"');
  const known = currencyDefinition(code);
  if (!known) throw validation(field, `${code} is not an ISO 4217 currency the engine knows`);
  if (known.exponent !== MINOR_DIGITS) {
    throw validation(field, `${code} has ${known.exponent} minor digits; a wallet keeps ${MINOR_DIGITS} (e.g. EUR, GBP, USD, IRT)`);
  }
  return code;
}

/** Creates a partner with its wallet in `currency`; the only moment its secret and agency key are ever visible. */
export async function createPartner(
  db: Db,
  input: { name: string; creditLimitMinor: number; topUpMinor: number; currency: string; parentId?: number },
): Promise<NewPartnerCredentials> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw validation('name', 'must be 1 to 200 characters');
  const currency = parseWalletCurrency('currency', input.currency);
  const apiKey = newApiKey();
  const apiSecret = newApiSecret();
  const agencyKey = newAgencyKey();
  const partnerId = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(partners)
      .values({ name, parentId: input.parentId ?? null })
      .returning({ id: partners.id });
    const id = row!.id;
    // Its first connections, one per interface, with every right: what the partner's credentials were before it had users.
    await tx.insert(apiConnections).values([
      { partnerId: id, name: FIRST_CONNECTION.a, interface: 'a', apiKey, secretHash: digest(apiSecret), rights: RIGHT_NAMES },
      { partnerId: id, name: FIRST_CONNECTION.b, interface: 'b', keyHash: digest(agencyKey), rights: RIGHT_NAMES },
    ]);
    await tx.insert(wallets).values({ partnerId: id, currency });
    if (input.creditLimitMinor > 0) await recordCreditGrant(tx, id, input.creditLimitMinor, 'initial credit limit');
    if (input.topUpMinor > 0) await recordTopUp(tx, id, input.topUpMinor, 'initial top-up');
    return id;
  });
  // Known at once to this process's directory of keys (another process learns of it within its refresh).
  activeKeys.forget(db);
  return { partnerId, apiKey, apiSecret, agencyKey };
}

/** The names of the connections a partner is created with. */
export const FIRST_CONNECTION = { a: 'Interface A', b: 'Interface B' } as const;

/** A connection with its partner and, if it belongs to one, its user: what a request is authenticated against. */
const credentialColumns = {
  partnerId: partners.id,
  partnerName: partners.name,
  partnerStatus: partners.status,
  rateLimitPerMinute: partners.rateLimitPerMinute,
  parentId: partners.parentId,
  currency: wallets.currency,
  connectionId: apiConnections.id,
  connectionName: apiConnections.name,
  connectionStatus: apiConnections.status,
  secretHash: apiConnections.secretHash,
  rights: apiConnections.rights,
  userId: agencyUsers.id,
  userName: agencyUsers.name,
  userRole: agencyUsers.role,
  userStatus: agencyUsers.status,
  ownBookingsOnly: agencyUsers.ownBookingsOnly,
};
/** The credential row whose `column` is the placeholder `name`, with its partner, wallet currency and user. */
const credentialsBy = (column: typeof apiConnections.apiKey | typeof apiConnections.keyHash, name: string) =>
  preparedQuery(`credentials_by_${column.name}`, (db, statement) =>
    db
      .select(credentialColumns)
      .from(apiConnections)
      .innerJoin(partners, eq(partners.id, apiConnections.partnerId))
      .innerJoin(wallets, eq(wallets.partnerId, partners.id))
      .leftJoin(agencyUsers, eq(agencyUsers.id, apiConnections.userId))
      .where(eq(column, sql.placeholder(name)))
      .prepare(statement),
  );
const credentialsByApiKey = credentialsBy(apiConnections.apiKey, 'apiKey');
const credentialsByAgencyKey = credentialsBy(apiConnections.keyHash, 'digest');
type CredentialRow = Awaited<ReturnType<typeof credentialsByApiKey>>[number];

const unauthorized = (why: string) => new DomainError('unauthorized', why);

/**
 * How long an API process authenticates a partner from the row it last read for that key
 * (docs/decisions/credentials-from-memory.md). A change made through this process (a
 * rotated secret or agency key, a disabled account, a rate limit) applies to its next
 * request; made through another API process, within this time.
 */
export const CREDENTIALS_TTL_MS = 1_000;
/**
 * How long an API process answers an unknown key's 401 without asking the database again,
 * and how many unknown keys it keeps (apart from the known ones: a flood of invented keys
 * pushes out only other invented keys).
 */
export const UNKNOWN_KEYS = { max: 10_000, ttlMs: 5_000 };
const credentials = readCache({ max: 10_000, ttlMs: CREDENTIALS_TTL_MS, misses: UNKNOWN_KEYS });

/**
 * How often an API process may read every active partner's keys again to learn of a key it
 * has not seen (docs/decisions/credentials-from-memory.md): a key created or rotated through
 * another process is known here within this time.
 */
export const KEY_DIRECTORY_REFRESH_MS = 5_000;
const activeKeys = keyDirectory<DbOrTx>({
  refreshMs: KEY_DIRECTORY_REFRESH_MS,
  load: async (db) => {
    const rows = await db
      .select({ apiKey: apiConnections.apiKey, keyHash: apiConnections.keyHash })
      .from(apiConnections)
      .innerJoin(partners, eq(partners.id, apiConnections.partnerId))
      .where(and(eq(partners.status, 'active'), eq(apiConnections.status, 'active')));
    return rows.map((r) => (r.apiKey !== null ? `a:${r.apiKey}` : `b:${r.keyHash}`));
  },
});

/**
 * Drops the credentials this process keeps for `db`: after a transaction that changed a
 * partner's credentials, status or limit commits (the change's own forget saw the transaction's
 * handle, not the database's).
 */
export const forgetCredentials = (db: object) => {
  credentials.forget(db);
  activeKeys.forget(db);
};
const known = (row: CredentialRow | undefined) => row !== undefined;

/** The partner a valid credential acts for, or why it may not (the same 401 wording on both interfaces). */
function admitted(row: CredentialRow, account: 'partner' | 'agency'): Partner {
  if (row.partnerStatus !== 'active') throw unauthorized(`this ${account} account is disabled`);
  if (row.connectionStatus !== 'active') throw unauthorized('this API connection was revoked');
  if (row.userId !== null && row.userStatus !== 'active') throw unauthorized('the user this API connection belongs to is deactivated');
  const user = row.userId !== null ? { id: row.userId, name: row.userName!, role: row.userRole!, ownBookingsOnly: row.ownBookingsOnly! } : null;
  return {
    id: row.partnerId,
    name: row.partnerName,
    rateLimitPerMinute: row.rateLimitPerMinute,
    parentId: row.parentId,
    currency: row.currency,
    principal: principalOf({ id: row.connectionId, name: row.connectionName, rights: row.rights }, user),
  };
}

/** Interface A: X-API-KEY + X-API-SECRET. Every failure is the same 401 to the caller. */
export async function authenticatePartner(db: DbOrTx, apiKey: string | undefined, apiSecret: string | undefined): Promise<Partner> {
  if (!apiKey || !apiSecret) throw unauthorized('missing X-API-KEY or X-API-SECRET header');
  if (!API_KEY_PATTERN.test(apiKey)) throw unauthorized('X-API-KEY must be 64 hexadecimal characters');
  const key = apiKey.toLowerCase();
  const row = await credentials.read(db, `a:${key}`, async () => (await credentialsByApiKey(db, { apiKey: key }))[0], known);
  // Compare even when the key is unknown so that timing does not reveal which keys exist.
  const ok = matchesDigest(apiSecret, row?.secretHash ?? digest('')) && row !== undefined;
  if (!ok || !row) throw unauthorized('invalid X-API-KEY or X-API-SECRET');
  return admitted(row, 'partner');
}

/**
 * Whether Interface A's X-API-KEY names an active partner, answered from the directory of
 * every active partner's keys (at most one read of it per KEY_DIRECTORY_REFRESH_MS, however
 * many keys are asked): what a client address that spent its budget for requests without
 * valid credentials may still have checked. The secret is not looked at here.
 */
export async function isActiveApiKey(db: DbOrTx, apiKey: string | undefined): Promise<boolean> {
  if (!apiKey || !API_KEY_PATTERN.test(apiKey)) return false;
  return activeKeys.has(db, `a:${apiKey.toLowerCase()}`);
}

/** Whether Interface B's bearer key names an active partner, from the same directory. */
export async function isActiveAgencyKey(db: DbOrTx, bearer: string | undefined): Promise<boolean> {
  if (!bearer) return false;
  return activeKeys.has(db, `b:${digest(bearer)}`);
}

/** Interface B: Authorization: Bearer <agency key>, looked up by its digest. */
export async function authenticateAgency(db: DbOrTx, bearer: string | undefined): Promise<Partner> {
  if (!bearer) throw unauthorized('missing bearer key');
  const hash = digest(bearer);
  const row = await credentials.read(db, `b:${hash}`, async () => (await credentialsByAgencyKey(db, { digest: hash }))[0], known);
  if (!row) throw unauthorized('invalid bearer key');
  return admitted(row, 'agency');
}

/** The partner's row; an unknown id is not found. */
export async function requirePartner(db: DbOrTx, partnerId: number) {
  const [row] = await db.select().from(partners).where(eq(partners.id, partnerId));
  if (!row) throw notFound(`partner ${partnerId}`);
  return row;
}

/** A partner's first active connection on an interface: the one its operator-issued credentials live on. */
async function firstConnection(db: DbOrTx, partnerId: number, iface: 'a' | 'b') {
  await requirePartner(db, partnerId);
  const [row] = await db
    .select({ id: apiConnections.id })
    .from(apiConnections)
    .where(and(eq(apiConnections.partnerId, partnerId), eq(apiConnections.interface, iface), eq(apiConnections.status, 'active')))
    .orderBy(asc(apiConnections.id))
    .limit(1);
  if (!row) throw new DomainError('conflict', `partner ${partnerId} has no active Interface ${iface.toUpperCase()} connection; create one`);
  return row.id;
}

/** A new secret for the partner's first Interface A connection (operators: `partner rotate-secret`). */
export async function rotateSecret(db: Db, partnerId: number): Promise<IssuedCredentials> {
  const id = await firstConnection(db, partnerId, 'a');
  const apiSecret = newApiSecret();
  const [row] = await db
    .update(apiConnections)
    .set({ secretHash: digest(apiSecret), rotatedAt: new Date() })
    .where(eq(apiConnections.id, id))
    .returning({ apiKey: apiConnections.apiKey });
  forgetCredentials(db);
  return { partnerId, apiKey: row!.apiKey!, apiSecret };
}

/** A new key for the partner's first Interface B connection (operators: `partner rotate-agency-key`). */
export async function rotateAgencyKey(db: Db, partnerId: number): Promise<IssuedCredentials> {
  const id = await firstConnection(db, partnerId, 'b');
  const agencyKey = newAgencyKey();
  await db
    .update(apiConnections)
    .set({ keyHash: digest(agencyKey), rotatedAt: new Date() })
    .where(eq(apiConnections.id, id));
  forgetCredentials(db);
  return { partnerId, agencyKey };
}

export async function disablePartner(db: Db, partnerId: number): Promise<void> {
  await requirePartner(db, partnerId);
  await db.update(partners).set({ status: 'disabled' }).where(eq(partners.id, partnerId));
  forgetCredentials(db);
}

/** Lets a disabled partner in again, with the credentials it had. */
export async function enablePartner(db: Db, partnerId: number): Promise<void> {
  await requirePartner(db, partnerId);
  await db.update(partners).set({ status: 'active' }).where(eq(partners.id, partnerId));
  credentials.forget(db);
}

/** The most an operator may set: 100,000 requests per minute per interface. */
export const MAX_RATE_LIMIT_PER_MINUTE = 100_000;

/** Sets a partner's requests per minute on each interface; null returns it to the engine's default. */
export async function setRateLimit(db: Db, partnerId: number, perMinute: number | null): Promise<{ partnerId: number; perMinute: number | null }> {
  if (perMinute !== null && (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > MAX_RATE_LIMIT_PER_MINUTE)) {
    throw validation('per_minute', `must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}, or null for the default`);
  }
  await requirePartner(db, partnerId);
  await db.update(partners).set({ rateLimitPerMinute: perMinute }).where(eq(partners.id, partnerId));
  forgetCredentials(db);
  return { partnerId, perMinute };
}

/** A partner's own limit (null: the default). */
export async function getRateLimit(db: DbOrTx, partnerId: number): Promise<number | null> {
  return (await requirePartner(db, partnerId)).rateLimitPerMinute;
}
