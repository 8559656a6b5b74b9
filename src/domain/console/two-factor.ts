import { and, eq, isNull } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import type { DbOrTx } from '../../db/client';
import { agencyUsers } from '../../db/schema';
import type { SecretBox } from '../../platform/secret-box';
import { DomainError, notFound } from '../errors';

/**
 * The console's optional second factor (docs/decisions/console-sign-in.md): RFC 6238 codes
 * (six digits, 30 s, SHA-1: what every authenticator app reads) with `otpauth`. The secret is
 * sealed for its user; a code is accepted one step either side of now, and once.
 */
const PERIOD = 30;
const ISSUER = 'Booking console';
const owner = (userId: number) => `agency-user-totp:${userId}`;

const totpOf = (secret: string, label: string) =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });

/** A user's second factor as stored. */
export interface TwoFactorState {
  totpSecret: string | null;
  totpEnabledAt: Date | null;
  totpLastStep: number | null;
}

/**
 * The time step `code` is valid for under the user's sealed secret, or null: wrong, not a
 * code, or a step already used.
 */
export function acceptedStep(secrets: SecretBox, userId: number, state: TwoFactorState, code: unknown, now = Date.now()): number | null {
  if (state.totpSecret === null || typeof code !== 'string' || !/^\d{6}$/.test(code.trim())) return null;
  const totp = totpOf(secrets.open(state.totpSecret, owner(userId)), 'user');
  const delta = totp.validate({ token: code.trim(), timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD) + delta;
  return state.totpLastStep !== null && step <= state.totpLastStep ? null : step;
}

/** Records that the code of `step` was used: it, and every step before it, are spent. */
export async function spendStep(db: DbOrTx, userId: number, step: number): Promise<void> {
  await db.update(agencyUsers).set({ totpLastStep: step }).where(eq(agencyUsers.id, userId));
}

async function userRow(db: DbOrTx, userId: number) {
  const [row] = await db.select().from(agencyUsers).where(eq(agencyUsers.id, userId));
  if (!row) throw notFound(`user ${userId}`);
  return row;
}

/**
 * Starts setting up a second factor: a new secret, sealed, not in use until a code from it is
 * confirmed. Answers the secret and its otpauth:// address (what an app scans) once.
 */
export async function beginTwoFactor(db: DbOrTx, secrets: SecretBox, userId: number): Promise<{ secret: string; uri: string }> {
  const user = await userRow(db, userId);
  if (user.totpEnabledAt) throw new DomainError('conflict', 'two-factor sign-in is already on: remove it first to set up another device');
  const secret = new Secret({ size: 20 }).base32;
  await db
    .update(agencyUsers)
    .set({ totpSecret: secrets.seal(secret, owner(userId)), totpLastStep: null })
    .where(eq(agencyUsers.id, userId));
  return { secret, uri: totpOf(secret, user.email).toString() };
}

/** Turns the second factor on with a code from the secret being set up; a wrong code is a 400. */
export async function confirmTwoFactor(db: DbOrTx, secrets: SecretBox, userId: number, code: unknown): Promise<void> {
  const user = await userRow(db, userId);
  if (user.totpEnabledAt) throw new DomainError('conflict', 'two-factor sign-in is already on');
  if (user.totpSecret === null) throw new DomainError('conflict', 'set up two-factor sign-in first');
  const step = acceptedStep(secrets, userId, user, code);
  if (step === null) throw new DomainError('validation', 'code: not the current code of the authenticator app (six digits)', 'code');
  await db
    .update(agencyUsers)
    .set({ totpEnabledAt: new Date(), totpLastStep: step })
    .where(and(eq(agencyUsers.id, userId), isNull(agencyUsers.totpEnabledAt)));
}

/** Turns the second factor off: by the user with a current code, or by whoever may manage users (`code` null). */
export async function removeTwoFactor(db: DbOrTx, secrets: SecretBox, userId: number, code: unknown | null): Promise<void> {
  const user = await userRow(db, userId);
  if (code !== null && user.totpEnabledAt && acceptedStep(secrets, userId, user, code) === null) {
    throw new DomainError('validation', 'code: not the current code of the authenticator app (six digits)', 'code');
  }
  await db.update(agencyUsers).set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(agencyUsers.id, userId));
}
