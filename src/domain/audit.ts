/**
 * The audit trail as operators read it: every operator action, newest first, narrowed by
 * who, by what it acted on (a prefix of its target, e.g. `partners/7/`) and by UTC days, a
 * page at a time.
 */
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { operatorActions } from '../db/schema';
import type { ActorRecord } from '../platform/actor';
import { validation } from './errors';
import { parseDay } from './money/statements';

export interface AuditFilter {
  operator?: string;
  targetPrefix?: string;
  /** YYYY-MM-DD, UTC, both included. */
  from?: string;
  to?: string;
}

export interface Page {
  page: number;
  pageSize: number;
}

export type AuditRow = typeof operatorActions.$inferSelect;

const DAY_MS = 86_400_000;

/** A LIKE pattern matching text that starts with `prefix`, taken literally. */
const startsWith = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listAudit(db: DbOrTx, filter: AuditFilter, page: Page): Promise<{ rows: AuditRow[]; total: number }> {
  const from = filter.from === undefined ? undefined : parseDay('from', filter.from);
  const to = filter.to === undefined ? undefined : new Date(parseDay('to', filter.to).getTime() + DAY_MS);
  if (from && to && to <= from) throw validation('to', 'must not be before from');
  const where = and(
    filter.operator === undefined ? undefined : eq(operatorActions.operator, filter.operator),
    filter.targetPrefix === undefined ? undefined : sql`${operatorActions.target} like ${startsWith(filter.targetPrefix)}`,
    from === undefined ? undefined : gte(operatorActions.at, from),
    to === undefined ? undefined : lt(operatorActions.at, to),
  );
  const [{ total }] = (await db
    .select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(operatorActions)
    .where(where)) as [{ total: number }];
  const rows = await db
    .select()
    .from(operatorActions)
    .where(where)
    .orderBy(desc(operatorActions.at), desc(operatorActions.id))
    .limit(page.pageSize)
    .offset((page.page - 1) * page.pageSize);
  return { rows, total };
}

/**
 * Records a change an agency made to itself (its users, its connections) in the operators'
 * audit: `operator` names who, as `agency:<partner>:<user|connection>:<id>`, and the target
 * what, under `partners/<id>/`.
 */
export async function recordAgencyChange(
  db: DbOrTx,
  actor: ActorRecord,
  partnerId: number,
  action: string,
  details: Record<string, unknown> & { user_id?: number; connection_id?: number },
): Promise<void> {
  const target =
    details.user_id !== undefined ? `partners/${partnerId}/users/${details.user_id}` : `partners/${partnerId}/connections/${details.connection_id}`;
  await db
    .insert(operatorActions)
    .values({ operator: `agency:${partnerId}:${actor.type}:${actor.id}`, action: `agency.${action}`, target, details: { ...details, actor } });
}
