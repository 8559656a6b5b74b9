/** Partners (agencies and their sub-agencies), the people in them, their API connections and the rate limiter's counters. */
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, boolean, check, index, integer, pgTable, serial, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { actor, createdAt } from './columns';

export const partners = pgTable(
  'partners',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    // Requests per minute on each interface (A and B counted apart); null: the engine's
    // default (RATE_LIMIT_PER_MINUTE). Set by operators (admin partner rate-limit).
    rateLimitPerMinute: integer('rate_limit_per_minute'),
    // The agency this one is a sub-agency of (docs/decisions/sub-agencies.md): one level, so a
    // parent has no parent. Null: an agency of its own, as every partner created by an operator.
    parentId: integer('parent_id').references((): AnyPgColumn => partners.id),
    createdAt: createdAt(),
  },
  (t) => [index('partners_parent_idx').on(t.parentId)],
);

/** The partner a row belongs to, which it cannot be without. */
export const partnerRef = () =>
  integer('partner_id')
    .notNull()
    .references(() => partners.id);

/**
 * Whose hold a booking is: its partner, and who placed it (the order made from it records the
 * same): what an agent who sees only their own bookings may act on.
 */
export const holdOwner = () => ({ partnerId: partnerRef(), createdBy: actor('created_by') });

/** What a person in an agency is (docs/decisions/rights.md; src/domain/rights.ts says what each may do). */
export const AGENCY_ROLES = ['owner', 'finance', 'agent', 'viewer'] as const;
export type AgencyRole = (typeof AGENCY_ROLES)[number];

/**
 * The people of an agency: a name, an e-mail (unique within the agency), a role, and for an
 * agent whether they see only the bookings they made. A user is deactivated, never deleted:
 * what they did stays attributed to them.
 */
export const agencyUsers = pgTable(
  'agency_users',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: AGENCY_ROLES }).notNull(),
    ownBookingsOnly: boolean('own_bookings_only').notNull().default(false),
    status: text('status', { enum: ['active', 'inactive'] })
      .notNull()
      .default('active'),
    // The console's password (argon2id, PHC string: docs/decisions/console-sign-in.md); none until a link is used.
    passwordHash: text('password_hash'),
    passwordSetAt: timestamp('password_set_at', { withTimezone: true }),
    // The optional second factor: a TOTP secret sealed for this user (src/platform/secret-box.ts), in use once confirmed.
    totpSecret: text('totp_secret'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    // The last time step a code was taken for: a code is used once.
    totpLastStep: integer('totp_last_step'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('agency_users_email_uq').on(t.partnerId, sql`lower(${t.email})`), index('agency_users_partner_idx').on(t.partnerId, t.id)],
);

/**
 * An agency's named API connections: credentials for Interface A (an API key, stored as is
 * since it is sent as an identifier, and the secret's SHA-256) or for Interface B (the
 * bearer key's SHA-256), each with the rights it was given. A connection may belong to a
 * user: it then acts as that user, within both the user's role and its own rights. Revoked
 * connections keep their row so that what they did stays attributed.
 */
export const apiConnections = pgTable(
  'api_connections',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    name: text('name').notNull(),
    interface: text('interface', { enum: ['a', 'b'] }).notNull(),
    apiKey: text('api_key').unique(),
    secretHash: text('secret_hash'),
    keyHash: text('key_hash').unique(),
    rights: text('rights').array().notNull(),
    userId: integer('user_id').references(() => agencyUsers.id),
    status: text('status', { enum: ['active', 'revoked'] })
      .notNull()
      .default('active'),
    createdAt: createdAt(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('api_connections_partner_idx').on(t.partnerId, t.id),
    index('api_connections_user_idx').on(t.userId),
    check(
      'api_connections_credentials',
      sql`(${t.interface} = 'a' and ${t.apiKey} is not null and ${t.secretHash} is not null and ${t.keyHash} is null) or (${t.interface} = 'b' and ${t.keyHash} is not null and ${t.apiKey} is null and ${t.secretHash} is null)`,
    ),
    check('api_connections_revoked', sql`(${t.status} = 'revoked') = (${t.revokedAt} is not null)`),
  ],
);

/**
 * The rate limiter's counters on PostgreSQL (rate-limiter-flexible's RateLimiterPostgres
 * table, in its own layout): one row per partner and interface, the requests counted in
 * the window that ends at `expire` (epoch ms). Created by a migration, so that every API
 * replica finds it at start-up instead of racing to create it.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: varchar('key', { length: 255 }).primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});
