/** The operators and what they do through the admin API, and the workers' heartbeats. */
import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/** Every operator action through the admin API: who, when, what, why. Append-only. */
export const operatorActions = pgTable(
  'operator_actions',
  {
    id: serial('id').primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    operator: text('operator').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    reason: text('reason'),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [
    index('operator_actions_target_idx').on(t.target, t.id),
    index('operator_actions_operator_idx').on(t.operator, t.id),
    index('operator_actions_at_idx').on(t.at),
  ],
);

/**
 * The people (and scripts) who use the admin API, each with a token of their own. Only the
 * token's SHA-256 is kept: a token is 32 random bytes, so a digest cannot be searched back.
 * A revoked operator stays listed (the audit names it); its token no longer authenticates.
 */
export const operators = pgTable(
  'operators',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    createdBy: text('created_by').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('operators_name_idx').on(t.name), uniqueIndex('operators_token_hash_idx').on(t.tokenHash)],
);

/**
 * Admin actions that move money, by the Idempotency-Key their caller sent: the request's
 * fingerprint and the answer given, written in the action's own transaction, so the same
 * key answers the first answer again and never acts twice.
 */
export const adminIdempotencyKeys = pgTable('admin_idempotency_keys', {
  key: text('key').primaryKey(),
  operator: text('operator').notNull(),
  method: text('method').notNull(),
  path: text('path').notNull(),
  requestHash: text('request_hash').notNull(),
  status: integer('status').notNull(),
  response: jsonb('response').$type<unknown>().notNull(),
  createdAt: createdAt(),
});

/**
 * Worker heartbeats: each `npm run worker` process stamps its row every WORKER_HEARTBEAT_MS
 * while its worker runs and reaches Temporal, so an API replica can tell within seconds
 * whether any worker serves its task queue (Temporal's poller lists linger for minutes).
 * Times are the database's clock, so API and worker hosts need not agree on theirs.
 */
export const workerHeartbeats = pgTable(
  'worker_heartbeats',
  {
    identity: text('identity').primaryKey(),
    taskQueue: text('task_queue').notNull(),
    intervalMs: integer('interval_ms').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('worker_heartbeats_queue_idx').on(t.taskQueue, t.lastSeen)],
);
