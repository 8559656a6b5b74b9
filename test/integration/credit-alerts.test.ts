import { and, eq, inArray, sql } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { events, wallets } from '../../src/db/schema';
import { formatDecimal, parseAmount } from '../../src/domain/money/money';
import { adminClient, call, newPartner, operatorToken } from '../support/clients';
import { startReceiver, type Receiver } from '../support/receiver';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * Credit alerts (docs/decisions/credit-alerts.md): `wallet.low_balance` once per crossing of
 * a threshold of credit left, written with the movement that crossed, on both feeds and to
 * the partner's webhooks; operators set the thresholds and list who is near the limit.
 */
let stack: TestStack;
useStack((s) => (stack = s), { webhookIdleMs: 1500 });

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

type Partner = Awaited<ReturnType<typeof newPartner>>;
const admin = () => adminClient(stack);
const money = (minor: number) => formatDecimal(minor, 'IRT');

/** The price of one unit of the product the tests buy (product 1, its first variant), in minor units. */
async function unitPrice(p: Partner): Promise<number> {
  const order = await p.api.productOrder({ quantity: 1 });
  return parseAmount('total_price_irt', order.total_price_irt);
}

/** Buys `quantity` units and pays for them from the wallet. */
async function pay(p: Partner, quantity: number, key: string) {
  const order = await p.api.productOrder({ quantity });
  const paid = await p.api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: key });
  expect(paid.status).toBe(200);
  return order;
}

/** The partner's wallet.low_balance events as its Interface A feed shows them, oldest first. */
async function alertsInFeed(p: Partner) {
  const res = await p.api.get('/api/partners/events/?type=wallet.low_balance');
  expect(res.status).toBe(200);
  return res.body.data.results as {
    id: number;
    type: string;
    created_at: string;
    order_id: null;
    data: { wallet: Record<string, string>; threshold: number };
  }[];
}

const thresholdsOf = async (p: Partner) => (await alertsInFeed(p)).map((e) => e.data.threshold);

/** A partner with an endpoint on each interface taking only wallet.low_balance. */
async function subscribed(creditLimit: string) {
  const p = await newPartner(stack, creditLimit, '0');
  const a = await startReceiver();
  const b = await startReceiver();
  receivers.push(a, b);
  const madeA = await p.api.post('/api/partners/webhooks/', { url: a.url, event_types: ['wallet.low_balance'] });
  expect(madeA.status).toBe(201);
  a.setSecret(madeA.body.data.secret);
  const madeB = await call(
    stack.app,
    'POST',
    '/v1/webhooks',
    { authorization: `Bearer ${p.creds.agency_key}` },
    { url: b.url, event_types: ['wallet.low_balance'] },
  );
  expect(madeB.status).toBe(201);
  b.setSecret(madeB.body.secret);
  return { ...p, a, b };
}

