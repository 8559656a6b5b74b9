import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { count, eq } from 'drizzle-orm';
import { Hono, type ErrorHandler } from 'hono';
import { toCommand } from '../../src/cli/admin';
import { exchangeRates, operatorActions, orders } from '../../src/db/schema';
import { DomainError } from '../../src/domain/errors';
import { convert, rateFor, setRate } from '../../src/domain/money/fx';
import { agencyError } from '../../src/http/agency/app';
import { partnerError } from '../../src/http/partner/app';
import { listen } from '../../src/platform/listen';
import { fxRateRefusals } from '../../src/platform/metrics';
import { adminClient, call, operatorToken } from '../support/clients';
import { captureLogs } from '../support/logs';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/** Exchange rates: the admin API and CLI that keep them, and rateFor, which prices a sale with them. */

let stack: TestStack;
useStack((s) => (stack = s));

const HOUR = 60 * 60 * 1000;
const admin = (operator = 'dana') => {
  const headers = async () => ({ authorization: `Bearer ${await operatorToken(stack, operator)}` });
  return {
    get: async (p: string) => call(stack.admin, 'GET', p, await headers()),
    post: async (p: string, body: unknown) => call(stack.admin, 'POST', p, await headers(), body),
  };
};
const rateRows = async () => (await stack.db.select({ n: count() }).from(exchangeRates))[0]!.n;
const fxAudit = async () => stack.db.select().from(operatorActions).where(eq(operatorActions.target, 'fx'));
const refusals = async (currency: string, reason: string) =>
  (await fxRateRefusals.get()).values.find((v) => v.labels.currency === currency && v.labels.reason === reason)?.value ?? 0;

