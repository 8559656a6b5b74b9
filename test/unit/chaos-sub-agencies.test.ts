/**
 * The chaos run's checks of the sub-agency chain must be able to fail: a chain whose books
 * add up passes, and a sub-agency spending past its grant, a parent's wallet giving credit
 * no sub-agency holds, and an agency margin posted to another account are each reported.
 * The SQL checks run on the engine's real schema (migrated PGlite).
 */
import { openDatabase, type Database } from '../../src/db/client';
import { PRESETS } from '../../scripts/chaos/options';
import { grantFindings, overspendFindings, subAgencySqlChecks } from '../../scripts/chaos/sub-agency-checks';
import { sqlChecks, type Queryable } from '../../scripts/chaos/verify';
import type { RunRecord } from '../../scripts/chaos/workload';

const row = (id: number, partner_id: number, type: string, direction: string, amount: number, balance_after: number) => ({
  id,
  partner_id,
  type,
  direction,
  amount,
  balance_after,
});

describe('chaos sub-agency helpers', () => {
  test('both presets make a parent with two sub-agencies or more', () => {
    expect(PRESETS.ci.subAgencies).toBeGreaterThanOrEqual(2);
    expect(PRESETS.full.subAgencies).toBeGreaterThanOrEqual(2);
  });

  test('a sub-agency may owe what was granted by then, not more', () => {
    const granted = [row(1, 11, 'credit_grant', 'credit', 2000, 0), row(2, 11, 'payment', 'debit', 1500, -1500)];
    expect(overspendFindings(granted, 't')).toEqual([]);
    // Credit taken back below what it already owes.
    expect(overspendFindings([...granted, row(3, 11, 'credit_grant', 'debit', 1000, -1500)], 't').map((f) => f.check)).toEqual(['t:child_over_grant']);
    // A debit past the grant.
    expect(overspendFindings([...granted, row(3, 11, 'payment', 'debit', 600, -2100)], 't')).toHaveLength(1);
  });

  test('a grant refused or never answered, and an operator granting a sub-agency credit, are findings', () => {
    const run = {
      partners: [{ partner_id: 10 }, { partner_id: 11, parent: 0 }],
      grants: [
        { parent: 0, child: 1, key: 'a', limitMinor: 100, outcome: 'set', status: 200, when: 'prepare' },
        { parent: 0, child: 1, key: 'a', limitMinor: 100, outcome: 'replayed', status: 200, when: 'prepare' },
      ],
      operatorChildCreditStatus: 400,
    } as unknown as RunRecord;
    expect(grantFindings(run)).toEqual([]);
    run.grants!.push({ parent: 0, child: 1, key: 'b', limitMinor: 50, outcome: 'unanswered', status: null, when: 'load' });
    run.grants!.push({ parent: 0, child: 1, key: 'c', limitMinor: 50, outcome: 'insufficient', status: 402, when: 'load' });
    run.operatorChildCreditStatus = 200;
    expect(grantFindings(run).map((f) => f.check)).toEqual(['grant:unanswered', 'grant:refused', 'admin:child_credit']);
  });
});

