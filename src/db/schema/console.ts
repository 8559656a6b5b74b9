/** Who is signed in to a console, and the one-time links that set a console password. */
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { actor, createdAt } from './columns';
import { operators } from './operations';
import { agencyUsers } from './partners';

/**
 * A browser signed in to a console: the SHA-256 of the token its cookie holds, whose session
 * it is (an agency's user, or an operator), and when it ends (idle or at the latest).
 * Signing out, deactivating the user or revoking the operator ends it.
 */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: serial('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: integer('user_id').references(() => agencyUsers.id),
    operatorId: integer('operator_id').references(() => operators.id),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('console_sessions_user_idx').on(t.userId),
    index('console_sessions_operator_idx').on(t.operatorId),
    check('console_sessions_whose', sql`(${t.userId} is null) <> (${t.operatorId} is null)`),
  ],
);

/**
 * One-time links that let a user set their console password: an invitation for a new user,
 * a reset for one who lost it. Only the SHA-256 of the link's token is kept; the link is
 * shown once to whoever made it.
 */
export const consoleLinks = pgTable(
  'console_links',
  {
    id: serial('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: integer('user_id')
      .notNull()
      .references(() => agencyUsers.id),
    purpose: text('purpose', { enum: ['invitation', 'reset'] }).notNull(),
    createdBy: actor('created_by').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('console_links_user_idx').on(t.userId)],
);
