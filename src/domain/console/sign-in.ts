import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { agencyUsers, partners } from '../../db/schema';
import { DomainError, validation } from '../errors';
import { passwordMatches } from './passwords';
import type { TwoFactorState } from './two-factor';

/** Who signs in: an agency's active user whose password matched. */
export interface SignedInUser {
  userId: number;
  partnerId: number;
  /** Their second factor: on when `totpEnabledAt` is set. */
  twoFactor: TwoFactorState;
}

/** The account a sign-in is counted against when throttled: the e-mail, without case. */
export const accountOf = (email: string) => email.trim().toLowerCase();

/**
 * The user an e-mail and password sign in. An e-mail is unique within an agency, not across
 * them: when the password matches the same person in more than one agency, `agencyId` says
 * which, and without it the answer names them. Every refusal of the pair is one 401, after
 * the same work whether or not the e-mail is known.
 */
export async function checkSignIn(db: DbOrTx, input: { email: string; password: string; agencyId?: number }): Promise<SignedInUser> {
  const candidates = await db
    .select({
      userId: agencyUsers.id,
      partnerId: agencyUsers.partnerId,
      partnerName: partners.name,
      passwordHash: agencyUsers.passwordHash,
      totpSecret: agencyUsers.totpSecret,
      totpEnabledAt: agencyUsers.totpEnabledAt,
      totpLastStep: agencyUsers.totpLastStep,
    })
    .from(agencyUsers)
    .innerJoin(partners, eq(partners.id, agencyUsers.partnerId))
    .where(
      and(
        sql`lower(${agencyUsers.email}) = ${accountOf(input.email)}`,
        eq(agencyUsers.status, 'active'),
        eq(partners.status, 'active'),
        input.agencyId === undefined ? undefined : eq(agencyUsers.partnerId, input.agencyId),
      ),
    )
    .orderBy(asc(agencyUsers.id))
    .limit(10);
  const matched: typeof candidates = [];
  for (const c of candidates) if (c.passwordHash !== null && (await passwordMatches(c.passwordHash, input.password))) matched.push(c);
  if (candidates.every((c) => c.passwordHash === null)) await passwordMatches(null, input.password);
  if (matched.length === 0) throw new DomainError('unauthorized', 'wrong e-mail or password');
  if (matched.length > 1) {
    const which = matched.map((m) => `${m.partnerId} (${m.partnerName})`).join(', ');
    throw validation('agency_id', `this e-mail signs in to more than one agency: send agency_id, one of ${which}`);
  }
  const { userId, partnerId, totpSecret, totpEnabledAt, totpLastStep } = matched[0]!;
  return { userId, partnerId, twoFactor: { totpSecret, totpEnabledAt, totpLastStep } };
}
