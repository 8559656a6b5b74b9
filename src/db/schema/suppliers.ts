/** What the engine keeps of its suppliers: shared search answers and budgets, place ids, and the events they send. */
import { sql } from 'drizzle-orm';
import { bigint, check, doublePrecision, index, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Supplier search answers every API process shares (src/domain/search/shared.ts): the JSON
 * of an answer, keyed by the normalised request, with when it was fetched and until when it
 * is fresh, then servable stale; and a claim (`filling_until`) while one process calls the
 * supplier for it. A cache: rows past `stale_until` are swept, and losing them loses nothing.
 */
export const searchAnswers = pgTable(
  'search_answers',
  {
    key: text('key').primaryKey(),
    supplier: text('supplier').notNull(),
    service: text('service').notNull(),
    answer: text('answer'),
    fetchedAt: bigint('fetched_at', { mode: 'number' }),
    freshUntil: bigint('fresh_until', { mode: 'number' }),
    staleUntil: bigint('stale_until', { mode: 'number' }),
    fillingUntil: bigint('filling_until', { mode: 'number' }),
  },
  (t) => [index('search_answers_stale_until').on(t.staleUntil)],
);

/** Each supplier's search budget, a token bucket every API process takes from (src/domain/search/budget.ts). */
export const searchBudgets = pgTable('search_budgets', {
  supplier: text('supplier').primaryKey(),
  tokens: doublePrecision('tokens').notNull(),
  at: timestamp('at', { withTimezone: true, precision: 6 }).notNull(),
});

/**
 * A supplier's cities and hotels under the integer ids the partner's interfaces use
 * (src/suppliers/place-ids.ts): one row per place a supplier named, kept for good, with what
 * its adapter needs to know of it later.
 */
export const supplierPlaces = pgTable(
  'supplier_places',
  {
    id: serial('id').primaryKey(),
    supplier: text('supplier').notNull(),
    kind: text('kind', { enum: ['city', 'hotel'] }).notNull(),
    externalId: text('external_id').notNull(),
    info: jsonb('info').notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('supplier_places_external_idx').on(t.supplier, t.kind, t.externalId), check('supplier_places_kind', sql`${t.kind} IN ('city', 'hotel')`)],
);

/**
 * The events a supplier sent to our webhook route, by the supplier's event id: an event
 * delivered again is answered and left alone. `handled_at` is set once its work was handed on.
 */
export const supplierEvents = pgTable(
  'supplier_events',
  {
    id: serial('id').primaryKey(),
    supplier: text('supplier').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    handledAt: timestamp('handled_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('supplier_events_supplier_event_uq').on(t.supplier, t.eventId)],
);
