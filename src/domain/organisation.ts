import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { AGENCY_ROLES, agencyUsers, apiConnections, type AgencyRole } from '../db/schema';
import { digest, newAgencyKey, newApiKey, newApiSecret } from './credentials';
import { databaseFailure } from '../platform/database-errors';
import { DomainError, notFound, validation } from './errors';
import { requirePartner } from './partners';
import { isRight, ROLE_RIGHTS, type Right } from './rights';

/**
 * An agency's people and API connections (docs/guides/users-and-roles.md): who they are, what
 * each may do, and the credentials each connection is issued once. What the caller may grant
 * is bounded by what it holds itself (`granter`): nobody hands out a right they lack. Each
 * change runs in its caller's transaction with its audit row; the caller makes the process
 * read credentials again once it commits (`forgetCredentials`).
 */

export type UserRow = typeof agencyUsers.$inferSelect;
export type ConnectionRow = typeof apiConnections.$inferSelect;

/** The rights the one asking holds; null for an operator, who may grant any. */
export type Granter = ReadonlySet<Right> | null;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/;

function checkName(name: unknown, field = 'name'): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!trimmed || trimmed.length > 200) throw validation(field, 'must be 1 to 200 characters');
  return trimmed;
}

function checkRole(role: unknown): AgencyRole {
  if (typeof role !== 'string' || !(AGENCY_ROLES as readonly string[]).includes(role)) throw validation('role', `must be one of ${AGENCY_ROLES.join(', ')}`);
  return role as AgencyRole;
}

function mayGrant(granter: Granter, rights: readonly Right[], what: string): void {
  if (granter === null) return;
  const beyond = rights.filter((r) => !granter.has(r));
  if (beyond.length) throw new DomainError('forbidden', `forbidden: ${what} would hold ${beyond.join(', ')}, which you do not hold yourself`);
}

const isUniqueViolation = (err: unknown) => databaseFailure(err)?.sqlstate === '23505';

export async function listUsers(db: DbOrTx, partnerId: number): Promise<UserRow[]> {
  return db.select().from(agencyUsers).where(eq(agencyUsers.partnerId, partnerId)).orderBy(asc(agencyUsers.id));
}

/** The agency's user, or 404 (another agency's is as unknown as none). */
export async function requireUserOf(db: DbOrTx, partnerId: number, userId: number): Promise<UserRow> {
  const [row] = await db
    .select()
    .from(agencyUsers)
    .where(and(eq(agencyUsers.id, userId), eq(agencyUsers.partnerId, partnerId)));
  if (!row) throw notFound(`user ${userId}`);
  return row;
}

/** Adds a user to the agency; their e-mail is unique within it (compared without case). */
export async function createUser(
  db: DbOrTx,
  partnerId: number,
  input: { name: unknown; email: unknown; role: unknown; own_bookings_only?: unknown },
  granter: Granter,
): Promise<UserRow> {
  await requirePartner(db, partnerId);
  const name = checkName(input.name);
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  if (!EMAIL.test(email) || email.length > 254) throw validation('email', 'must be an e-mail address');
  const role = checkRole(input.role);
  if (input.own_bookings_only !== undefined && typeof input.own_bookings_only !== 'boolean') throw validation('own_bookings_only', 'must be true or false');
  const ownBookingsOnly = input.own_bookings_only === true;
  if (ownBookingsOnly && role !== 'agent') throw validation('own_bookings_only', 'applies to agents only');
  mayGrant(granter, ROLE_RIGHTS[role], `a user with the role ${role}`);
  try {
    const [row] = await db.insert(agencyUsers).values({ partnerId, name, email, role, ownBookingsOnly }).returning();
    return row!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError('conflict', `email: ${email} is already a user of this agency`);
    throw err;
  }
}

/** Changes a user's role (and, for an agent, whether they see only their own bookings). */
export async function setUserRole(
  db: DbOrTx,
  partnerId: number,
  userId: number,
  input: { role: unknown; own_bookings_only?: unknown },
  granter: Granter,
): Promise<UserRow> {
  const role = checkRole(input.role);
  if (input.own_bookings_only !== undefined && typeof input.own_bookings_only !== 'boolean') throw validation('own_bookings_only', 'must be true or false');
  const ownBookingsOnly = input.own_bookings_only === true;
  if (ownBookingsOnly && role !== 'agent') throw validation('own_bookings_only', 'applies to agents only');
  const user = await requireUserOf(db, partnerId, userId);
  mayGrant(granter, [...ROLE_RIGHTS[user.role], ...ROLE_RIGHTS[role]], `changing user ${userId} to ${role}`);
  const [row] = await db.update(agencyUsers).set({ role, ownBookingsOnly }).where(eq(agencyUsers.id, user.id)).returning();
  return row!;
}

/** Deactivates a user: their connections stop authenticating at once (within the credentials' cache time elsewhere). */
export async function deactivateUser(db: DbOrTx, partnerId: number, userId: number, granter: Granter): Promise<UserRow> {
  const user = await requireUserOf(db, partnerId, userId);
  mayGrant(granter, ROLE_RIGHTS[user.role], `deactivating user ${userId}`);
  const [row] = await db.update(agencyUsers).set({ status: 'inactive' }).where(eq(agencyUsers.id, user.id)).returning();
  return row!;
}

