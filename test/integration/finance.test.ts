import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, count, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client';
import { ledgerEntries, operatorActions, orders, transfers } from '../../src/db/schema';
import { account } from '../../src/domain/money/books';
import { completeOrder, debitForOrder, reversePayment } from '../../src/domain/money/payment-ledger';
import { reconcile } from '../../src/domain/money/reconcile';
import { settleRefund } from '../../src/domain/refunds';
import { accountMovement } from '../../src/domain/reports/books';
import { statementPeriod } from '../../src/domain/money/statements';
import { listen } from '../../src/platform/listen';
import { call, newPartner, operatorToken, type Reply } from '../support/clients';
import { captureLogs } from '../support/logs';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/**
 * What finance closes a month with, over the admin API and the CLI: the partners list and
 * enabling one again, manual adjustments (a second operator above the threshold), the trial
 * balance, the exchange differences, the audit with filters and pages, the operators' view
 * of partners near their limit, and a partner's statement.
 */
let stack: TestStack;
useStack((s) => (stack = s));

const today = () => new Date().toISOString().slice(0, 10);

/** The admin API as the named operator (made on first use), or as the bootstrap token. */
async function as(operator: string | null) {
  const auth = { authorization: `Bearer ${operator === null ? ADMIN_TOKEN : await operatorToken(stack, operator)}` };
  return {
    get: (p: string) => call(stack.admin, 'GET', p, auth),
    post: (p: string, body: unknown = {}, headers: Record<string, string> = {}) => call(stack.admin, 'POST', p, { ...auth, ...headers }, body),
  };
}

