/**
 * npm run bench:order-book -- [--lines N] [--orders M] [--variants a,b,…]
 *
 * What a payment's two ledger statements (the debit, which answers the order with its lines,
 * and the completion) cost as the order book grows: each variant opens an in-memory PGlite of
 * its own, migrates it, writes N earlier orders of one line each, then pays M new orders one
 * after another and times each statement. The variants run side by side in one run:
 * `indexed` (the schema as migrated) and `unindexed` (without the index that finds an order's
 * lines by order), so that what the index buys is read on the same machine at the same
 * moment. `--variants` names others (VARIANTS), each the schema without one part the two
 * statements pay for, to take their cost apart. Prints one JSON line.
 */
import { sql } from 'drizzle-orm';
import { args, percentile, round } from './common';
import { openDatabase, rowsOf, type Db } from '../../src/db/client';
import { seedProducts } from '../../src/db/seed/seed';
import { createPartner } from '../../src/domain/partners';
import { completeOrder, debitForOrder } from '../../src/domain/money/payment-ledger';

const opts = args({
  lines: { type: 'string', default: '200000' },
  orders: { type: 'string', default: '200' },
  variants: { type: 'string', default: 'indexed,unindexed' },
});
const LINES = Number(opts.lines);
const ORDERS = Number(opts.orders);

/** Each variant: the migrated schema, less what its statements drop. */
const VARIANTS: Record<string, string[]> = {
  indexed: [],
  unindexed: ['drop index order_items_order_idx'],
  // Without the order's status changes written as events (partners' feeds and webhooks).
  no_order_events: ['drop trigger orders_record_events on orders'],
  no_event_fan_out: ['drop trigger events_fan_out on events'],
  no_low_balance_alerts: ['drop trigger wallets_low_balance on wallets'],
  no_ledger_foreign_keys: [
    'alter table ledger_entries drop constraint ledger_entries_order_id_orders_id_fk',
    'alter table ledger_entries drop constraint ledger_entries_partner_id_partners_id_fk',
  ],
  no_transfer_foreign_keys: [
    'alter table transfers drop constraint transfers_debit_account_fk',
    'alter table transfers drop constraint transfers_credit_account_fk',
    'alter table transfers drop constraint transfers_ledger_entry_id_ledger_entries_id_fk',
    'alter table transfers drop constraint transfers_order_id_orders_id_fk',
  ],
  no_event_foreign_keys: [
    'alter table events drop constraint events_order_id_orders_id_fk',
    'alter table events drop constraint events_partner_id_partners_id_fk',
  ],
};
const chosen = String(opts.variants).split(',');
const unknown = chosen.filter((v) => !VARIANTS[v]);
if (unknown.length) throw new Error(`--variants: no variant ${unknown.join(', ')}; there are ${Object.keys(VARIANTS).join(', ')}`);

/** `count` pending product orders of one line each for the partner, priced at 1.00 IRT; their ids. */
async function productOrders(db: Db, partnerId: number, count: number, status: 'pending' | 'completed'): Promise<number[]> {
  const ids = rowsOf<{ id: number }>(
    await db.execute(sql`
      insert into orders (partner_id, service, status, total_price_minor, currency, payment_method)
      select ${partnerId}, 'product', ${status}, 100, 'IRT', 'PARTNER_CREDIT' from generate_series(1, ${count})
      returning id`),
  ).map((r) => r.id);
  await db.execute(sql`
    insert into order_items (order_id, product_id, variant_id, sku, name, quantity, unit_price_minor, line_total_minor)
    select o.id, p.id, null, p.sku, p.name, 1, 100, 100
    from unnest(${`{${ids.join(',')}}`}::int[]) o (id), (select id, sku, name from products order by id limit 1) p`);
  return ids;
}

async function measure(variant: string) {
  const database = await openDatabase({});
  try {
    const { db } = database;
    await seedProducts(db);
    for (const statement of VARIANTS[variant]!) await db.execute(sql.raw(statement));
    const partner = await createPartner(db, { name: `bench-${variant}`, creditLimitMinor: 0, topUpMinor: 10 ** 12, currency: 'IRT' });
    for (let done = 0; done < LINES; done += 50_000) await productOrders(db, partner.partnerId, Math.min(50_000, LINES - done), 'completed');
    const orders = await productOrders(db, partner.partnerId, ORDERS, 'pending');
    const debit: number[] = [];
    const complete: number[] = [];
    for (const orderId of orders) {
      const run = { workflowId: `bench-order-book-${orderId}`, runId: 'r' };
      let t0 = performance.now();
      const paid = await debitForOrder(db, { ...run, orderId, partnerId: partner.partnerId }, { withOrder: true });
      debit.push(performance.now() - t0);
      if (paid.order?.items.length !== 1) throw new Error(`order ${orderId} answered ${paid.order?.items.length} lines, not 1`);
      t0 = performance.now();
      await completeOrder(db, { ...run, orderId, supplierRef: `ref-${orderId}` });
      complete.push(performance.now() - t0);
    }
    // The first payments run on code V8 has not optimised yet: the later half is measured.
    const warm = (xs: number[]) => xs.slice(xs.length >> 1).sort((a, b) => a - b);
    return {
      debit_p50_ms: round(percentile(warm(debit), 50), 3),
      debit_p95_ms: round(percentile(warm(debit), 95), 3),
      complete_p50_ms: round(percentile(warm(complete), 50), 3),
    };
  } finally {
    await database.close();
  }
}

async function main() {
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  for (const variant of chosen) results[variant] = await measure(variant);
  console.log(JSON.stringify({ database: 'pglite-memory', prior_lines: LINES, orders: ORDERS, results }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
