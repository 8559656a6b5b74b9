import crypto from 'node:crypto';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { eq } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../../db/client';
import { adminIdempotencyKeys, operatorActions } from '../../db/schema';
import { DomainError } from '../../domain/errors';
import type { Operator } from '../../domain/operator-tokens';

/** What the admin auth middleware sets: who the request acts as. */
export type OperatorVariables = { operator: Operator };

type AdminContext = Context<{ Variables: OperatorVariables }>;

/** The operator a request acts as: its token's, never a header its caller chooses. */
export const operatorOf = (c: Context) => (c as AdminContext).get('operator').name;

/** The request's JSON body as parsed (Hono keeps it once read), or {} without one. */
async function requestBody(c: Context): Promise<Record<string, unknown>> {
  const parsed: unknown = await c.req.json().catch(() => ({}));
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/** Writes the audit row of the request's action: who, what, on what, why. */
export async function recordAction(db: DbOrTx, c: Context): Promise<void> {
  const body = await requestBody(c);
  await db.insert(operatorActions).values({
    operator: operatorOf(c),
    action: c.req.routePath.replace('/admin/', ''),
    target: c.req.path.replace('/admin/', ''),
    reason: typeof body.reason === 'string' ? body.reason : typeof body.note === 'string' ? body.note : null,
    details: body,
  });
}

/**
 * Runs an action that only writes the database, and its audit row, in one transaction:
 * the action stands only if its audit row is written. An action that fails writes no row.
 */
export function audited<T>(db: Db, c: Context, act: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const result = await act(tx);
    await recordAction(tx, c);
    return result;
  });
}

const KEY = /^[\x21-\x7e]{1,200}$/;

/** JSON with its object keys sorted, so that a body's fingerprint does not depend on their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * An audited action that takes an `Idempotency-Key` (a top-up, a credit limit): the key, the
 * request's fingerprint and the answer are stored in the action's transaction. The same key
 * with the same request answers the first answer again, acting and auditing nothing; with a
 * different request (method, path or body), 422. Without the header the action runs once per call.
 */
export async function auditedOnce<T extends object>(db: Db, c: Context, act: (tx: Tx) => Promise<T>): Promise<{ status: 200; body: T }> {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return { status: 200, body: await audited(db, c, act) };
  if (!KEY.test(key)) throw new DomainError('validation', 'Idempotency-Key: 1 to 200 visible ASCII characters');
  const requestHash = crypto
    .createHash('sha256')
    .update(`${c.req.method} ${c.req.path} ${canonical(await requestBody(c))}`)
    .digest('hex');
  return db.transaction(async (tx) => {
    // A concurrent request with the same key waits here on the key's unique index until the
    // first one commits (then reads its answer) or rolls back (then claims the key itself).
    const [claimed] = await tx
      .insert(adminIdempotencyKeys)
      .values({ key, operator: operatorOf(c), method: c.req.method, path: c.req.path, requestHash, status: 0, response: {} })
      .onConflictDoNothing()
      .returning({ key: adminIdempotencyKeys.key });
    if (!claimed) {
      const [first] = await tx.select().from(adminIdempotencyKeys).where(eq(adminIdempotencyKeys.key, key));
      if (!first || first.requestHash !== requestHash) {
        throw new HTTPException(422, {
          message: `Idempotency-Key ${key} was used for a different request (${first?.method ?? 'another'} ${first?.path ?? 'request'}); use a new key for a new action`,
        });
      }
      return { status: 200 as const, body: first.response as T };
    }
    const result = await act(tx);
    await recordAction(tx, c);
    await tx.update(adminIdempotencyKeys).set({ status: 200, response: result }).where(eq(adminIdempotencyKeys.key, key));
    return { status: 200 as const, body: result };
  });
}
