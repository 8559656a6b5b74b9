/**
 * Columns many tables carry alike. Each is a function, so that every table gets builders of
 * its own; a group is spread into the table's columns where the columns sit.
 */
import { bigint, jsonb, timestamp } from 'drizzle-orm/pg-core';
import type { ActorRecord } from '../../platform/actor';

// Money is integer minor units (1/100 of the wallet currency) everywhere in the
// database; `mode: 'number'` is exact up to 2^53 minor units, far beyond any wallet.
export const money = (name: string) => bigint(name, { mode: 'number' });

export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

/** When a row was made and last changed. */
export const timestamps = () => ({ createdAt: createdAt(), updatedAt: updatedAt() });

/** Who did something, as the actor recorded it (src/platform/actor.ts). */
export const actor = (name: string) => jsonb(name).$type<ActorRecord>();

/**
 * The end of a booking's columns: when its travellers' personal data was erased
 * (src/domain/privacy.ts: after the trip, or on request), when it was made and last changed.
 */
export const bookingTimes = () => ({
  personalDataErasedAt: timestamp('personal_data_erased_at', { withTimezone: true }),
  ...timestamps(),
});