/** The admin CLI run as an operator types it, against the stack's admin API on a socket. */
async function cli(operator: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const server = await listen(stack.admin.fetch, 0, '127.0.0.1');
  try {
    return await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/admin.ts'), ...args], {
      env: { ...process.env, ADMIN_URL: server.url, ADMIN_TOKEN: await operatorToken(stack, operator) },
      encoding: 'latin1',
    }).then(
      (out) => ({ code: 0, stdout: out.stdout, stderr: out.stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  } finally {
    await server.close();
  }
}

/** What the database holds of a partner's money: its ledger rows, transfers and adjustments. */
async function moneyRows(partnerId: number) {
  const n = async (q: Promise<Array<{ n: number }>>) => (await q)[0]!.n;
  return {
    ledger: await n(stack.db.select({ n: count() }).from(ledgerEntries).where(eq(ledgerEntries.partnerId, partnerId))),
    transfers: await n(
      stack.db
        .select({ n: count() })
        .from(transfers)
        .where(sql`${transfers.debitAccount} = ${account.wallet(partnerId)} or ${transfers.creditAccount} = ${account.wallet(partnerId)}`),
    ),
    adjustments: Number(rowsOf<{ n: string }>(await stack.db.execute(sql`select count(*) as n from wallet_adjustments where partner_id = ${partnerId}`))[0]!.n),
  };
}

const csvRows = (csv: string) =>
  csv
    .trim()
    .split('\r\n')
    .map((l) => l.split(','));

const minor = (decimal: string) => Math.round(Number(decimal) * 100);

/** Each query of `bad` on the list at `path` answered 400 in the admin API's error shape. */
async function refusesEach(admin: { get(path: string): Promise<{ status: number; body: unknown }> }, path: string, bad: string[]): Promise<void> {
  for (const query of bad) {
    const res = await admin.get(`${path}?${query}`);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(res.body).toEqual({ error: expect.any(String) });
  }
}

/** An order of the partner, paid from its wallet by the books' own debit (priced in GBP at the supplier when `foreign`). */
async function paidOrder(partnerId: number, total: number, margin: number, key: string, foreign?: { amount: number; rate: number }, complete = true) {
  const [order] = await stack.db
    .insert(orders)
    .values({
      partnerId,
      service: 'hotel',
      totalPrice: total,
      currency: 'IRT',
      paymentMethod: 'PARTNER_CREDIT',
      supplier: foreign ? 'duffel' : 'simulator',
      netPrice: total - margin,
      margin,
      ...(foreign ? { supplierAmount: foreign.amount, supplierCurrency: 'GBP', fxRateAmount: foreign.rate, fxRateScale: 4 } : {}),
    })
    .returning();
  const run = { workflowId: `finance-${key}`, runId: 'r1' };
  await debitForOrder(stack.db, { ...run, orderId: order!.id, partnerId });
  if (complete) await completeOrder(stack.db, { ...run, orderId: order!.id, supplierRef: `REF-${key}` });
  return { orderId: order!.id, run };
}

describe('partner list and enable', () => {
  it('lists partners by status and name, a page at a time, with their wallets and no credential', async () => {
    const admin = await as(null);
    const tag = `Listed ${Date.now()}`;
    const a = await newPartner(stack, '1000', '250');
    const b = await newPartner(stack, '0', '0');
    // Named for this test, so that others' partners do not count.
    await stack.db.execute(sql`update partners set name = ${tag} || ' ' || id where id in (${a.creds.partner_id}, ${b.creds.partner_id})`);
    expect((await admin.post(`/admin/partners/${b.creds.partner_id}/disable`)).status).toBe(200);

    const all = await admin.get(`/admin/partners?name=${encodeURIComponent(tag.toLowerCase())}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ count: 2, page: 1, next_page: null });
    expect(all.body.results).toEqual([
      {
        id: a.creds.partner_id,
        name: `${tag} ${a.creds.partner_id}`,
        status: 'active',
        created_at: expect.any(String),
        rate_limit_per_minute: null,
        parent_id: null,
        wallet: { balance: '250.00', credit_limit: '1000.00', available: '1250.00', currency: 'IRT' },
      },
      expect.objectContaining({ id: b.creds.partner_id, status: 'disabled' }),
    ]);
    for (const secret of [a.creds.api_secret, a.creds.agency_key, a.creds.api_key]) expect(JSON.stringify(all.body)).not.toContain(secret);

    const disabled = await admin.get(`/admin/partners?status=disabled&name=${encodeURIComponent(tag)}`);
    expect(disabled.body.results.map((p: { id: number }) => p.id)).toEqual([b.creds.partner_id]);
    const first = await admin.get(`/admin/partners?name=${encodeURIComponent(tag)}&page_size=1`);
    expect(first.body).toMatchObject({ count: 2, page_size: 1, next_page: 2, results: [expect.objectContaining({ id: a.creds.partner_id })] });
    const second = await admin.get(`/admin/partners?name=${encodeURIComponent(tag)}&page_size=1&page=2`);
    expect(second.body).toMatchObject({ next_page: null, results: [expect.objectContaining({ id: b.creds.partner_id })] });
    // A wildcard in the name is taken literally.
    expect((await admin.get('/admin/partners?name=%25')).body.count).toBe(0);

    await refusesEach(admin, '/admin/partners', ['status=gone', 'page=0', 'page_size=0', 'page_size=501', 'page=x', `name=${'n'.repeat(201)}`]);
  });

  it('enables a disabled partner again, audited with the operator, and its credentials work at once', async () => {
    const p = await newPartner(stack);
    const alice = await as('alice');
    expect((await alice.post(`/admin/partners/${p.creds.partner_id}/disable`)).status).toBe(200);
    expect((await p.api.get('/api/partners/wallet/')).status).toBe(401);

    const enabled = await alice.post(`/admin/partners/${p.creds.partner_id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual({ partner_id: p.creds.partner_id, status: 'active' });
    expect((await p.api.get('/api/partners/wallet/')).status).toBe(200);
    const [row] = await stack.db
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.target, `partners/${p.creds.partner_id}/enable`));
    expect(row).toMatchObject({ operator: 'alice', action: 'partners/:id/enable' });

    expect((await alice.post('/admin/partners/999999/enable')).status).toBe(404);
    expect((await alice.post('/admin/partners/abc/enable')).status).toBe(400);
  });

  it('lists and enables through the CLI', async () => {
    const p = await newPartner(stack);
    const tag = `Cli listed ${Date.now()}`;
    await stack.db.execute(sql`update partners set name = ${tag} where id = ${p.creds.partner_id}`);
    expect((await cli('cli-finance', 'partner', 'disable', '--partner', String(p.creds.partner_id))).code).toBe(0);

    const listed = await cli('cli-finance', 'partner', 'list', '--status', 'disabled', '--name', tag, '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ count: 1, results: [{ id: p.creds.partner_id, status: 'disabled' }] });

    const enabled = await cli('cli-finance', 'partner', 'enable', '--partner', String(p.creds.partner_id), '--json');
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toEqual({ partner_id: p.creds.partner_id, status: 'active' });
    expect((await p.api.get('/api/partners/wallet/')).status).toBe(200);

    const refused = await cli('cli-finance', 'partner', 'list', '--status', 'gone');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error \(400\): status: must be active or disabled/);
  });
});

describe('manual adjustments', () => {
  it('posts one up to the threshold at once, double-entry, audited, in the partner’s ledger and statement', async () => {
    const p = await newPartner(stack, '0', '1000');
    const alice = await as('alice');
    const up = await alice.post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '+125.50', reason: 'hotel overcharged in October' });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      partner_id: p.creds.partner_id,
      amount: '125.50',
      currency: 'IRT',
      status: 'posted',
      proposed_by: 'alice',
      approved_by: null,
      ledger_entry_id: expect.any(Number),
      wallet: { balance: '1125.50' },
    });
    const down = await alice.post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '-25.50', reason: 'bank fee passed on' });
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ amount: '-25.50', status: 'posted', wallet: { balance: '1100.00' } });

    // The books: one transfer each between adjustments:IRT and the wallet.
    const posted = await stack.db.select().from(transfers).where(eq(transfers.kind, 'adjustment'));
    expect(posted.filter((t) => t.ledgerEntryId === up.body.ledger_entry_id)).toEqual([
      expect.objectContaining({ debitAccount: 'adjustments:IRT', creditAccount: account.wallet(p.creds.partner_id), amount: 125_50 }),
    ]);
    expect(posted.filter((t) => t.ledgerEntryId === down.body.ledger_entry_id)).toEqual([
      expect.objectContaining({ debitAccount: account.wallet(p.creds.partner_id), creditAccount: 'adjustments:IRT', amount: 25_50 }),
    ]);

    // The partner sees them in its ledger and its statement.
    const ledger = await p.api.get('/api/partners/ledger/');
    expect(ledger.body.data.results.slice(0, 2)).toEqual([
      expect.objectContaining({ type: 'adjustment', direction: 'debit', amount: '25.50', balance_after: '1100.00' }),
      expect.objectContaining({ type: 'adjustment', direction: 'credit', amount: '125.50', balance_after: '1125.50' }),
    ]);
    const statement = await p.api.get(`/api/partners/statements/?from=${today()}&to=${today()}`);
    expect(statement.body.data.movements.map((m: { description: string }) => m.description)).toEqual([
      expect.stringMatching(/^Top-up/),
      `Adjustment (adjustment ${up.body.id}: hotel overcharged in October)`,
      `Adjustment (adjustment ${down.body.id}: bank fee passed on)`,
    ]);

    const audit = await stack.db
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.target, `partners/${p.creds.partner_id}/adjustments`));
    expect(audit.map((a) => [a.operator, a.reason])).toEqual([
      ['alice', 'hotel overcharged in October'],
      ['alice', 'bank fee passed on'],
    ]);
    const report = await (await as(null)).get('/admin/reconcile');
    expect(report.body).toMatchObject({ ok: true, findings: [] });
  });

  it('above the threshold only proposes; the proposer cannot approve; another operator posts it once', async () => {
    const p = await newPartner(stack, '0', '0');
    // The threshold is a setting: 100.00 on this app.
    const app = stack.adminWith({ adjustmentApprovalThresholdMinor: 100_00 });
    const tokens = { alice: await operatorToken(stack, 'alice'), bob: await operatorToken(stack, 'bob') };
    const by = (who: keyof typeof tokens) => ({
      post: (p: string, body: unknown = {}) => call(app, 'POST', p, { authorization: `Bearer ${tokens[who]}` }, body),
    });

    const atThreshold = await by('alice').post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '100', reason: 'at the threshold' });
    expect(atThreshold.body).toMatchObject({ status: 'posted', wallet: { balance: '100.00' } });
    const before = await moneyRows(p.creds.partner_id);
    const proposed = await by('alice').post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '100.01', reason: 'refund owed by hand' });
    expect(proposed.status).toBe(200);
    expect(proposed.body).toMatchObject({ status: 'proposed', ledger_entry_id: null, posted_at: null, wallet: { balance: '100.00' } });
    // Proposed: nothing moved.
    expect(await moneyRows(p.creds.partner_id)).toEqual({ ...before, adjustments: before.adjustments + 1 });

    const own = await by('alice').post(`/admin/adjustments/${proposed.body.id}/approve`);
    expect(own.status).toBe(403);
    expect(own.body.error).toMatch(/another operator must approve it/);
    expect((await p.api.wallet()).balance).toBe('100.00');

    const listed = await (await as(null)).get(`/admin/adjustments?partner=${p.creds.partner_id}&status=proposed`);
    expect(listed.body.results.map((a: { id: number }) => a.id)).toEqual([proposed.body.id]);

    const approved = await by('bob').post(`/admin/adjustments/${proposed.body.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'posted', proposed_by: 'alice', approved_by: 'bob', posted_now: true, wallet: { balance: '200.01' } });
    const again = await by('bob').post(`/admin/adjustments/${proposed.body.id}/approve`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'posted', approved_by: 'bob', posted_now: false, ledger_entry_id: approved.body.ledger_entry_id });
    expect((await p.api.wallet()).balance).toBe('200.01');
    expect(await moneyRows(p.creds.partner_id)).toEqual({ ledger: before.ledger + 1, transfers: before.transfers + 1, adjustments: before.adjustments + 1 });

    // Concurrent approvals by two operators post it once.
    const racing = await by('alice').post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '-150', reason: 'duplicate top-up' });
    const carol = await operatorToken(stack, 'carol');
    const answers = await Promise.all(
      [tokens.bob, carol, tokens.bob, carol].map((t) =>
        call(app, 'POST', `/admin/adjustments/${racing.body.id}/approve`, { authorization: `Bearer ${t}` }, {}),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.posted_now)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.ledger_entry_id)).size).toBe(1);
    expect((await p.api.wallet()).balance).toBe('50.01');
    const rows = await stack.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.partnerId, p.creds.partner_id), eq(ledgerEntries.type, 'adjustment')));
    expect(rows).toHaveLength(3);
    expect((await (await as(null)).get('/admin/reconcile')).body).toMatchObject({ ok: true });
  });

  it('measures an adjustment of a wallet in another currency against the threshold in the engine’s currency', async () => {
    const app = stack.adminWith({ adjustmentApprovalThresholdMinor: 1_000_000_00 });
    const alice = await operatorToken(stack, 'alice');
    const post = (path: string, body: unknown) => call(app, 'POST', path, { authorization: `Bearer ${alice}` }, body);
    const made = await post('/admin/partners', { name: 'Euro Adjusted', currency: 'EUR', credit_limit: '0', topup: '0' });
    expect(made.status).toBe(201);
    const adjust = (amount: string) => post(`/admin/partners/${made.body.partner_id}/adjustments`, { amount, reason: 'correction' });
    // No EUR rate either way: nothing can be measured, so a second operator looks.
    expect((await adjust('1')).body).toMatchObject({ status: 'proposed', currency: 'EUR' });
    // 1 EUR = 50,000 IRT: the threshold of 1,000,000 IRT is 20 EUR.
    expect((await post('/admin/fx', { from: 'EUR', to: 'IRT', rate: '50000' })).status).toBe(201);
    expect((await adjust('20')).body).toMatchObject({ status: 'posted' });
    expect((await adjust('20.01')).body).toMatchObject({ status: 'proposed' });
    expect((await adjust('-20.01')).body).toMatchObject({ status: 'proposed' });
  });

  it('answers bad input 4xx and writes nothing', async () => {
    const p = await newPartner(stack, '100', '50');
    const admin = await as('alice');
    const before = await moneyRows(p.creds.partner_id);
    const audits = async () => (await stack.db.select({ n: count() }).from(operatorActions))[0]!.n;
    const auditsBefore = await audits();
    const cases: Array<[string, string, unknown, number]> = [
      ['not an amount', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: 'abc', reason: 'typo' }, 400],
      ['zero', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '0', reason: 'nothing' }, 400],
      ['two signs', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '--5', reason: 'typo' }, 400],
      ['three decimals', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '1.005', reason: 'typo' }, 400],
      ['too large', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '1e30', reason: 'typo' }, 400],
      ['no reason', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '5' }, 400],
      ['a blank reason', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '5', reason: '   ' }, 400],
      ['a reason too long', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '5', reason: 'x'.repeat(501) }, 400],
      ['not JSON', `/admin/partners/${p.creds.partner_id}/adjustments`, '{', 400],
      ['no such partner', '/admin/partners/999999/adjustments', { amount: '5', reason: 'nobody' }, 404],
      ['past the credit limit', `/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '-150.01', reason: 'too much' }, 409],
      ['no such adjustment', '/admin/adjustments/999999/approve', {}, 404],
      ['not an id', '/admin/adjustments/x/approve', {}, 400],
    ];
    for (const [label, p2, body, status] of cases) {
      const res = await admin.post(p2, body);
      expect({ label, status: res.status }).toEqual({ label, status });
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect(await moneyRows(p.creds.partner_id)).toEqual(before);
    expect(await audits()).toBe(auditsBefore);
    for (const q of ['status=gone', 'partner=x', 'page=0']) expect((await admin.get(`/admin/adjustments?${q}`)).status).toBe(400);
  });

  it('moves credit alerts as any other movement', async () => {
    const p = await newPartner(stack, '1000', '0');
    const admin = await as('alice');
    expect((await admin.post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '-700', reason: 'chargeback' })).status).toBe(200);
    const feed = await p.api.get('/api/partners/events/?type=wallet.low_balance');
    expect(feed.body.data.results.map((e: { data: { threshold: number } }) => e.data.threshold)).toEqual([40]);
  });

  it('adjusts and approves through the CLI, a negative amount as typed', async () => {
    const p = await newPartner(stack, '0', '5000000');
    const proposed = await cli(
      'cli-alice',
      'wallet',
      'adjust',
      '--partner',
      String(p.creds.partner_id),
      '--amount',
      '-1000000.01',
      '--reason',
      'duplicate top-up',
      '--json',
    );
    expect(proposed.code).toBe(0);
    const made = JSON.parse(proposed.stdout);
    // Above the default threshold (ADJUSTMENT_APPROVAL_THRESHOLD, 1000000).
    expect(made).toMatchObject({ amount: '-1000000.01', status: 'proposed', proposed_by: 'cli-alice' });

    const own = await cli('cli-alice', 'wallet', 'approve', '--adjustment', String(made.id));
    expect(own.code).toBe(1);
    expect(own.stderr).toMatch(/error \(403\): adjustment \d+ was proposed by cli-alice/);
    const approved = await cli('cli-bob', 'wallet', 'approve', '--adjustment', String(made.id), '--json');
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'posted', approved_by: 'cli-bob', wallet: { balance: '3999999.99' } });

    const small = await cli('cli-alice', 'wallet', 'adjust', '--partner', String(p.creds.partner_id), '--amount', '12', '--reason', 'goodwill', '--json');
    expect(JSON.parse(small.stdout)).toMatchObject({ status: 'posted', wallet: { balance: '4000011.99' } });
    const listed = await cli('cli-alice', 'wallet', 'adjustments', '--partner', String(p.creds.partner_id), '--json');
    expect(JSON.parse(listed.stdout)).toMatchObject({ count: 2 });
    expect((await cli('cli-alice', 'wallet', 'adjust', '--partner', String(p.creds.partner_id), '--amount', '5')).stderr).toMatch(/--reason is required/);
  });
});