export async function listConnections(db: DbOrTx, partnerId: number): Promise<ConnectionRow[]> {
  return db.select().from(apiConnections).where(eq(apiConnections.partnerId, partnerId)).orderBy(asc(apiConnections.id));
}

async function ownConnection(db: DbOrTx, partnerId: number, connectionId: number): Promise<ConnectionRow> {
  const [row] = await db
    .select()
    .from(apiConnections)
    .where(and(eq(apiConnections.id, connectionId), eq(apiConnections.partnerId, partnerId)));
  if (!row) throw notFound(`API connection ${connectionId}`);
  return row;
}

/** A connection's credentials as issued: in the clear only in this answer. */
export interface IssuedConnection {
  connection: ConnectionRow;
  apiKey?: string;
  apiSecret?: string;
  agencyKey?: string;
}

function checkRights(rights: unknown): Right[] {
  if (!Array.isArray(rights) || rights.length === 0 || rights.length > 20) throw validation('rights', 'must be a list of 1 to 20 rights');
  const bad = rights.filter((r) => typeof r !== 'string' || !isRight(r));
  if (bad.length) throw validation('rights', `unknown right ${JSON.stringify(bad[0])}; the rights are listed in docs/guides/users-and-roles.md`);
  return [...new Set(rights as Right[])];
}

/** Creates a named connection on Interface A or B with the rights given, optionally acting as one of the agency's users. */
export async function createConnection(
  db: DbOrTx,
  partnerId: number,
  input: { name: unknown; interface: unknown; rights: unknown; user_id?: unknown },
  granter: Granter,
): Promise<IssuedConnection> {
  await requirePartner(db, partnerId);
  const name = checkName(input.name);
  if (input.interface !== 'a' && input.interface !== 'b') throw validation('interface', 'must be "a" or "b"');
  const rights = checkRights(input.rights);
  mayGrant(granter, rights, 'the connection');
  let userId: number | null = null;
  if (input.user_id !== undefined && input.user_id !== null) {
    if (typeof input.user_id !== 'number' || !Number.isSafeInteger(input.user_id) || input.user_id < 1) throw validation('user_id', 'must be a user id');
    const user = await requireUserOf(db, partnerId, input.user_id).catch((err: unknown) => {
      if (err instanceof DomainError && err.code === 'not_found') throw validation('user_id', `user ${String(input.user_id)} is not a user of this agency`);
      throw err;
    });
    if (user.status !== 'active') throw validation('user_id', `user ${user.id} is deactivated`);
    userId = user.id;
  }
  const issued = fresh(input.interface);
  const [connection] = await db
    .insert(apiConnections)
    .values({ partnerId, name, interface: input.interface, rights, userId, ...issued.stored })
    .returning();
  return { connection: connection!, ...issued.shown };
}

function fresh(iface: 'a' | 'b') {
  if (iface === 'a') {
    const apiKey = newApiKey();
    const apiSecret = newApiSecret();
    return { stored: { apiKey, secretHash: digest(apiSecret) }, shown: { apiKey, apiSecret } };
  }
  const agencyKey = newAgencyKey();
  return { stored: { keyHash: digest(agencyKey) }, shown: { agencyKey } };
}

/** New credentials for a connection (its API key stays on Interface A; the secret, or the agency key, is new). */
export async function rotateConnection(db: DbOrTx, partnerId: number, connectionId: number, granter: Granter): Promise<IssuedConnection> {
  const current = await ownConnection(db, partnerId, connectionId);
  if (current.status !== 'active') throw new DomainError('conflict', `API connection ${connectionId} is revoked`);
  mayGrant(granter, current.rights.filter(isRight), `rotating connection ${connectionId}`);
  const apiSecret = current.interface === 'a' ? newApiSecret() : undefined;
  const agencyKey = current.interface === 'b' ? newAgencyKey() : undefined;
  const [connection] = await db
    .update(apiConnections)
    .set({ ...(apiSecret ? { secretHash: digest(apiSecret) } : { keyHash: digest(agencyKey!) }), rotatedAt: new Date() })
    .where(and(eq(apiConnections.id, current.id), eq(apiConnections.status, 'active')))
    .returning();
  if (!connection) throw new DomainError('conflict', `API connection ${connectionId} is revoked`);
  return apiSecret ? { connection, apiKey: connection.apiKey!, apiSecret } : { connection, agencyKey: agencyKey! };
}

/** Revokes a connection for good: its credentials stop authenticating; what it did stays attributed to it. */
export async function revokeConnection(db: DbOrTx, partnerId: number, connectionId: number, granter: Granter): Promise<ConnectionRow> {
  const current = await ownConnection(db, partnerId, connectionId);
  mayGrant(granter, current.rights.filter(isRight), `revoking connection ${connectionId}`);
  const [connection] = await db
    .update(apiConnections)
    .set({ status: 'revoked', revokedAt: sql`coalesce(${apiConnections.revokedAt}, now())` })
    .where(eq(apiConnections.id, current.id))
    .returning();
  return connection!;
}
