import { and, eq, inArray } from 'drizzle-orm';
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../src/db/schema';
import { recordOrderEvent } from '../../src/domain/events';
import { pruneEvents } from '../../src/domain/retention';
import { newPartner } from '../support/clients';
import { startReceiver, type Receiver } from '../support/receiver';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * Events are kept for EVENT_RETENTION_DAYS, then pruned with their deliveries and every
 * attempt at them (src/domain/retention.ts); an event an endpoint is still owed stays.
 */

let stack: TestStack;
useStack((s) => (stack = s));

let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

const DAY_MS = 24 * 60 * 60 * 1000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS);

const eventsOf = (orderId: number) => stack.db.select().from(events).where(eq(events.orderId, orderId));

describe('event retention', () => {
  it('prunes events past their retention with their deliveries and attempts; keeps recent ones and any still owed to an endpoint', async () => {
    const { api } = await newPartner(stack, '0', '5000000');
    receiver = await startReceiver();
    const made = await api.post('/api/partners/webhooks/', { url: receiver.url });
    expect(made.status).toBe(201);
    receiver.setSecret(made.body.data.secret);

    const old = await api.productOrder();
    expect((await api.post('/api/partners/pay/', { product_order_id: old.id })).status).toBe(200);
    const recent = await api.productOrder();
    expect((await api.post('/api/partners/pay/', { product_order_id: recent.id })).status).toBe(200);
    // Four events delivered, each with its attempt recorded.
    const delivered = async (orderId: number) =>
      stack.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
        .where(and(eq(events.orderId, orderId), eq(webhookDeliveries.state, 'delivered')));
    await waitFor(async () => (await delivered(old.id)).length === 2 && (await delivered(recent.id)).length === 2, 'four deliveries recorded');
    const oldDeliveries = (await delivered(old.id)).map((d) => d.id);
    expect(await stack.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, oldDeliveries))).toHaveLength(2);

    // The first order's events are 40 days old.
    await stack.db
      .update(events)
      .set({ createdAt: daysAgo(40) })
      .where(eq(events.orderId, old.id));
    // An event as old that the endpoint is still owed: its delivery is pending (marked relayed, so no workflow takes it meanwhile).
    const [endpoint] = await stack.db.update(webhookEndpoints).set({ status: 'disabled' }).where(eq(webhookEndpoints.id, made.body.data.id)).returning();
    await recordOrderEvent(stack.db, 'order.completed', old.id);
    const [owed] = await stack.db
      .update(events)
      .set({ createdAt: daysAgo(40) })
      .where(and(eq(events.orderId, old.id), eq(events.type, 'order.completed')))
      .returning();
    await stack.db.insert(webhookDeliveries).values({ endpointId: endpoint!.id, eventId: owed!.id, state: 'pending', relayed: true });

    // One event per batch: the rounds repeat until nothing past the retention is left.
    expect(await pruneEvents(stack.db, { before: daysAgo(30), batch: 1 })).toBe(2);

    expect((await eventsOf(old.id)).map((e) => e.id)).toEqual([owed!.id]);
    expect(await stack.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, oldDeliveries))).toEqual([]);
    expect(await stack.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, oldDeliveries))).toEqual([]);
    expect((await eventsOf(recent.id)).map((e) => e.type)).toEqual(['order.processing', 'product_order.shipped']);
    expect(await delivered(recent.id)).toHaveLength(2);
    // The feed reads on, from what is left.
    const feed = (await api.get('/api/partners/events/')).body.data.results as { order_id: number; type: string }[];
    expect(feed.filter((e) => e.order_id === old.id).map((e) => e.type)).toEqual(['order.completed']);

    // Nothing more to prune while that delivery is owed; once settled, it goes too.
    expect(await pruneEvents(stack.db, { before: daysAgo(30), batch: 1000 })).toBe(0);
    await stack.db.update(webhookDeliveries).set({ state: 'skipped' }).where(eq(webhookDeliveries.eventId, owed!.id));
    expect(await pruneEvents(stack.db, { before: daysAgo(30), batch: 1000 })).toBe(1);
    expect(await eventsOf(old.id)).toEqual([]);
  });
});
