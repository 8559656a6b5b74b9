import { and, eq, gt, isNull } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { agencyUsers, consoleLinks } from '../../db/schema';
import type { ActorRecord } from '../../platform/actor';
import { digest } from '../credentials';
import { DomainError, notFound } from '../errors';
import { hashPassword } from './passwords';
import { endSessionsOf } from './sessions';
import { isTokenShaped, newToken } from './tokens';

export type LinkPurpose = (typeof consoleLinks.$inferSelect)['purpose'];

/** How long a link can be used: an invitation waits for a new colleague a week; a reset is asked for by someone waiting. */
export const LINK_TTL_MS: Record<LinkPurpose, number> = { invitation: 7 * 24 * 3_600_000, reset: 3_600_000 };

/** A link as made: its token (shown once, to whoever made it) and when it stops working. */
export interface MadeLink {
  id: number;
  token: string;
  /** Whose link it is: where it is mailed. */
  user: { name: string; email: string };
  purpose: LinkPurpose;
  expiresAt: Date;
}

/**
 * A one-time link for the agency's active user `userId` to set their console password. A new
 * link of the same purpose replaces those not yet used: only the latest works.
 */
export async function makeLink(tx: Tx, input: { partnerId: number; userId: number; purpose: LinkPurpose; by: ActorRecord; now?: Date }): Promise<MadeLink> {
  const now = input.now ?? new Date();
  const [user] = await tx
    .select({ status: agencyUsers.status, name: agencyUsers.name, email: agencyUsers.email })
    .from(agencyUsers)
    .where(and(eq(agencyUsers.id, input.userId), eq(agencyUsers.partnerId, input.partnerId)));
  if (!user) throw notFound(`user ${input.userId}`);
  if (user.status !== 'active') throw new DomainError('conflict', `user ${input.userId} is deactivated: no link lets them sign in`);
  await tx
    .update(consoleLinks)
    .set({ usedAt: now, expiresAt: now })
    .where(and(eq(consoleLinks.userId, input.userId), eq(consoleLinks.purpose, input.purpose), isNull(consoleLinks.usedAt)));
  const { token, hash } = newToken();
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS[input.purpose]);
  const [row] = await tx
    .insert(consoleLinks)
    .values({ tokenHash: hash, userId: input.userId, purpose: input.purpose, createdBy: input.by, createdAt: now, expiresAt })
    .returning({ id: consoleLinks.id });
  return { id: row!.id, token, user: { name: user.name, email: user.email }, purpose: input.purpose, expiresAt };
}

/**
 * Sets the password of the user a link names, once: the link is used up, and every session
 * the user had ends. A link unknown, used, expired, or of a user since deactivated: 404.
 */
export async function useLink(db: DbOrTx, token: unknown, password: string, now = new Date()): Promise<{ userId: number; partnerId: number }> {
  const gone = () => notFound('link (it may have been used, replaced or expired; ask for a new one)');
  if (typeof token !== 'string' || !isTokenShaped(token)) throw gone();
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const [link] = await tx
      .update(consoleLinks)
      .set({ usedAt: now })
      .where(and(eq(consoleLinks.tokenHash, digest(token)), isNull(consoleLinks.usedAt), gt(consoleLinks.expiresAt, now)))
      .returning({ userId: consoleLinks.userId });
    if (!link) throw gone();
    const [user] = await tx
      .update(agencyUsers)
      .set({ passwordHash, passwordSetAt: now })
      .where(and(eq(agencyUsers.id, link.userId), eq(agencyUsers.status, 'active')))
      .returning({ id: agencyUsers.id, partnerId: agencyUsers.partnerId });
    if (!user) throw gone();
    await endSessionsOf(tx, user.id, now);
    return { userId: user.id, partnerId: user.partnerId };
  });
}