describe('credit alerts', () => {
  it('emits wallet.low_balance once per crossing: below 40%, not again above 20%, below 20%, and again after a top-up above 40%', async () => {
    const p = await subscribed('0');
    const price = await unitPrice(p);
    // A credit limit of 20 units, nothing on the balance: 100% of credit left.
    const limit = 20 * price;
    expect((await admin().post(`/admin/partners/${p.creds.partner_id}/credit-limit`, { amount: money(limit) })).status).toBe(200);

    await pay(p, 13, 'a1'); // 7 of 20 left: 35%
    expect(await thresholdsOf(p)).toEqual([40]);
    await pay(p, 2, 'a2'); // 25%: still above 20%
    expect(await thresholdsOf(p)).toEqual([40]);
    await pay(p, 2, 'a3'); // 15%
    expect(await thresholdsOf(p)).toEqual([40, 20]);
    expect((await admin().post(`/admin/partners/${p.creds.partner_id}/topup`, { amount: money(6 * price) })).status).toBe(200); // 45%
    expect(await thresholdsOf(p)).toEqual([40, 20]);
    await pay(p, 2, 'a4'); // 35%: below 40% again
    expect(await thresholdsOf(p)).toEqual([40, 20, 40]);

    // The data is the wallet as Interface A answers it, just after the movement, and the threshold.
    const feed = await alertsInFeed(p);
    expect(feed[0]).toEqual({
      id: expect.any(Number),
      type: 'wallet.low_balance',
      created_at: expect.any(String),
      order_id: null,
      data: {
        wallet: { balance: money(-13 * price), credit_limit: money(limit), available: money(7 * price), currency: 'IRT', updated_at: expect.any(String) },
        threshold: 40,
      },
    });
    expect(feed[1]!.data.wallet).toMatchObject({ balance: money(-17 * price), available: money(3 * price) });
    expect(feed[2]!.data.wallet).toMatchObject({ balance: money(-13 * price), available: money(7 * price) });
    expect(await p.api.wallet()).toMatchObject({ balance: money(-13 * price), available: money(7 * price) });

    // Both endpoints received the three, signed; each in the style of the interface it was registered through.
    await waitFor(() => p.a.accepted().length >= 3 && p.b.accepted().length >= 3, 'the alerts delivered to both endpoints');
    expect(p.a.received.every((x) => x.verified) && p.b.received.every((x) => x.verified)).toBe(true);
    expect(p.a.accepted()).toEqual(feed);
    expect(p.a.received.map((x) => x.id)).toEqual(feed.map((e) => `evt_${e.id}`));
    const inB = p.b.accepted() as unknown as Record<string, unknown>[];
    expect(inB.map((e) => e.event_id)).toEqual(feed.map((e) => String(e.id)));
    expect(inB[0]).toEqual({
      event_id: String(feed[0]!.id),
      type: 'wallet.low_balance',
      created_at: feed[0]!.created_at,
      order_id: null,
      data: {
        wallet: {
          balance: (-13 * price) / 100,
          credit_limit: limit / 100,
          available: (7 * price) / 100,
          currency: 'IRT',
          updated_at: feed[0]!.data.wallet.updated_at,
        },
        threshold: 40,
      },
    });

    // Interface B's feed shows the same events, in its style.
    const bFeed = await call(stack.app, 'GET', '/v1/events?type=wallet.low_balance', { authorization: `Bearer ${p.creds.agency_key}` });
    expect(bFeed.status).toBe(200);
    expect(bFeed.body.results).toEqual(inB);
  });

  it('a credit-limit cut that crosses a threshold emits, in the transaction of the cut; a raise emits nothing', async () => {
    const p = await newPartner(stack, '0', '0');
    const price = await unitPrice(p);
    await admin().post(`/admin/partners/${p.creds.partner_id}/credit-limit`, { amount: money(10 * price) });
    await pay(p, 5, 'c1'); // 50%
    expect(await thresholdsOf(p)).toEqual([]);
    await admin().post(`/admin/partners/${p.creds.partner_id}/credit-limit`, { amount: money(20 * price) }); // 75%
    await admin().post(`/admin/partners/${p.creds.partner_id}/credit-limit`, { amount: money(6 * price) }); // 1 of 6: 16.66%
    const feed = await alertsInFeed(p);
    expect(feed.map((e) => [e.data.threshold, e.data.wallet.credit_limit, e.data.wallet.available])).toEqual([[20, money(6 * price), money(price)]]);
  });

  it('is written with the movement or not at all: a movement rolled back leaves no event; one that crosses nothing writes none', async () => {
    const p = await newPartner(stack, '1000', '0');
    const id = p.creds.partner_id;
    const count = async () =>
      (
        await stack.db
          .select()
          .from(events)
          .where(and(eq(events.partnerId, id), eq(events.type, 'wallet.low_balance')))
      ).length;
    await expect(
      stack.db.transaction(async (tx) => {
        await tx.update(wallets).set({ balance: -90_000 }).where(eq(wallets.partnerId, id));
        expect(await tx.select().from(events).where(eq(events.partnerId, id))).toHaveLength(1);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await count()).toBe(0);
    await stack.db.update(wallets).set({ balance: -50_000 }).where(eq(wallets.partnerId, id)); // 50%
    expect(await count()).toBe(0);
    // Any code path, even an operator's SQL: the trigger sees every movement.
    await stack.db.execute(sql`update wallets set balance_minor = -70000 where partner_id = ${id}`); // 30%
    expect(await count()).toBe(1);
    // As the ledger has it, for the books' check after each test.
    await stack.db.update(wallets).set({ balance: 0 }).where(eq(wallets.partnerId, id));
  });

  it("operators set a partner's thresholds and prepaid base, audited with their name; a prepaid partner is alerted only with a base", async () => {
    const p = await newPartner(stack, '0', '0');
    const id = p.creds.partner_id;
    const price = await unitPrice(p);
    await admin().post(`/admin/partners/${id}/topup`, { amount: money(4 * price) });
    const shown = await admin().get(`/admin/partners/${id}/alerts`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      partner_id: id,
      thresholds: [40, 20],
      defaults: true,
      prepaid_base: null,
      base: null,
      credit_left_percent: null,
      below: null,
    });
    // Without a base, a prepaid wallet emptied hears nothing.
    await pay(p, 3, 'p1');
    expect(await thresholdsOf(p)).toEqual([]);

    const operator = { authorization: `Bearer ${await operatorToken(stack, 'dana')}` };
    const set = await call(stack.admin, 'POST', `/admin/partners/${id}/alerts`, operator, { thresholds: [25, 60], prepaid_base: money(2 * price) });
    expect(set.status).toBe(200);
    // 1 unit left of a base of 2: 50%, below 60% (setting it emits nothing by itself).
    expect(set.body).toMatchObject({
      thresholds: [60, 25],
      defaults: false,
      prepaid_base: money(2 * price),
      base: money(2 * price),
      credit_left_percent: '50.00',
      below: 60,
    });
    expect(await thresholdsOf(p)).toEqual([]);
    await pay(p, 1, 'p2'); // 0%: crosses 25% (one event, naming the lowest it crossed)
    expect(await thresholdsOf(p)).toEqual([25]);
    const audit = await admin().get(`/admin/audit?target=${encodeURIComponent(`partners/${id}/alerts`)}`);
    expect(audit.body.results).toEqual([
      expect.objectContaining({ operator: 'dana', action: 'partners/:id/alerts', details: { thresholds: [25, 60], prepaid_base: money(2 * price) } }),
    ]);

    // One field at a time keeps the other; none switches alerts off; null removes the base.
    expect((await admin().post(`/admin/partners/${id}/alerts`, { thresholds: [] })).body).toMatchObject({
      thresholds: [],
      prepaid_base: money(2 * price),
      below: null,
    });
    expect((await admin().post(`/admin/partners/${id}/alerts`, { prepaid_base: null })).body).toMatchObject({ thresholds: [], prepaid_base: null, base: null });
  });

  it('refuses bad settings with a 400 and an unknown partner with a 404', async () => {
    const { creds } = await newPartner(stack, '1000', '0');
    const path = `/admin/partners/${creds.partner_id}/alerts`;
    for (const [payload, message] of [
      [{ thresholds: [0] }, /^thresholds: each must be a whole percent from 1 to 99$/],
      [{ thresholds: [100] }, /^thresholds: each must be a whole percent from 1 to 99$/],
      [{ thresholds: [40.5] }, /^thresholds: each must be a whole percent/],
      [{ thresholds: ['40'] }, /^thresholds: each must be a whole percent/],
      [{ thresholds: [40, 40] }, /^thresholds: must not repeat a percent$/],
      [{ thresholds: [90, 80, 70, 60, 50, 40] }, /^thresholds: at most 5$/],
      [{ thresholds: '40,20' }, /^thresholds: must be a list/],
      [{ prepaid_base: '-5' }, /^prepaid_base: must be a non-negative decimal/],
      [{ prepaid_base: '0' }, /^prepaid_base: must be greater than zero$/],
      [{}, /^body: give thresholds, prepaid_base, or both$/],
    ] as const) {
      const res = await admin().post(path, payload);
      expect({ payload, status: res.status, error: res.body.error }).toEqual({ payload, status: 400, error: expect.stringMatching(message) });
    }
    expect((await admin().get('/admin/partners/999999/alerts')).status).toBe(404);
    expect((await admin().post('/admin/partners/999999/alerts', { thresholds: [30] })).status).toBe(404);
    expect((await admin().get(path)).body).toMatchObject({ thresholds: [40, 20], defaults: true });
  });

  it('lists the partners below their highest threshold, the least credit left first', async () => {
    const low = await newPartner(stack, '1000', '0');
    const mid = await newPartner(stack, '1000', '0');
    const fine = await newPartner(stack, '1000', '0');
    const custom = await newPartner(stack, '1000', '0');
    const set = async (p: Partner, balance: number) => stack.db.update(wallets).set({ balance }).where(eq(wallets.partnerId, p.creds.partner_id));
    await set(low, -90_000); // 10%
    await set(mid, -65_000); // 35%
    await set(fine, -50_000); // 50%
    await admin().post(`/admin/partners/${custom.creds.partner_id}/alerts`, { thresholds: [80] });
    await set(custom, -30_000); // 70%, below its own 80%

    const res = await admin().get('/admin/partners/near-limit');
    expect(res.status).toBe(200);
    const ours = new Set([low, mid, fine, custom].map((p) => p.creds.partner_id));
    const listed = (res.body.results as { partner_id: number }[]).filter((r) => ours.has(r.partner_id));
    expect(listed).toEqual([
      expect.objectContaining({ partner_id: low.creds.partner_id, credit_left_percent: '10.00', below: 20, thresholds: [40, 20] }),
      expect.objectContaining({ partner_id: mid.creds.partner_id, credit_left_percent: '35.00', below: 40 }),
      expect.objectContaining({ partner_id: custom.creds.partner_id, credit_left_percent: '70.00', below: 80, thresholds: [80], defaults: false }),
    ]);
    expect(listed[0]).toMatchObject({
      name: 'Test Agency',
      status: 'active',
      wallet: { balance: '-900.00', credit_limit: '1000.00', available: '100.00', currency: 'IRT', updated_at: expect.any(String) },
      base: '1000.00',
    });
    // Each crossed when its balance moved, and heard of it once (the lowest threshold a movement crossed).
    const heard = await stack.db
      .select({ partnerId: events.partnerId, data: events.data })
      .from(events)
      .where(and(eq(events.type, 'wallet.low_balance'), inArray(events.partnerId, [...ours])));
    expect(new Map(heard.map((e) => [e.partnerId, e.data.threshold]))).toEqual(
      new Map([
        [low.creds.partner_id, 20],
        [mid.creds.partner_id, 40],
        [custom.creds.partner_id, 80],
      ]),
    );
    expect(heard).toHaveLength(3);
    // As the ledger has it, for the books' check after each test.
    for (const p of [low, mid, fine, custom]) await set(p, 0);
  });

  it('the CLI sends the settings and the list to the admin API', () => {
    expect(toCommand(['partner', 'alerts', '--partner', '7'])).toEqual({ json: false, command: { method: 'GET', path: '/admin/partners/7/alerts' } });
    expect(toCommand(['partner', 'alerts', '--partner', '7', '--thresholds', '40, 20', '--prepaid-base', '5000'])).toEqual({
      json: false,
      command: { method: 'POST', path: '/admin/partners/7/alerts', body: { thresholds: [40, 20], prepaid_base: '5000' } },
    });
    expect(toCommand(['partner', 'alerts', '--partner', '7', '--thresholds', 'none', '--prepaid-base', 'none'])).toEqual({
      json: false,
      command: { method: 'POST', path: '/admin/partners/7/alerts', body: { thresholds: [], prepaid_base: null } },
    });
    expect(() => toCommand(['partner', 'alerts', '--partner', '7', '--thresholds', '40%'])).toThrow(/--thresholds must be whole percents/);
    expect(toCommand(['partners', 'near-limit', '--json'])).toEqual({ json: true, command: { method: 'GET', path: '/admin/partners/near-limit' } });
  });
});