describe('chaos sub-agency SQL checks on the real schema', () => {
  let database: Database;
  let db: Queryable;
  const run: RunRecord = {
    runId: 't',
    startedAt: '',
    target: 'test',
    partners: [
      { index: 0, partner_id: 10, api_key: 'k', api_secret: 's', tight: false, topupsMinor: 10_000, uncertainTopupsMinor: [], creditLimitMinor: 0 },
      { index: 1, partner_id: 11, api_key: 'k', api_secret: 's', tight: false, topupsMinor: 0, uncertainTopupsMinor: [], creditLimitMinor: 2000, parent: 0 },
      { index: 2, partner_id: 12, api_key: 'k', api_secret: 's', tight: true, topupsMinor: 0, uncertainTopupsMinor: [], creditLimitMinor: 1000, parent: 0 },
    ],
    orders: [{ id: 1, partner: 1, totalMinor: 1500, kind: 'plain' }],
    pays: [],
    decisions: [],
  };
  const ledger = (id: number, partner: number, direction: string, type: string, amount: number, after: number, order: number | null = null) =>
    db.query(
      `insert into ledger_entries (id, partner_id, direction, type, amount_minor, balance_after_minor, order_id, workflow_id, run_id, step)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id, partner, direction, type, amount, after, order, ...(type === 'payment' ? [`pay:p${partner}:key:k${order}`, 'r1', 'debit'] : [null, null, null])],
    );
  const transfer = (entry: number, order: number | null, kind: string, debit: string, credit: string, amount: number) =>
    db.query(
      `insert into transfers (ledger_entry_id, order_id, kind, debit_account, credit_account, currency, amount_minor) values ($1, $2, $3, $4, $5, 'IRT', $6)`,
      [entry, order, kind, debit, credit, amount],
    );
  const checks = async () => (await subAgencySqlChecks(db, run)).findings.map((f) => f.check).sort();

  beforeEach(async () => {
    database = await openDatabase({});
    db = (database.db as unknown as { $client: Queryable }).$client;
    await db.query(`insert into partners (id, name, parent_id) values (10, 'parent', null), (11, 'c1', 10), (12, 'c2', 10)`);
    await db.query(
      `insert into wallets (partner_id, balance_minor, credit_limit_minor, currency) values (10, 7000, 0, 'IRT'), (11, -1500, 2000, 'IRT'), (12, 0, 1000, 'IRT')`,
    );
    for (const code of ['wallet:10', 'wallet:11', 'wallet:12', 'agency_credit:10', 'credit_line:11', 'credit_line:12', 'agency_margin:10', 'margin:IRT'])
      await db.query(`insert into accounts (code, currency) values ($1, 'IRT')`, [code]);
    await db.query(
      `insert into orders (id, partner_id, service, status, total_price_minor, currency, payment_method, net_minor, margin_minor, agency_margin_minor)
       values (1, 11, 'product', 'completed', 1500, 'IRT', 'PARTNER_CREDIT', 1300, 200, 120)`,
    );
    await ledger(1, 10, 'credit', 'topup', 10_000, 10_000);
    await ledger(2, 10, 'debit', 'sub_agency_credit', 2000, 8000);
    await ledger(3, 11, 'credit', 'credit_grant', 2000, 0);
    await transfer(2, null, 'agency_credit', 'wallet:10', 'agency_credit:10', 2000);
    await transfer(3, null, 'credit_grant', 'agency_credit:10', 'credit_line:11', 2000);
    await ledger(4, 10, 'debit', 'sub_agency_credit', 1000, 7000);
    await ledger(5, 12, 'credit', 'credit_grant', 1000, 0);
    await transfer(4, null, 'agency_credit', 'wallet:10', 'agency_credit:10', 1000);
    await transfer(5, null, 'credit_grant', 'agency_credit:10', 'credit_line:12', 1000);
    await db.query(`insert into payment_keys (partner_id, idempotency_key, order_id) values (11, 'k1', 1)`);
    await ledger(6, 11, 'debit', 'payment', 1500, -1500, 1);
    await transfer(6, 1, 'sale_margin', 'wallet:11', 'margin:IRT', 80);
    await transfer(6, 1, 'agency_margin', 'wallet:11', 'agency_margin:10', 120);
  });
  afterEach(async () => {
    await database.close();
  });

  test('a chain whose books add up passes', async () => {
    expect(await subAgencySqlChecks(db, run)).toEqual({ findings: [], checked: { parents: 1, sub_agency_ledger_rows: 3 } });
  });

  test("the run's other checks read a parent's grants as money that left its wallet, and a sub-agency's as its credit", async () => {
    expect((await sqlChecks(db, run)).findings).toEqual([]);
  });

  test("an agency margin posted to the company's margin account is found", async () => {
    await db.query(`update transfers set credit_account = 'margin:IRT' where kind = 'agency_margin'`);
    expect(await checks()).toEqual(['sql:agency_margin']);
  });

  test('a sub-agency that spent past what was granted by then is found, though a later grant covers it now', async () => {
    await db.query(
      `insert into orders (id, partner_id, service, status, total_price_minor, currency, payment_method) values (2, 12, 'product', 'completed', 1200, 'IRT', 'PARTNER_CREDIT')`,
    );
    await ledger(7, 12, 'debit', 'payment', 1200, -1200, 2);
    await ledger(8, 10, 'debit', 'sub_agency_credit', 500, 6500);
    await ledger(9, 12, 'credit', 'credit_grant', 500, -1200);
    await transfer(8, null, 'agency_credit', 'wallet:10', 'agency_credit:10', 500);
    await transfer(9, null, 'credit_grant', 'agency_credit:10', 'credit_line:12', 500);
    await db.query(`update wallets set credit_limit_minor = 1500 where partner_id = 12`);
    await db.query(`update wallets set balance_minor = -1200 where partner_id = 12`);
    await db.query(`update wallets set balance_minor = 6500 where partner_id = 10`);
    const later = { ...run, partners: run.partners.map((p) => (p.partner_id === 12 ? { ...p, creditLimitMinor: 1500 } : p)) };
    expect((await subAgencySqlChecks(db, later)).findings.map((f) => f.check)).toEqual(['sql:child_over_grant']);
  });

  test("credit that left the parent's wallet for no sub-agency is found, and so is the parent's available credit", async () => {
    await ledger(7, 10, 'debit', 'sub_agency_credit', 500, 6500);
    await transfer(7, null, 'agency_credit', 'wallet:10', 'agency_credit:10', 500);
    await db.query(`update wallets set balance_minor = 6500 where partner_id = 10`);
    expect(await checks()).toEqual(['sql:agency_credit', 'sql:parent_available', 'sql:parent_grants']);
  });
});
