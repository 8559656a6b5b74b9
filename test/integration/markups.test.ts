import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { count, eq } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { operatorActions, pricingRules } from '../../src/db/schema';
import { markupFor } from '../../src/domain/money/markup-rules';
import { listen } from '../../src/platform/listen';
import { call, newPartner, operatorToken } from '../support/clients';
import { CURRENCY, type TestStack, useStack } from '../support/stack';

/** Markups: the admin API and CLI that keep the rules, and the rule that prices a sale. */

let stack: TestStack;
useStack((s) => (stack = s));

const admin = (operator = 'dana') => {
  const headers = async () => ({ authorization: `Bearer ${await operatorToken(stack, operator)}` });
  return {
    get: async (p: string) => call(stack.admin, 'GET', p, await headers()),
    post: async (p: string, body: unknown) => call(stack.admin, 'POST', p, await headers(), body),
    delete: async (p: string) => call(stack.admin, 'DELETE', p, await headers()),
  };
};
const ruleRows = async () => (await stack.db.select({ n: count() }).from(pricingRules))[0]!.n;

describe('POST, GET and DELETE /admin/markups', () => {
  it('sets a rule from decimals, lists it, removes it softly, and audits each change with the operator', async () => {
    const { creds } = await newPartner(stack);
    const set = await admin('dana').post('/admin/markups', {
      service: 'hotels',
      partner: creds.partner_id,
      supplier: 'simulator',
      percent: '7.5',
      fixed: '2.50',
      min_margin: 10,
      from: '2026-01-01',
      to: '2099-12-31',
    });
    expect(set.status).toBe(201);
    expect(set.body).toEqual({
      id: expect.any(Number),
      service: 'hotels',
      partner_id: creds.partner_id,
      supplier: 'simulator',
      percent: '7.5',
      fixed: '2.50',
      min_margin: '10.00',
      currency: CURRENCY,
      from: '2026-01-01',
      to: '2099-12-31',
      created_by: 'dana',
      created_at: expect.any(String),
      removed_at: null,
      removed_by: null,
    });
    const [row] = await stack.db.select().from(pricingRules).where(eq(pricingRules.id, set.body.id));
    expect(row).toMatchObject({ percentHundredths: 750, fixed: 250, minMargin: 1000 });

    const list = await admin().get('/admin/markups');
    expect(list.status).toBe(200);
    expect(list.body.results).toContainEqual(set.body);

    const removed = await admin('omid').delete(`/admin/markups/${set.body.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: set.body.id, removed_by: 'omid', removed_at: expect.any(String) });
    expect((await admin().get('/admin/markups')).body.results.map((r: { id: number }) => r.id)).not.toContain(set.body.id);
    expect((await admin().get('/admin/markups?removed=true')).body.results).toContainEqual(removed.body);
    // Removing it again is a conflict; an unknown rule is not found.
    expect((await admin().delete(`/admin/markups/${set.body.id}`)).status).toBe(409);
    expect((await admin().delete('/admin/markups/999999')).status).toBe(404);
    expect((await admin().delete('/admin/markups/abc')).status).toBe(400);

    const audit = await stack.db.select().from(operatorActions).where(eq(operatorActions.action, 'markups/:id'));
    expect(audit.map((a) => [a.operator, a.target])).toContainEqual(['omid', `markups/${set.body.id}`]);
    const setAudit = await stack.db.select().from(operatorActions).where(eq(operatorActions.target, 'markups'));
    expect(setAudit.map((a) => [a.operator, a.details])).toContainEqual(['dana', expect.objectContaining({ service: 'hotels', percent: '7.5' })]);
  });

  it.each([
    [{}, /service/],
    [{ service: 'cars', percent: '5' }, /service: must be one of/],
    [{ service: 'hotels' }, /at least one of percent, fixed and min_margin/],
    [{ service: 'hotels', percent: '0', fixed: '0' }, /at least one/],
    [{ service: 'hotels', percent: '-5' }, /percent: must be a non-negative decimal/],
    [{ service: 'hotels', percent: '7.555' }, /percent/],
    [{ service: 'hotels', percent: '1001' }, /percent: must be at most 1000/],
    [{ service: 'hotels', fixed: '-1' }, /fixed/],
    [{ service: 'hotels', fixed: '2.505' }, /fixed/],
    [{ service: 'hotels', min_margin: 'ten' }, /min_margin/],
    [{ service: 'hotels', percent: '5', supplier: 'expedia' }, /supplier: must be one of simulator, duffel/],
    [{ service: 'hotels', percent: '5', partner: 999999 }, /partner: no partner 999999/],
    [{ service: 'hotels', percent: '5', partner: 'x' }, /partner: must be a partner id/],
    [{ service: 'hotels', percent: '5', from: '2026-02-30' }, /from: must be a calendar date/],
    [{ service: 'hotels', percent: '5', from: '2026-03-02', to: '2026-03-01' }, /to: must not be before from/],
    [{ service: 'hotels', percent: { x: 1 } }, /percent/],
  ])('refuses %p with a 400 naming the field, writing nothing', async (input, message) => {
    const [before, auditBefore] = [await ruleRows(), (await stack.db.select({ n: count() }).from(operatorActions))[0]!.n];
    const res = await admin().post('/admin/markups', input);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await ruleRows()).toBe(before);
    expect((await stack.db.select({ n: count() }).from(operatorActions))[0]!.n).toBe(auditBefore);
  });

  it('needs the admin token', async () => {
    expect((await call(stack.admin, 'GET', '/admin/markups', {})).status).toBe(401);
    expect((await call(stack.admin, 'POST', '/admin/markups', {}, { service: 'hotels', percent: '5' })).status).toBe(401);
    expect((await call(stack.admin, 'DELETE', '/admin/markups/1', {})).status).toBe(401);
  });

  it('prices a sale with the rule set, at once in this process, and at net once it is removed', async () => {
    const { creds } = await newPartner(stack);
    const sale = { service: 'visa' as const, partnerId: creds.partner_id, supplier: 'simulator', now: new Date() };
    const deps = { db: stack.db, currency: CURRENCY };
    expect((await markupFor(deps, sale)).price(10_000)).toMatchObject({ marginMinor: 0 });
    const set = await admin().post('/admin/markups', { service: 'visa', partner: creds.partner_id, percent: '10' });
    expect((await markupFor(deps, sale)).price(10_000)).toEqual({
      netMinor: 10_000,
      marginMinor: 1_000,
      sellMinor: 11_000,
      ruleId: set.body.id,
      agencyMarginMinor: 0,
    });
    await admin().delete(`/admin/markups/${set.body.id}`);
    expect((await markupFor(deps, sale)).price(10_000)).toMatchObject({ marginMinor: 0, ruleId: null });
  });
});

describe('admin CLI: markup', () => {
  it('maps markup set, list and remove', () => {
    expect(
      toCommand([
        'markup',
        'set',
        '--service',
        'hotels',
        '--partner',
        '3',
        '--supplier',
        'duffel',
        '--percent',
        '7.5',
        '--fixed',
        '2.50',
        '--min-margin',
        '10',
        '--from',
        '2026-01-01',
        '--to',
        '2026-12-31',
      ]),
    ).toEqual({
      json: false,
      command: {
        method: 'POST',
        path: '/admin/markups',
        body: { service: 'hotels', partner: '3', supplier: 'duffel', percent: '7.5', fixed: '2.50', min_margin: '10', from: '2026-01-01', to: '2026-12-31' },
      },
    });
    expect(toCommand(['markup', 'list', '--json'])).toEqual({ json: true, command: { method: 'GET', path: '/admin/markups' } });
    expect(toCommand(['markup', 'list', '--removed'])).toEqual({ json: false, command: { method: 'GET', path: '/admin/markups?removed=true' } });
    expect(toCommand(['markup', 'remove', '4'])).toEqual({ json: false, command: { method: 'DELETE', path: '/admin/markups/4' } });
    expect(() => toCommand(['markup', 'set', '--percent', '5'])).toThrow(/--service is required/);
    expect(() => toCommand(['markup', 'remove'])).toThrow(/rule id/);
    expect(() => toCommand(['markup', 'remove', 'x'])).toThrow(/rule id/);
  });

  it('sets, lists and removes rules against a running admin API, as an operator types it', async () => {
    const server = await listen(stack.admin.fetch, 0, '127.0.0.1');
    const token = await operatorToken(stack, 'cli-markups');
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/admin.ts'), ...args], {
        env: { ...process.env, ADMIN_URL: server.url, ADMIN_TOKEN: token },
      }).then(
        (out) => ({ code: 0, ...out }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    try {
      const set = await run('markup', 'set', '--service', 'tours', '--percent', '4.25', '--fixed', '2.50', '--json');
      expect(set.code).toBe(0);
      const rule = JSON.parse(set.stdout);
      expect(rule).toMatchObject({ service: 'tours', percent: '4.25', fixed: '2.50', min_margin: '0.00', created_by: 'cli-markups' });

      const list = await run('markup', 'list', '--json');
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout).results).toContainEqual(rule);

      const removed = await run('markup', 'remove', String(rule.id), '--json');
      expect(removed.code).toBe(0);
      expect(JSON.parse(removed.stdout)).toMatchObject({ id: rule.id, removed_by: 'cli-markups' });

      const refused = await run('markup', 'set', '--service', 'tours', '--percent=-1');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/error \(400\): percent: must be a non-negative decimal/);
      const audited = await stack.db.select().from(operatorActions).where(eq(operatorActions.operator, 'cli-markups'));
      expect(audited.map((a) => a.target)).toEqual(['markups', `markups/${rule.id}`]);
    } finally {
      await server.close();
    }
  });
});
