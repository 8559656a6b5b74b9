/** Events for partners (the outbox) and their webhook endpoints, deliveries and attempts. */
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { orders } from './orders';
import { partnerRef } from './partners';

/**
 * Events for partners (an outbox): one row per state change a partner hears about, written
 * in the state change's own transaction by the triggers of migration 0012 (order moves) or
 * by the code that makes the change (src/domain/events.ts). `data` is a snapshot of the
 * subject at that moment: the order's row for order events, rendered as Interface A's
 * TravelOrder when read or delivered; the endpoint's public view for endpoint events.
 */
export const events = pgTable(
  'events',
  {
    id: serial('id').primaryKey(),
    type: text('type').notNull(),
    partnerId: partnerRef(),
    orderId: integer('order_id').references(() => orders.id),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    // The event's public id and the feeds' cursor: numbered as the writing transaction
    // commits (migration 0014), so a partner's events are numbered in commit order and a
    // reader that has seen N never later finds a committed event below N. Null only
    // inside the writing transaction.
    position: bigint('position', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('events_position_uq').on(t.position),
    index('events_partner_type_position_idx').on(t.partnerId, t.type, t.position),
    index('events_partner_position_idx').on(t.partnerId, t.position),
    // An order's events, for operators (admin order inspect).
    index('events_order_position_idx').on(t.orderId, t.position),
    // Retention: the oldest first (src/domain/retention.ts).
    index('events_created_idx').on(t.createdAt),
  ],
);

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled', 'deleted'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/**
 * Where a partner wants its events pushed. The signing secret is kept sealed
 * (src/platform/secret-box.ts: the engine reads it back to sign with; it is shown to the
 * partner once). An empty `event_types` means every type.
 * Deleted endpoints keep their row, so their delivery history stays readable.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial('id').primaryKey(),
    partnerId: partnerRef(),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    eventTypes: jsonb('event_types').$type<string[]>().notNull().default([]),
    // The interface it was registered through: deliveries carry events in that interface's style.
    style: text('style', { enum: ['a', 'b'] })
      .notNull()
      .default('a'),
    status: text('status', { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull().default('enabled'),
    // What its partner is told (the rule, the status code); the detail (the answer, the address found) is for operators only.
    disabledReason: text('disabled_reason'),
    disabledDetail: text('disabled_detail'),
    ...timestamps(),
  },
  (t) => [index('webhook_endpoints_partner_idx').on(t.partnerId, t.id)],
);

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

/**
 * One event owed to one endpoint, written with the event (migration 0012's fan-out trigger).
 * `relayed` says the endpoint's delivery workflow has been woken for it (worker/webhook-relay.ts);
 * a redelivery sets the row pending and unrelayed again.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: serial('id').primaryKey(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: integer('event_id')
      .notNull()
      .references(() => events.id),
    state: text('state', { enum: WEBHOOK_DELIVERY_STATES }).notNull().default('pending'),
    relayed: boolean('relayed').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_uq').on(t.endpointId, t.eventId),
    // An event's deliveries (retention, redelivery).
    index('webhook_deliveries_event_idx').on(t.eventId),
    index('webhook_deliveries_pending_idx')
      .on(t.endpointId, t.eventId)
      .where(sql`${t.state} = 'pending'`),
    index('webhook_deliveries_unrelayed_idx')
      .on(t.endpointId)
      .where(sql`${t.state} = 'pending' AND NOT ${t.relayed}`),
  ],
);

export const WEBHOOK_ATTEMPT_FAILURES = ['address_not_allowed', 'timeout', 'unreachable'] as const;
export type WebhookAttemptFailure = (typeof WEBHOOK_ATTEMPT_FAILURES)[number];

/** Every HTTP attempt at a delivery: what the receiver answered and how fast. Append-only. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: serial('id').primaryKey(),
    deliveryId: integer('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    responseExcerpt: text('response_excerpt'),
    error: text('error'),
    // Why an attempt without an answer failed, in words its partner may read (error has the detail).
    failure: text('failure', { enum: WEBHOOK_ATTEMPT_FAILURES }),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id)],
);
