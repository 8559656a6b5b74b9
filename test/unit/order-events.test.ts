import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf, type Database } from '../../src/db/client';
import { createPartner } from '../../src/domain/partners';

/**
 * Every change of an order's status is written as the partner's event when its transaction
 * commits, numbered there (the feeds' cursor), in one write of the event's row: the events
 * table is the busiest a payment writes to, with an index per way it is read.
 */
describe("an order's events", () => {
  let database: Database;
  let partnerId: number;
  beforeAll(async () => {
    database = await openDatabase({});
    partnerId = (await createPartner(database.db, { name: 'events', creditLimitMinor: 0, topUpMinor: 0, currency: 'IRT' })).partnerId;
  });
  afterAll(() => database.close());

  const newOrder = async () =>
    rowsOf<{ id: number }>(
      await database.db.execute(sql`
        insert into orders (partner_id, service, status, total_price_minor, currency, payment_method)
        values (${partnerId}, 'product', 'pending', 100, 'IRT', 'PARTNER_CREDIT') returning id`),
    )[0]!.id;

  const eventsOf = async (orderId: number) =>
    rowsOf<{ type: string; position: string | null; status: string }>(
      await database.db.execute(sql`select type, position, data->>'status' as status from events where order_id = ${orderId} order by position`),
    );

  it('are inserted with their position when the transaction commits, and never updated', async () => {
    const orderId = await newOrder();
    const written = await database.db.transaction(async (tx) => {
      await tx.execute(sql`update orders set status = 'processing' where id = ${orderId}`);
      await tx.execute(sql`update orders set status = 'completed' where id = ${orderId}`);
      // Not yet: the events are written at commit.
      const before = rowsOf<{ n: number }>(await tx.execute(sql`select count(*)::int as n from events where order_id = ${orderId}`))[0]!.n;
      // What commit would run, run now, so that this transaction's own counts can be read.
      await tx.execute(sql`set constraints all immediate`);
      const [counts] = rowsOf<{ inserted: number; updated: number }>(
        await tx.execute(
          sql`select pg_stat_get_xact_tuples_inserted('events'::regclass)::int as inserted, pg_stat_get_xact_tuples_updated('events'::regclass)::int as updated`,
        ),
      );
      return { before, counts };
    });
    expect(written.before).toBe(0);
    expect(written.counts).toEqual({ inserted: 2, updated: 0 });
    // One event per change, each with the order as that change left it, numbered in the order of the changes.
    const events = await eventsOf(orderId);
    expect(events.map((e) => [e.type, e.status])).toEqual([
      ['order.processing', 'processing'],
      ['product_order.shipped', 'completed'],
    ]);
    expect(events.every((e) => e.position !== null)).toBe(true);
    expect(Number(events[0]!.position)).toBeLessThan(Number(events[1]!.position));
  });

  it('are numbered after the events committed before them, as events written without a position are', async () => {
    await database.db.execute(sql`insert into events (type, partner_id, data) values ('webhook_endpoint.disabled', ${partnerId}, '{}'::jsonb)`);
    const orderId = await newOrder();
    await database.db.execute(sql`update orders set status = 'processing' where id = ${orderId}`);
    const [last] = rowsOf<{ type: string; position: string }>(
      await database.db.execute(sql`select type, position from events where partner_id = ${partnerId} order by position desc limit 2`),
    );
    const [other] = rowsOf<{ position: string | null }>(
      await database.db.execute(sql`select position from events where partner_id = ${partnerId} and type = 'webhook_endpoint.disabled'`),
    );
    expect(other!.position).not.toBeNull();
    expect(last!.type).toBe('order.processing');
    expect(Number(last!.position)).toBeGreaterThan(Number(other!.position));
  });

  it('are not written for a change that leaves the status as it was', async () => {
    const orderId = await newOrder();
    await database.db.execute(sql`update orders set updated_at = now() where id = ${orderId}`);
    expect(await eventsOf(orderId)).toEqual([]);
  });
});
