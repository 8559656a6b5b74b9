import { createHash } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { agencyUsers, consoleSessions, operators, partners, wallets, type AgencyRole } from '../../db/schema';
import { digest } from '../credentials';
import { DomainError } from '../errors';
import type { Partner } from '../partners';
import { ROLE_RIGHTS } from '../rights';
import { isTokenShaped, newToken } from './tokens';

/** A console session ends after this long without a request, and at the latest after MAX (docs/decisions/console-sign-in.md). */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 3_600_000;
/** How stale `last_seen_at` may get before a request writes it again: one write a minute, not one a request. */
const SEEN_EVERY_MS = 60_000;

/**
 * The token every change made with a session must carry (X-CSRF-Token): derived from the
 * cookie's token, so the server needs no copy of it, and readable by the console's own pages
 * only (the session's answers give it; another origin can neither read them nor the cookie).
 */
export const csrfTokenOf = (sessionToken: string) => createHash('sha256').update(`csrf\0${sessionToken}`).digest('base64url');

/** A session as it is begun: the cookie's token (shown once) and its CSRF token. */
export interface BegunSession {
  id: number;
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Begins a session for an agency's user (`userId`) or an operator (`operatorId`). */
export async function beginSession(db: DbOrTx, whose: { userId: number } | { operatorId: number }, now = new Date()): Promise<BegunSession> {
  const cookie = newToken();
  const expiresAt = new Date(now.getTime() + SESSION_MAX_MS);
  const [row] = await db
    .insert(consoleSessions)
    .values({
      tokenHash: cookie.hash,
      userId: 'userId' in whose ? whose.userId : null,
      operatorId: 'operatorId' in whose ? whose.operatorId : null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
    })
    .returning({ id: consoleSessions.id });
  return { id: row!.id, token: cookie.token, csrfToken: csrfTokenOf(cookie.token), expiresAt };
}

/** Ends the session the token names (signing out); a token that names none ends nothing. */
export async function endSession(db: DbOrTx, token: string | undefined, now = new Date()): Promise<void> {
  if (!isTokenShaped(token)) return;
  await db
    .update(consoleSessions)
    .set({ endedAt: now })
    .where(and(eq(consoleSessions.tokenHash, digest(token)), isNull(consoleSessions.endedAt)));
}

/** A live session of an agency's user, as the API authenticates it. */
export interface AgencySession {
  sessionId: number;
  csrfToken: string;
  expiresAt: Date;
  partner: Partner;
  user: { id: number; name: string; email: string; role: AgencyRole; twoFactor: boolean };
}

const live = (now: Date) =>
  and(isNull(consoleSessions.endedAt), gt(consoleSessions.expiresAt, now), gt(consoleSessions.lastSeenAt, new Date(now.getTime() - SESSION_IDLE_MS)));

const unauthorized = (why: string) => new DomainError('unauthorized', why);

/**
 * The agency's user a session cookie's token signs in, with the rights of their role as it is
 * now (a role changed applies to the next request): 401 for a token that names no live
 * session, a deactivated user or a disabled agency.
 */
export async function agencySession(db: DbOrTx, token: string | undefined, now = new Date()): Promise<AgencySession> {
  if (!isTokenShaped(token)) throw unauthorized('not signed in: the session cookie is missing or malformed');
  const [row] = await db
    .select({
      sessionId: consoleSessions.id,
      expiresAt: consoleSessions.expiresAt,
      lastSeenAt: consoleSessions.lastSeenAt,
      user: agencyUsers,
      partnerName: partners.name,
      partnerStatus: partners.status,
      rateLimitPerMinute: partners.rateLimitPerMinute,
      parentId: partners.parentId,
      currency: wallets.currency,
    })
    .from(consoleSessions)
    .innerJoin(agencyUsers, eq(agencyUsers.id, consoleSessions.userId))
    .innerJoin(partners, eq(partners.id, agencyUsers.partnerId))
    .innerJoin(wallets, eq(wallets.partnerId, partners.id))
    .where(and(eq(consoleSessions.tokenHash, digest(token)), live(now)));
  if (!row) throw unauthorized('not signed in: the session ended or never was; sign in again');
  if (row.user.status !== 'active') throw unauthorized('this user is deactivated');
  if (row.partnerStatus !== 'active') throw unauthorized('this partner account is disabled');
  if (now.getTime() - row.lastSeenAt.getTime() > SEEN_EVERY_MS) {
    await db.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.id, row.sessionId));
  }
  const user = row.user;
  return {
    sessionId: row.sessionId,
    csrfToken: csrfTokenOf(token),
    expiresAt: row.expiresAt,
    user: { id: user.id, name: user.name, email: user.email, role: user.role, twoFactor: user.totpEnabledAt !== null },
    partner: {
      id: user.partnerId,
      name: row.partnerName,
      rateLimitPerMinute: row.rateLimitPerMinute,
      parentId: row.parentId,
      currency: row.currency,
      principal: {
        actor: { type: 'user', id: user.id, name: user.name },
        rights: new Set(ROLE_RIGHTS[user.role]),
        ownBookingsOf: user.role === 'agent' && user.ownBookingsOnly ? user.id : null,
      },
    },
  };
}

/** A live session of a named operator, as the admin API authenticates it. */
export interface OperatorSession {
  sessionId: number;
  csrfToken: string;
  expiresAt: Date;
  operator: { id: number; name: string };
}

/**
 * The named operator a session cookie's token signs in: 401 for a token that names no live
 * session, or an operator revoked since (a revoked operator's sessions end with its token).
 */
export async function operatorSession(db: DbOrTx, token: string | undefined, now = new Date()): Promise<OperatorSession> {
  if (!isTokenShaped(token)) throw unauthorized('not signed in: the session cookie is missing or malformed');
  const [row] = await db
    .select({
      sessionId: consoleSessions.id,
      expiresAt: consoleSessions.expiresAt,
      lastSeenAt: consoleSessions.lastSeenAt,
      operatorId: operators.id,
      name: operators.name,
      revokedAt: operators.revokedAt,
    })
    .from(consoleSessions)
    .innerJoin(operators, eq(operators.id, consoleSessions.operatorId))
    .where(and(eq(consoleSessions.tokenHash, digest(token)), live(now)));
  if (!row) throw unauthorized('not signed in: the session ended or never was; sign in again');
  if (row.revokedAt) throw unauthorized('this operator is revoked');
  if (now.getTime() - row.lastSeenAt.getTime() > SEEN_EVERY_MS) {
    await db.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.id, row.sessionId));
  }
  return { sessionId: row.sessionId, csrfToken: csrfTokenOf(token), expiresAt: row.expiresAt, operator: { id: row.operatorId, name: row.name } };
}

/** Ends every live session of a user: their password was set again. */
export async function endSessionsOf(db: DbOrTx, userId: number, now = new Date()): Promise<void> {
  await db
    .update(consoleSessions)
    .set({ endedAt: now })
    .where(and(eq(consoleSessions.userId, userId), isNull(consoleSessions.endedAt)));
}