describe('POST /admin/fx and GET /admin/fx', () => {
  it('sets a rate, audited with the operator, and lists each currency’s latest one with its age', async () => {
    const auditBefore = (await fxAudit()).length;
    const set = await admin('dana').post('/admin/fx', { from: 'GBP', rate: '51000' });
    expect(set.status).toBe(201);
    expect(set.body).toEqual({
      id: expect.any(Number),
      currency: 'GBP',
      wallet_currency: 'IRT',
      rate: '51000',
      set_by: 'dana',
      set_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const again = await admin('omid').post('/admin/fx', { from: 'GBP', rate: 52000.5 });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ currency: 'GBP', rate: '52000.5', set_by: 'omid' });
    expect((await admin().post('/admin/fx', { from: 'JPY', rate: '350.125' })).status).toBe(201);

    // Append-only: both GBP rows stay, the latest is current.
    const gbpRows = await stack.db.select().from(exchangeRates).where(eq(exchangeRates.currency, 'GBP'));
    expect(gbpRows.map((r) => [r.rateAmount, r.rateScale, r.setBy])).toEqual([
      [51000, 0, 'dana'],
      [520005, 1, 'omid'],
    ]);

    const list = await admin().get('/admin/fx');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ wallet_currency: 'IRT', max_age_hours: 24 });
    const byCurrency = Object.fromEntries((list.body.results as Array<Record<string, unknown>>).map((r) => [r.currency, r]));
    expect(byCurrency.GBP).toMatchObject({ id: again.body.id, rate: '52000.5', set_by: 'omid', stale: false, age_seconds: expect.any(Number) });
    expect(byCurrency.JPY).toMatchObject({ rate: '350.125', stale: false });
    expect(byCurrency.GBP.age_seconds).toBeLessThan(60);

    // Every set is an operator action: who, and what they set.
    const audit = (await fxAudit()).slice(auditBefore);
    expect(audit.map((a) => [a.operator, a.action, a.details])).toEqual([
      ['dana', 'fx', { from: 'GBP', rate: '51000' }],
      ['omid', 'fx', { from: 'GBP', rate: 52000.5 }],
      ['dana', 'fx', { from: 'JPY', rate: '350.125' }],
    ]);
    const listed = await admin().get('/admin/audit?target=fx');
    expect(listed.body.results[0]).toMatchObject({ operator: 'dana', action: 'fx', target: 'fx', details: { from: 'JPY', rate: '350.125' } });
  });

  it('shows a rate older than FX_RATE_MAX_AGE_HOURS as stale', async () => {
    await setRate(stack.db, { currency: 'CHF', walletCurrency: 'IRT', rate: '60000', operator: 'dana', now: new Date(Date.now() - 30 * HOUR) });
    const list = await admin().get('/admin/fx');
    const chf = (list.body.results as Array<Record<string, unknown>>).find((r) => r.currency === 'CHF')!;
    expect(chf).toMatchObject({ rate: '60000', stale: true });
    expect(chf.age_seconds).toBeGreaterThanOrEqual(30 * 3600);
  });

  it.each([
    ['an unknown currency', { from: 'XYZ', rate: '1' }, /^from: XYZ is not an ISO 4217 currency/],
    ['a currency in small letters', { from: 'gbp', rate: '1' }, /^from: must be a three-letter currency code in capitals/],
    ['the wallet currency itself', { from: 'IRT', rate: '1' }, /^from: IRT is the wallet currency itself/],
    ['no currency', { rate: '1' }, /^from: from is required/],
    ['no rate', { from: 'GBP' }, /^rate: /],
    ['a zero rate', { from: 'GBP', rate: '0' }, /^rate: must be greater than zero/],
    ['a negative rate', { from: 'GBP', rate: -5 }, /^rate: must be a positive decimal/],
    ['a rate that is not a number', { from: 'GBP', rate: 'lots' }, /^rate: must be a positive decimal/],
    ['a rate in exponent notation', { from: 'GBP', rate: '5e4' }, /^rate: must be a positive decimal/],
    ['a rate of absurd precision', { from: 'GBP', rate: '52000.0000000000001' }, /^rate: must have at most 12 decimals/],
    ['a rate of too many digits', { from: 'GBP', rate: '52000.00000000001' }, /^rate: must have at most 15 significant digits/],
    ['a rate as an object', { from: 'GBP', rate: { value: 1 } }, /^rate: /],
  ])('refuses %s with a 400 naming the field, and writes nothing', async (_label, body, message) => {
    const [rowsBefore, auditBefore] = [await rateRows(), (await fxAudit()).length];
    const res = await admin().post('/admin/fx', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
    expect(await rateRows()).toBe(rowsBefore);
    expect((await fxAudit()).length).toBe(auditBefore);
  });

  it('refuses a body that is not JSON with a 400', async () => {
    const res = await call(stack.admin, 'POST', '/admin/fx', { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, '{"from":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'body: must be a JSON object' });
  });

  it('wants the admin token', async () => {
    expect((await call(stack.admin, 'GET', '/admin/fx', {})).status).toBe(401);
    expect((await call(stack.admin, 'POST', '/admin/fx', { authorization: 'Bearer wrong' }, { from: 'GBP', rate: '1' })).status).toBe(401);
  });
});

describe('rateFor: the rate a sale is priced with', () => {
  const now = () => new Date();

  it('needs no rate for the wallet currency itself', async () => {
    expect(await rateFor(stack.db, { from: 'IRT', to: 'IRT', now: now(), maxAgeMs: HOUR })).toEqual({
      rate: { amount: 1, scale: 0 },
      rateId: null,
      setAt: null,
    });
  });

  it('refuses a currency without a rate: currency_unavailable naming it, a warn line, a count', async () => {
    const before = await refusals('SEK', 'missing');
    const logs = captureLogs('warn');
    let caught: unknown;
    try {
      await rateFor(stack.db, { from: 'SEK', to: 'IRT', now: now(), maxAgeMs: 24 * HOUR });
    } catch (err) {
      caught = err;
    } finally {
      logs.stop();
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({ code: 'currency_unavailable', message: expect.stringMatching(/^no exchange rate for SEK to IRT; /) });
    expect(await refusals('SEK', 'missing')).toBe(before + 1);
    expect(logs.records).toContainEqual(expect.objectContaining({ level: 40, currency: 'SEK', walletCurrency: 'IRT', reason: 'missing' }));
  });

  it('counts a currency the engine does not know as one series', async () => {
    const before = await refusals('unknown', 'missing');
    await expect(rateFor(stack.db, { from: 'ZZZ', to: 'IRT', now: now(), maxAgeMs: HOUR })).rejects.toMatchObject({ code: 'currency_unavailable' });
    expect(await refusals('unknown', 'missing')).toBe(before + 1);
    expect(await refusals('ZZZ', 'missing')).toBe(0);
  });

  it('answers the refusal 409 on both interfaces, naming the currency', async () => {
    const answers: Array<[ErrorHandler, (message: string) => unknown]> = [
      [partnerError as unknown as ErrorHandler, (error) => ({ ok: false, error })],
      [agencyError as unknown as ErrorHandler, (detail) => ({ detail })],
    ];
    for (const [onError, shape] of answers) {
      const app = new Hono();
      app.onError(onError);
      app.get('/price', async (c) => c.json(await rateFor(stack.db, { from: 'HUF', to: 'IRT', now: now(), maxAgeMs: HOUR })));
      const res = await app.request('/price');
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual(shape(expect.stringMatching(/^no exchange rate for HUF to IRT; /) as unknown as string));
    }
  });

  it('refuses a rate older than the bound, saying how old', async () => {
    const old = await setRate(stack.db, { currency: 'NOK', walletCurrency: 'IRT', rate: '4800', operator: 'dana', now: new Date(Date.now() - 30 * HOUR) });
    const before = await refusals('NOK', 'stale');
    await expect(rateFor(stack.db, { from: 'NOK', to: 'IRT', now: now(), maxAgeMs: 24 * HOUR })).rejects.toMatchObject({
      code: 'currency_unavailable',
      message: expect.stringMatching(/^the NOK rate is 30 hours old, older than the 24 hours allowed; /),
    });
    expect(await refusals('NOK', 'stale')).toBe(before + 1);
    // Within a wider bound the same row prices the sale.
    expect(await rateFor(stack.db, { from: 'NOK', to: 'IRT', now: now(), maxAgeMs: 31 * HOUR })).toMatchObject({
      rateId: old.id,
      rate: { amount: 4800, scale: 0 },
    });
  });

  it('uses the latest rate once an operator sets a fresh one', async () => {
    await setRate(stack.db, { currency: 'DKK', walletCurrency: 'IRT', rate: '7000', operator: 'dana', now: new Date(Date.now() - 48 * HOUR) });
    await expect(rateFor(stack.db, { from: 'DKK', to: 'IRT', now: now(), maxAgeMs: 24 * HOUR })).rejects.toMatchObject({ code: 'currency_unavailable' });
    const res = await admin('omid').post('/admin/fx', { from: 'DKK', rate: '7100.25' });
    expect(res.status).toBe(201);
    const used = await rateFor(stack.db, { from: 'DKK', to: 'IRT', now: now(), maxAgeMs: 24 * HOUR });
    expect(used).toEqual({ rate: { amount: 710025, scale: 2 }, rateId: res.body.id, setAt: expect.any(Date) });
    // 12.34 DKK at 7,100.25 = 87,617.085 IRT → 87,617.09 (half away from zero).
    expect(convert({ amountMinor: 1234, from: 'DKK', to: 'IRT', rate: used.rate })).toBe(8761709);
  });

  it('keeps rates into another wallet currency apart', async () => {
    await setRate(stack.db, { currency: 'PLN', walletCurrency: 'EUR', rate: '0.23', operator: 'dana' });
    await expect(rateFor(stack.db, { from: 'PLN', to: 'IRT', now: now(), maxAgeMs: 24 * HOUR })).rejects.toMatchObject({ code: 'currency_unavailable' });
    expect(await rateFor(stack.db, { from: 'PLN', to: 'EUR', now: now(), maxAgeMs: 24 * HOUR })).toMatchObject({ rate: { amount: 23, scale: 2 } });
  });
});

describe('admin order inspect', () => {
  it("shows the supplier's amount, currency and the rate an order was priced with, only when it has them", async () => {
    const creds = await adminClient(stack).createPartner({ topup: '10' });
    const rate = await setRate(stack.db, { currency: 'KWD', walletCurrency: 'IRT', rate: '170000', operator: 'dana' });
    const [priced] = await stack.db
      .insert(orders)
      .values({
        partnerId: creds.partner_id,
        service: 'flight',
        totalPrice: 20978000,
        currency: 'IRT',
        paymentMethod: 'PARTNER_CREDIT',
        supplierAmount: 1234,
        supplierCurrency: 'KWD',
        fxRateAmount: rate.rate.amount,
        fxRateScale: rate.rate.scale,
        fxRateId: rate.id,
      })
      .returning();
    const [plain] = await stack.db
      .insert(orders)
      .values({ partnerId: creds.partner_id, service: 'flight', totalPrice: 100, currency: 'IRT', paymentMethod: 'PARTNER_CREDIT' })
      .returning();

    const res = await admin().get(`/admin/orders/${priced!.id}`);
    expect(res.status).toBe(200);
    expect(res.body.order).toMatchObject({ id: priced!.id, total_price: '209780.00', currency: 'IRT' });
    expect(res.body.order.supplier_price).toEqual({ amount: '1.234', currency: 'KWD', fx_rate: '170000', fx_rate_id: rate.id });

    const without = await admin().get(`/admin/orders/${plain!.id}`);
    expect(without.status).toBe(200);
    expect(without.body.order).not.toHaveProperty('supplier_price');
  });
});

describe('admin CLI: fx', () => {
  it('maps fx set and fx list', () => {
    expect(toCommand(['fx', 'set', '--from', 'GBP', '--rate', '52000'])).toEqual({
      json: false,
      command: { method: 'POST', path: '/admin/fx', body: { from: 'GBP', rate: '52000' } },
    });
    expect(toCommand(['fx', 'list', '--json'])).toEqual({ json: true, command: { method: 'GET', path: '/admin/fx' } });
    expect(() => toCommand(['fx', 'set', '--rate', '52000'])).toThrow(/--from is required/);
    expect(() => toCommand(['fx', 'set', '--from', 'GBP'])).toThrow(/--rate is required/);
  });

  it('sets and lists rates against a running admin API, as an operator types it', async () => {
    const server = await listen(stack.admin.fetch, 0, '127.0.0.1');
    const token = await operatorToken(stack, 'cli-operator');
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/admin.ts'), ...args], {
        env: { ...process.env, ADMIN_URL: server.url, ADMIN_TOKEN: token },
      }).then(
        (out) => ({ code: 0, ...out }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    try {
      const set = await run('fx', 'set', '--from', 'AUD', '--rate', '33000.5', '--json');
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toMatchObject({ currency: 'AUD', wallet_currency: 'IRT', rate: '33000.5', set_by: 'cli-operator' });

      const list = await run('fx', 'list', '--json');
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout).results).toContainEqual(
        expect.objectContaining({ currency: 'AUD', rate: '33000.5', set_by: 'cli-operator', stale: false }),
      );

      const text = await run('fx', 'list');
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^wallet_currency: IRT$/m);

      const refused = await run('fx', 'set', '--from', 'IRT', '--rate', '1');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/error \(400\): from: IRT is the wallet currency itself/);
      const audited = await stack.db.select().from(operatorActions).where(eq(operatorActions.operator, 'cli-operator'));
      expect(audited.map((a) => [a.action, a.details])).toEqual([['fx', { from: 'AUD', rate: '33000.5' }]]);
    } finally {
      await server.close();
    }
  });
});
