/**
 * The chaos run's own checks must be able to fail: books that add up pass, and each kind
 * of planted discrepancy (a doubled debit, a row the wallet never saw, a lost update) is
 * reported. The SQL checks run here on the engine's real schema (migrated PGlite).
 */
import { openDatabase, type Database } from '../../src/db/client';
import { toMinor } from '../../scripts/chaos/http';
import { planFaults } from '../../scripts/chaos/faults';
import { PRESETS } from '../../scripts/chaos/options';
import { chainFindings, sqlChecks, topupFindings, type Queryable } from '../../scripts/chaos/verify';
import { prng, shuffle, type RunRecord } from '../../scripts/chaos/workload';

describe('chaos helpers', () => {
  test('toMinor reads Interface A decimals exactly', () => {
    expect(toMinor('550000.00')).toBe(55_000_000);
    expect(toMinor('12')).toBe(1200);
    expect(toMinor('-1.5')).toBe(-150);
    expect(() => toMinor('1.234')).toThrow();
  });

  test('the fault plan spreads one of each kind (ci) over the load, in order', () => {
    const plan = planFaults(PRESETS.ci);
    expect(plan.map((p) => p.kind).sort()).toEqual(['api', 'postgres', 'temporal-history', 'temporal-matching', 'worker']);
    expect(plan.every((p) => p.at > 0 && p.at < 1)).toBe(true);
    expect([...plan].sort((a, b) => a.at - b.at)).toEqual(plan);
    expect(planFaults(PRESETS.full).filter((p) => p.kind === 'worker')).toHaveLength(12);
  });

  test('the same seed shuffles the same way', () => {
    expect(shuffle([1, 2, 3, 4, 5, 6], prng(7))).toEqual(shuffle([1, 2, 3, 4, 5, 6], prng(7)));
  });

  test('a top-up whose answer was lost may or may not be in the books, nothing else', () => {
    const p = { partner_id: 1, topupsMinor: 100, uncertainTopupsMinor: [30] } as never;
    expect(topupFindings(p, 100, 'x')).toEqual([]);
    expect(topupFindings(p, 130, 'x')).toEqual([]);
    expect(topupFindings(p, 160, 'x')).toHaveLength(1);
  });

  test('the balance chain finds a lost update', () => {
    const row = (id: number, direction: string, amount: number, balance_after: number, type = 'payment') => ({
      id,
      partner_id: 1,
      direction,
      type,
      amount,
      balance_after,
    });
    expect(
      chainFindings([row(1, 'credit', 100, 100, 'topup'), row(2, 'debit', 30, 70), row(3, 'credit', 50, 70, 'credit_grant'), row(4, 'debit', 20, 50)], 't'),
    ).toEqual([]);
    // Two debits computed from the same balance: the second one's balance_after is wrong.
    expect(chainFindings([row(1, 'credit', 100, 100, 'topup'), row(2, 'debit', 30, 70), row(3, 'debit', 20, 80)], 't')).toHaveLength(1);
  });
});