describe('trial balance and exchange differences', () => {
  /** Payments, a reversal, refunds (one at a better rate than the sale's), top-ups, a credit change and adjustments on one partner. */
  async function mixedBooks() {
    const p = await newPartner(stack, '500000', '1000000');
    const id = p.creds.partner_id;
    const key = `${id}-${Date.now()}`;
    await paidOrder(id, 110_00, 10_00, `${key}-1`);
    const reversed = await paidOrder(id, 220_00, 20_00, `${key}-2`, undefined, false);
    await reversePayment(stack.db, { ...reversed.run, orderId: reversed.orderId, reason: 'the supplier said no' });
    // Net 300.00 IRT: 250.00 GBP at 1.2.
    const foreign = await paidOrder(id, 330_00, 30_00, `${key}-3`, { amount: 250_00, rate: 12_000 });
    // The supplier refunds 200.00 GBP, 240.00 IRT at the sale's rate and worth 250.00 IRT today.
    await settleRefund(stack.db, {
      workflowId: `finance-${key}-3r`,
      runId: 'r',
      orderId: foreign.orderId,
      amountMinor: 200_00,
      step: 'refund',
      settledStatus: 'refunded',
      from: ['processing', 'completed'],
      note: 'refund',
      supplierRefund: { amount: { amount_minor: 200_00, currency: 'GBP' }, valuedMinor: 250_00 },
    });
    const admin = await as('alice');
    await admin.post(`/admin/partners/${id}/adjustments`, { amount: '-40.25', reason: 'fee' });
    await admin.post(`/admin/partners/${id}/adjustments`, { amount: '15', reason: 'goodwill' });
    await admin.post(`/admin/partners/${id}/topup`, { amount: '75' });
    await admin.post(`/admin/partners/${id}/credit-limit`, { amount: '600000' });
    return { partnerId: id, refundedOrder: foreign.orderId };
  }

  it('lists every account’s debits, credits and balance, summing to zero per currency', async () => {
    const { partnerId } = await mixedBooks();
    const res = await (await as(null)).get(`/admin/reports/trial-balance?from=${today()}&to=${today()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="trial-balance-${today()}-to-${today()}.csv"`);
    const [header, ...rows] = csvRows(res.body as string);
    expect(header).toEqual(['currency', 'account', 'kind', 'opening', 'debits', 'credits', 'balance']);
    const accounts = rows.filter((r) => r[1] !== 'total');
    const totals = rows.filter((r) => r[1] === 'total');
    expect(totals.map((t) => t[0])).toEqual(expect.arrayContaining(['GBP', 'IRT']));
    for (const [currency, , , opening, debits, credits, balance] of totals) {
      const mine = accounts.filter((r) => r[0] === currency);
      expect({ currency, balance }).toEqual({ currency, balance: '0.00' });
      expect(debits).toBe(credits);
      const sum = (i: number) => mine.reduce((s, r) => s + minor(r[i]!), 0);
      expect([sum(3), sum(4), sum(5), sum(6)]).toEqual([minor(opening!), minor(debits!), minor(credits!), 0]);
      for (const r of mine) expect(minor(r[6]!)).toBe(minor(r[3]!) + minor(r[5]!) - minor(r[4]!));
    }
    // Each account as the books hold it: the partner's wallet and credit line, and the adjustments made.
    const byCode = Object.fromEntries(accounts.map((r) => [r[1], r]));
    const wallet = await (await as(null)).get(`/admin/partners/${partnerId}/wallet`);
    expect(byCode[account.wallet(partnerId)]![6]).toBe(wallet.body.balance);
    expect(byCode[account.creditLine(partnerId)]![6]).toBe(wallet.body.credit_limit);
    expect(byCode['adjustments:IRT']![2]).toBe('adjustments');
    const [fx] = rowsOf<{ b: string }>(
      await stack.db.execute(sql`select coalesce(sum(case when credit_account = 'fx_differences:IRT' then amount_minor else -amount_minor end), 0) as b
        from transfers where 'fx_differences:IRT' in (credit_account, debit_account)`),
    );
    expect(minor(byCode['fx_differences:IRT']![6]!)).toBe(Number(fx!.b));

    // A period before any of it: every account opens and closes where it stood, nothing moved.
    const early = await (await as(null)).get('/admin/reports/trial-balance?from=2020-01-01&to=2020-01-31');
    expect(csvRows(early.body as string)).toEqual([['currency', 'account', 'kind', 'opening', 'debits', 'credits', 'balance']]);

    for (const bad of [
      '',
      `?from=${today()}`,
      `?to=${today()}`,
      '?from=2026-13-01&to=2026-13-02',
      '?from=2026-02-02&to=2026-02-01',
      '?from=2020-01-01&to=2026-01-01',
    ]) {
      const r = await (await as(null)).get(`/admin/reports/trial-balance${bad}`);
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
    }
    const report = await (await as(null)).get('/admin/reconcile');
    expect(report.body).toMatchObject({ ok: true, findings: [] });
  });

  it('reports what the books posted to fx_differences, with the orders it came from', async () => {
    const { partnerId, refundedOrder } = await mixedBooks();
    const res = await (await as(null)).get(`/admin/reports/fx-differences?from=${today()}&to=${today()}`);
    expect(res.status).toBe(200);
    const [header, ...rows] = csvRows(res.body as string);
    expect(header).toEqual([
      'date',
      'transfer_id',
      'ledger_entry_id',
      'order_id',
      'partner_id',
      'service',
      'supplier',
      'supplier_currency',
      'currency',
      'amount',
    ]);
    const mine = rows.filter((r) => r[3] === String(refundedOrder));
    // Worth 10.00 IRT more today than at the sale's rate: the books gave the partner's wallet 10.00 from fx_differences.
    expect(mine).toEqual([
      [today(), expect.any(String), expect.any(String), String(refundedOrder), String(partnerId), 'hotel', 'duffel', 'GBP', 'IRT', '-10.00'],
    ]);
    const total = rows.find((r) => r[0] === 'total');
    const movement = await accountMovement(stack.db, 'fx_differences:IRT', statementPeriod(today(), today()));
    expect(total).toEqual(['total', '', '', '', '', '', '', '', 'IRT', (movement / 100).toFixed(2)]);
    expect(minor(total![9]!)).toBe(rows.filter((r) => r[0] !== 'total').reduce((s, r) => s + minor(r[9]!), 0));
    expect((await (await as(null)).get(`/admin/reports/fx-differences?from=${today()}`)).status).toBe(400);
  });

  it('runs both reports through the CLI', async () => {
    await mixedBooks();
    const trial = await cli('cli-finance', 'report', 'trial-balance', '--from', today(), '--to', today());
    expect(trial.code).toBe(0);
    const totals = csvRows(trial.stdout).filter((r) => r[1] === 'total');
    expect(totals.length).toBeGreaterThan(0);
    for (const t of totals) expect(t[6]).toBe('0.00');
    const fx = await cli('cli-finance', 'report', 'fx-differences', '--from', today(), '--to', today());
    expect(fx.code).toBe(0);
    expect(fx.stdout).toMatch(/^date,transfer_id,ledger_entry_id,order_id,/);
    expect(fx.stdout).toMatch(/,hotel,duffel,GBP,IRT,-10\.00\r\n/);
  });

  it('reconcile finds an adjustment whose transfer does not match its ledger row, and an adjustment row nobody made', async () => {
    const p = await newPartner(stack, '0', '100');
    const made = await (await as('alice')).post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '10', reason: 'goodwill' });
    const found = await stack.db
      .transaction(async (tx) => {
        // Tampered with by hand, and rolled back below: the transfer says 9.00, the ledger row
        // 10.00; a bare adjustment row; and, past the foreign keys, the wallet's account moved
        // to another currency, so that neither currency's trial balance sums to zero.
        await tx.execute(sql`update transfers set amount_minor = 900 where ledger_entry_id = ${made.body.ledger_entry_id}`);
        await tx.execute(
          sql`insert into ledger_entries (partner_id, direction, type, amount_minor, balance_after_minor) values (${p.creds.partner_id}, 'credit', 'adjustment', 1, 0)`,
        );
        await tx.execute(sql`set local session_replication_role = replica`);
        await tx.execute(sql`update accounts set currency = 'EUR' where code = ${account.wallet(p.creds.partner_id)}`);
        const { findings } = await reconcile(tx, new Date(), 60_000);
        throw Object.assign(new Error('rolled back'), { findings });
      })
      .catch((err: { findings?: Array<{ kind: string; detail: string }> }) => err.findings);
    expect(found!.filter((f) => f.kind === 'trial_balance_not_zero').map((f) => f.detail)).toEqual([
      expect.stringMatching(/^the trial balance in EUR sums to 1\d\d\.00 \(debits/),
      expect.stringMatching(/^the trial balance in IRT sums to -1\d\d\.00 \(debits/),
    ]);
    expect(found!.filter((f) => f.kind === 'adjustment_not_posted').map((f) => f.detail)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^adjustment ${made.body.id} of 10.00: its ledger row \\d+ has 1 transfers moving wallet:${p.creds.partner_id} against adjustments:IRT by 9.00`,
        ),
      ),
      expect.stringMatching(/^ledger row \d+ is an adjustment no operator made/),
    ]);
    expect((await (await as(null)).get('/admin/reconcile')).body).toMatchObject({ ok: true });
  });
});

describe('audit', () => {
  it('filters by operator, target prefix and days, with pages past the newest 100', async () => {
    const p = await newPartner(stack);
    const other = await newPartner(stack);
    const dave = await as('dave');
    const erin = await as('erin');
    await dave.post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: '1', note: 'one' });
    await erin.post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: '2', note: 'two' });
    await dave.post(`/admin/partners/${other.creds.partner_id}/topup`, { amount: '3', note: 'three' });
    // Older actions, written directly: 120 of dave's from two days ago.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    await stack.db.insert(operatorActions).values(
      Array.from({ length: 120 }, (_, i) => ({
        operator: 'dave',
        action: 'partners/:id/disable',
        target: `partners/${p.creds.partner_id}/disable`,
        at: twoDaysAgo,
        reason: `old ${i}`,
      })),
    );
    const admin = await as(null);

    const mine = await admin.get(`/admin/audit?target=${encodeURIComponent(`partners/${p.creds.partner_id}/`)}&from=${today()}&to=${today()}`);
    expect(mine.status).toBe(200);
    expect(mine.body.results.map((r: { reason: string }) => r.reason)).toEqual(['two', 'one']);
    const daves = await admin.get(`/admin/audit?operator=dave&from=${today()}`);
    expect(daves.body.results.map((r: { reason: string }) => r.reason)).toEqual(['three', 'one']);
    expect(daves.body.results.every((r: { operator: string }) => r.operator === 'dave')).toBe(true);

    // All of dave's on this partner: 121, the newest 100 first, then the rest.
    const q = `operator=dave&target=${encodeURIComponent(`partners/${p.creds.partner_id}/`)}`;
    const first = await admin.get(`/admin/audit?${q}`);
    expect(first.body).toMatchObject({ count: 121, page: 1, page_size: 100, next_page: 2 });
    expect(first.body.results).toHaveLength(100);
    expect(first.body.results[0].reason).toBe('one');
    const second = await admin.get(`/admin/audit?${q}&page=2`);
    expect(second.body).toMatchObject({ count: 121, next_page: null });
    expect(second.body.results).toHaveLength(21);
    expect(new Set([...first.body.results, ...second.body.results].map((r: { id: number }) => r.id)).size).toBe(121);
    const small = await admin.get(`/admin/audit?${q}&page_size=7&page=3`);
    expect(small.body.results.map((r: { id: number }) => r.id)).toEqual(first.body.results.slice(14, 21).map((r: { id: number }) => r.id));
    const old = await admin.get(`/admin/audit?${q}&to=${twoDaysAgo.toISOString().slice(0, 10)}`);
    expect(old.body.count).toBe(120);
    // A LIKE wildcard is taken as itself.
    expect((await admin.get('/admin/audit?target=%25')).body.count).toBe(0);

    await refusesEach(admin, '/admin/audit', [
      'from=yesterday',
      'to=2026-02-30',
      'from=2026-02-02&to=2026-02-01',
      'page=0',
      'page_size=1001',
      `operator=${'o'.repeat(65)}`,
    ]);
  });

  it('filters through the CLI', async () => {
    const p = await newPartner(stack);
    await (await as('frank')).post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: '1', note: 'by frank' });
    await (await as('grace')).post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: '1', note: 'by grace' });
    const out = await cli(
      'cli-finance',
      'audit',
      '--operator',
      'frank',
      '--target',
      `partners/${p.creds.partner_id}/`,
      '--from',
      today(),
      '--page-size',
      '5',
      '--json',
    );
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ count: 1, page_size: 5, results: [{ operator: 'frank', reason: 'by frank' }] });
  });
});

describe('partners near their credit limit, for operators', () => {
  const gauge = (metrics: string) => Number(/^partners_near_limit (\S+)$/m.exec(metrics)?.[1]);

  it('counts them in partners_near_limit and logs each newly near one at warn, following the balances', async () => {
    const admin = await as(null);
    const scrape = async () => (await call(stack.admin, 'GET', '/metrics', { authorization: `Bearer ${ADMIN_TOKEN}` })).body as string;
    const nearNow = async () => (await admin.get('/admin/partners/near-limit')).body.results.length as number;
    await scrape();
    const before = gauge(await scrape());
    expect(before).toBe(await nearNow());

    const p = await newPartner(stack, '1000', '0');
    const logs = captureLogs('warn');
    try {
      await admin.post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '-700', reason: 'chargeback' });
      expect(gauge(await scrape())).toBe(before + 1);
      const warned = logs.records.filter((r) => r.msg === 'partner near its credit limit' && r.partnerId === p.creds.partner_id);
      expect(warned).toEqual([expect.objectContaining({ level: 40, creditLeftPercent: '30.00', below: 40 })]);
      // Once per coming near, not on every scrape.
      await scrape();
      expect(logs.records.filter((r) => r.msg === 'partner near its credit limit' && r.partnerId === p.creds.partner_id)).toHaveLength(1);

      await admin.post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: '700' });
      expect(gauge(await scrape())).toBe(before);
    } finally {
      logs.stop();
    }
  });

  it('follows a movement made through the CLI', async () => {
    const p = await newPartner(stack, '1000', '0');
    const scrape = async () => gauge((await call(stack.admin, 'GET', '/metrics', { authorization: `Bearer ${ADMIN_TOKEN}` })).body as string);
    const before = await scrape();
    expect((await cli('cli-finance', 'wallet', 'adjust', '--partner', String(p.creds.partner_id), '--amount', '-900', '--reason', 'chargeback')).code).toBe(0);
    expect(await scrape()).toBe(before + 1);
    const near = await cli('cli-finance', 'partners', 'near-limit', '--json');
    expect(JSON.parse(near.stdout).results).toContainEqual(expect.objectContaining({ partner_id: p.creds.partner_id, below: 20 }));
  });
});

describe('a partner’s statement for operators', () => {
  it('is the statement the partner downloads, as JSON, CSV and PDF', async () => {
    const p = await newPartner(stack, '0', '500');
    await (await as('alice')).post(`/admin/partners/${p.creds.partner_id}/adjustments`, { amount: '-20', reason: 'fee' });
    const admin = await as(null);
    const q = `from=${today()}&to=${today()}`;

    const json = await admin.get(`/admin/partners/${p.creds.partner_id}/statement?${q}`);
    expect(json.status).toBe(200);
    const own = await p.api.get(`/api/partners/statements/?${q}`);
    expect(json.body).toEqual({ partner_id: p.creds.partner_id, ...own.body.data });
    expect(json.body).toMatchObject({ opening_balance: '0.00', closing_balance: '480.00' });

    const csv = await admin.get(`/admin/partners/${p.creds.partner_id}/statement?${q}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="statement-${p.creds.partner_id}-${today()}-to-${today()}.csv"`);
    expect(csv.body).toBe((await p.api.get(`/api/partners/statements/?${q}&format=csv`)).body);

    const pdf = await stack.admin.request(`http://engine.test/admin/partners/${p.creds.partner_id}/statement?${q}&format=pdf`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const bad: Array<[string, number]> = [
      [`/admin/partners/${p.creds.partner_id}/statement?to=${today()}`, 400],
      [`/admin/partners/${p.creds.partner_id}/statement?from=${today()}`, 400],
      [`/admin/partners/${p.creds.partner_id}/statement?${q}&format=xml`, 400],
      [`/admin/partners/${p.creds.partner_id}/statement?from=2026-02-30&to=2026-03-01`, 400],
      [`/admin/partners/999999/statement?${q}`, 404],
      [`/admin/partners/x/statement?${q}`, 400],
    ];
    for (const [url, status] of bad) {
      const res: Reply = await admin.get(url);
      expect({ url, status: res.status }).toEqual({ url, status });
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('downloads through the CLI', async () => {
    const p = await newPartner(stack, '0', '300');
    const q = `from=${today()}&to=${today()}`;
    const csv = await cli(
      'cli-finance',
      'partner',
      'statement',
      '--partner',
      String(p.creds.partner_id),
      '--from',
      today(),
      '--to',
      today(),
      '--format',
      'csv',
    );
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe((await p.api.get(`/api/partners/statements/?${q}&format=csv`)).body);
    const pdf = await cli(
      'cli-finance',
      'partner',
      'statement',
      '--partner',
      String(p.creds.partner_id),
      '--from',
      today(),
      '--to',
      today(),
      '--format',
      'pdf',
    );
    expect(pdf.code).toBe(0);
    expect(pdf.stdout.slice(0, 5)).toBe('%PDF-');
    const json = await cli('cli-finance', 'partner', 'statement', '--partner', String(p.creds.partner_id), '--from', today(), '--to', today(), '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ partner_id: p.creds.partner_id, closing_balance: '300.00' });
  });
});
