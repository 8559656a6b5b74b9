import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf, type Database } from '../../src/db/client';

/**
 * A table that grows with traffic is never read by scanning it: a row's children are found
 * through an index on the column that names their parent (an order's lines, its ledger
 * movements, a basket's items), and a booking through one on the name its supplier gave it.
 * Without one, each read of an order with its lines scans every line ever sold, and a
 * payment's cost grows with the business. Each foreign key's column leads an index on its
 * table, unless it is one of these, each for its reason.
 */
const NOT_READ_BY_PARENT: Record<string, string> = {
  // The catalogue: seeded, its size the supplier's range, not the traffic.
  'products.category_id': 'catalogue',
  'property_blocks.property_id': 'catalogue',
  'tour_departures.tour_id': 'catalogue',
  // What a sale was priced with, kept for the record: never read from the rate's or the rule's side, and neither is deleted.
  'orders.fx_rate_id': 'kept for the record',
  'orders.pricing_rule_id': 'kept for the record',
  'hotel_bookings.fx_rate_id': 'kept for the record',
  'hotel_bookings.pricing_rule_id': 'kept for the record',
  'flight_bookings.fx_rate_id': 'kept for the record',
  'reservations.pricing_rule_id': 'kept for the record',
  'tour_prebooks.pricing_rule_id': 'kept for the record',
  'pricing_rules.partner_id': 'a handful of rules, read whole',
  // What a line or an item is of: read from the line's side only.
  // Users are deactivated, never deleted; an open basket is found by its partner and user (baskets_one_open_uq).
  'baskets.user_id': 'read by partner and user',
  'basket_items.product_id': 'read from the item',
  'basket_items.variant_id': 'read from the item',
  'order_items.product_id': 'read from the line',
  'order_items.variant_id': 'read from the line',
  'visa_applications.visa_product_id': 'read from the application',
  'tour_prebooks.departure_id': 'read from the prebook (seats are counted on the departure)',
  'transfers.reverses_transfer_id': 'read from the reversal',
  // A partner's own row, read by its id and checked against the partner (partners are never deleted).
  'cancel_quotes.partner_id': 'read by id',
  'cancel_quotes.order_id': 'read by id',
  'payment_keys.order_id': 'read by partner and key',
  'reservations.partner_id': 'read by id',
  'tour_prebooks.partner_id': 'read by id',
  'visa_applications.partner_id': 'read by id',
  'schedule_changes.partner_id': 'read by order or by status',
};

describe('the schema', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({});
  });
  afterAll(() => database.close());

  it("indexes every foreign key's column on its table, except those named with their reason", async () => {
    const unindexed = rowsOf<{ key: string }>(
      await database.db.execute(sql`
        select c.conrelid::regclass::text || '.' || a.attname as key
        from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and c.connamespace = 'public'::regnamespace
          and not exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1])
        order by 1`),
    ).map((r) => r.key);
    expect(unindexed.filter((key) => !NOT_READ_BY_PARENT[key])).toEqual([]);
    // An exemption for a key that is indexed, or no longer exists, is stale.
    expect(Object.keys(NOT_READ_BY_PARENT).filter((key) => !unindexed.includes(key))).toEqual([]);
  });

  it("reads an order's lines and ledger movements, a basket's items and a booking by its supplier's names through an index", async () => {
    const plans: string[] = [];
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      for (const read of [
        sql`explain select * from order_items where order_id = 42 order by id`,
        sql`explain select * from ledger_entries where order_id = 42`,
        sql`explain select * from basket_items where basket_id = 42`,
        sql`explain select * from hotel_bookings where supplier_hold_id = 'hold-42'`,
        sql`explain select * from hotel_bookings where confirmation_number = 'CONF-42'`,
        sql`explain select * from flight_bookings where supplier_booking_ref = 'ord_42'`,
      ]) {
        plans.push(
          rowsOf<{ 'QUERY PLAN': string }>(await tx.execute(read))
            .map((r) => r['QUERY PLAN'])
            .join('\n'),
        );
      }
    });
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan/);
  });
});