describe('chaos SQL checks on the real schema', () => {
  let database: Database;
  let db: Queryable;
  const run: RunRecord = {
    runId: 't',
    startedAt: '',
    target: 'test',
    partners: [{ index: 0, partner_id: 1, api_key: 'k', api_secret: 's', tight: false, topupsMinor: 10_000, uncertainTopupsMinor: [], creditLimitMinor: 0 }],
    orders: [
      { id: 1, partner: 0, totalMinor: 3000, kind: 'plain' },
      { id: 2, partner: 0, totalMinor: 2000, kind: 'supplier_reject' },
      { id: 3, partner: 0, totalMinor: 1000, kind: 'supplier_reject' },
    ],
    pays: [],
    decisions: [],
  };

  const ledger = (
    id: number,
    direction: string,
    type: string,
    amount: number,
    after: number,
    order: number | null,
    wf: string | null,
    runId: string | null,
    step: string | null,
    reverses: number | null = null,
  ) =>
    db.query(
      `insert into ledger_entries (id, partner_id, direction, type, amount_minor, balance_after_minor, order_id, workflow_id, run_id, step, reverses_entry_id) values ($1, 1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id, direction, type, amount, after, order, wf, runId, step, reverses],
    );
  const checks = async () => (await sqlChecks(db, run)).findings.map((f) => f.check).sort();

  beforeEach(async () => {
    database = await openDatabase({});
    db = (database.db as unknown as { $client: Queryable }).$client;
    await db.query(`insert into partners (id, name) values (1, 'p')`);
    await db.query(`insert into wallets (partner_id, balance_minor, credit_limit_minor, currency) values (1, 6000, 0, 'IRT')`);
    await db.query(
      `insert into orders (id, partner_id, service, status, total_price_minor, currency, payment_method) values
         (1, 1, 'product', 'completed', 3000, 'IRT', 'PARTNER_CREDIT'), (2, 1, 'product', 'pending', 2000, 'IRT', 'PARTNER_CREDIT'), (3, 1, 'product', 'completed', 1000, 'IRT', 'PARTNER_CREDIT')`,
    );
    await db.query(`insert into payment_keys (partner_id, idempotency_key, order_id) values (1, 'k1', 1), (1, 'k2', 2), (1, 'k3', 3)`);
    await ledger(1, 'credit', 'topup', 10_000, 10_000, null, null, null, null);
    await ledger(2, 'debit', 'payment', 3000, 7000, 1, 'pay:p1:key:k1', 'r1', 'debit');
    // Refused by the supplier: debit and its reversal; the order is pending again.
    await ledger(3, 'debit', 'payment', 2000, 5000, 2, 'pay:p1:key:k2', 'r1', 'debit');
    await ledger(4, 'credit', 'refund', 2000, 7000, 2, 'pay:p1:key:k2', 'r1', 'reversal', 3);
    // Refused, then paid again with the same key (a second run): clean.
    await ledger(5, 'debit', 'payment', 1000, 6000, 3, 'pay:p1:key:k3', 'r1', 'debit');
    await ledger(6, 'credit', 'refund', 1000, 7000, 3, 'pay:p1:key:k3', 'r1', 'reversal', 5);
    await ledger(7, 'debit', 'payment', 1000, 6000, 3, 'pay:p1:key:k3', 'r2', 'debit');
  });
  afterEach(async () => {
    await database.close();
  });

  test('books that add up pass', async () => {
    expect(await sqlChecks(db, run)).toEqual({ findings: [], checked: { orders: 3, wallets: 1, keys: 3, reversals: 2, ledger_rows: 7 } });
  });

  test('a key that debited twice (wallet and ledger agreeing) is found three ways', async () => {
    await ledger(8, 'debit', 'payment', 3000, 3000, 1, 'pay:p1:key:k1', 'r9', 'debit');
    await db.query(`update wallets set balance_minor = 3000 where partner_id = 1`);
    expect(await checks()).toEqual(['sql:completed_paid_once', 'sql:key_debited_twice', 'sql:net_payments_vs_completed']);
  });

  test('a ledger row the wallet never saw is found', async () => {
    await ledger(8, 'credit', 'topup', 100, 6100, null, null, null, null);
    expect(await checks()).toEqual(['sql:topups', 'sql:wallet_equation', 'sql:wallet_vs_ledger']);
  });

  test('a lost update, a reversal given twice, money kept by a pending order, a stuck payment', async () => {
    await ledger(8, 'credit', 'refund', 2000, 8000, 2, 'pay:p1:key:k2', 'r1', 'reversal-again', 3);
    await db.query(`update wallets set balance_minor = 8000 where partner_id = 1`);
    expect(await checks()).toEqual(['sql:bad_reversal', 'sql:bad_reversal', 'sql:net_payments_vs_completed', 'sql:not_completed_kept_money']);
    await db.query(`delete from ledger_entries where id = 8`);
    await ledger(8, 'debit', 'payment', 500, 6000, 1, 'pay:p1:key:k1', 'r1', 'debit-2');
    await db.query(`update wallets set balance_minor = 5500 where partner_id = 1`);
    // The debit computed its balance from a stale wallet: the chain breaks (and order 1 is paid twice by one run).
    expect(await checks()).toEqual(['sql:balance_chain', 'sql:completed_paid_once', 'sql:key_debited_twice', 'sql:net_payments_vs_completed']);
    await db.query(`delete from ledger_entries where id = 8`);
    await db.query(`update wallets set balance_minor = 6000 where partner_id = 1`);
    await db.query(`update orders set status = 'processing' where id = 3`);
    expect(await checks()).toEqual(['sql:net_payments_vs_completed', 'sql:stuck']);
  });
});
