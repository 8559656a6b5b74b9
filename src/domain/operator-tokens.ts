import crypto from 'node:crypto';
import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { operators } from '../db/schema';
import { DomainError, notFound } from './errors';

/** The prefix every operator token starts with, so that a leaked one is recognised (in logs, in a repository). */
export const OPERATOR_TOKEN_PREFIX = 'tbo_';

/** The operator the bootstrap token (ADMIN_TOKEN, or DATA_DIR/admin-token) acts as. */
export const BOOTSTRAP_OPERATOR = 'bootstrap';

/** The shortest bootstrap token accepted at start-up. */
export const MIN_BOOTSTRAP_TOKEN_LENGTH = 32;

const NAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/i;

/** A new operator token: the prefix and 32 random bytes (256 bits) in base64url. */
export const newOperatorToken = () => `${OPERATOR_TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;

/** What is stored of a token: SHA-256 (hex), right for a value of 256 random bits. */
export const tokenHash = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

/** Who a request acts as: a named operator (id) or the bootstrap token (id null). */
export interface Operator {
  id: number | null;
  name: string;
}

export interface OperatorView {
  id: number;
  name: string;
  createdAt: Date;
  createdBy: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const view = (r: typeof operators.$inferSelect): OperatorView => ({
  id: r.id,
  name: r.name,
  createdAt: r.createdAt,
  createdBy: r.createdBy,
  lastUsedAt: r.lastUsedAt,
  revokedAt: r.revokedAt,
});

/** Adds an operator; answers its token, which is not stored and never shown again. */
export async function addOperator(db: DbOrTx, name: string, createdBy: string): Promise<OperatorView & { token: string }> {
  if (!NAME.test(name)) {
    throw new DomainError('validation', 'name: 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit');
  }
  if (name.toLowerCase() === BOOTSTRAP_OPERATOR) throw new DomainError('validation', `name: "${BOOTSTRAP_OPERATOR}" is the bootstrap token's operator`);
  const token = newOperatorToken();
  const [row] = await db
    .insert(operators)
    .values({ name, tokenHash: tokenHash(token), createdBy })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new DomainError('conflict', `operator ${name} exists (a revoked operator's name is not given again)`);
  return { ...view(row), token };
}

export async function listOperators(db: DbOrTx): Promise<OperatorView[]> {
  return (await db.select().from(operators).orderBy(asc(operators.id))).map(view);
}

/** Revokes an operator by name or id: its token stops authenticating at once. Revoking twice keeps the first time. */
export async function revokeOperator(db: DbOrTx, ref: string): Promise<OperatorView> {
  const byId = /^[1-9]\d{0,9}$/.test(ref) && Number(ref) <= 2_147_483_647;
  const where = byId ? or(eq(operators.id, Number(ref)), eq(operators.name, ref)) : eq(operators.name, ref);
  const [row] = await db
    .update(operators)
    .set({ revokedAt: sql`coalesce(${operators.revokedAt}, now())` })
    .where(where)
    .returning();
  if (!row) throw notFound(`operator ${ref}`);
  return view(row);
}

/** Constant-time equality of two strings by their SHA-256. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(presented).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/**
 * Who a presented token belongs to: the bootstrap operator, a named operator that is not
 * revoked (its last use stamped, at most once a minute), or null.
 */
export async function authenticateOperator(db: DbOrTx, presented: string, bootstrapToken: string): Promise<Operator | null> {
  if (sameSecret(presented, bootstrapToken)) return { id: null, name: BOOTSTRAP_OPERATOR };
  if (!presented.startsWith(OPERATOR_TOKEN_PREFIX) || presented.length > 200) return null;
  const hash = tokenHash(presented);
  const [row] = await db.select().from(operators).where(eq(operators.tokenHash, hash));
  if (!row || row.revokedAt || !crypto.timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))) return null;
  await db
    .update(operators)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(operators.id, row.id), or(isNull(operators.lastUsedAt), lt(operators.lastUsedAt, sql`now() - interval '1 minute'`))));
  return { id: row.id, name: row.name };
}
