import { asc, eq } from 'drizzle-orm';
import { toCommand } from '../../src/cli/admin';
import { apiConnections, ledgerEntries, partners, wallets } from '../../src/db/schema';
import { adminClient, call, partnerClient, type PartnerCredentials, type Reply } from '../support/clients';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/** The operators' API (admin app) and the CLI's argument parsing. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

/** A raw call to the admin app with exactly the headers given. */
const adminRaw = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> =>
  call(stack.admin, method, path, headers, body);

const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
const rowsOf = (partnerId: number) => stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.partnerId, partnerId));
const connectionsOf = (partnerId: number) =>
  stack.db.select().from(apiConnections).where(eq(apiConnections.partnerId, partnerId)).orderBy(asc(apiConnections.id));
const walletRowOf = async (partnerId: number) => (await stack.db.select().from(wallets).where(eq(wallets.partnerId, partnerId)))[0]!;

async function newPartner(input: { credit_limit?: string; topup?: string } = {}) {
  const creds = await adminClient(stack).createPartner(input);
  return { creds, api: partnerClient(stack, creds) };
}

/** Ledger rows as Interface A shows them, oldest first. */
async function ledgerOf(creds: PartnerCredentials) {
  const res = await partnerClient(stack, creds).get('/api/partners/ledger/');
  expect(res.status).toBe(200);
  return [...(res.body.data.results as Array<Record<string, unknown>>)].reverse();
}

describe('admin authentication', () => {
  it.each([
    ['no authorization header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['the token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ['the token without the Bearer scheme', { authorization: ADMIN_TOKEN }],
    ['Basic scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
  ])('answers 401 {error} with %s', async (_label, headers: Record<string, string>) => {
    for (const [method, path, body] of [
      ['POST', '/admin/partners', JSON.stringify({ name: 'Nope' })],
      ['GET', '/admin/partners/1/wallet', undefined],
      ['POST', '/admin/partners/1/topup', JSON.stringify({ amount: '10' })],
    ] as const) {
      const res = await adminRaw(method, path, { 'content-type': 'application/json', ...headers }, body);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.body).toEqual({ error: expect.any(String) });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('writes nothing on an unauthorized partner create', async () => {
    const before = await stack.db.select().from(partners);
    await adminRaw('POST', '/admin/partners', { 'content-type': 'application/json', authorization: 'Bearer wrong' }, JSON.stringify({ name: 'Sneaky' }));
    expect(await stack.db.select().from(partners)).toHaveLength(before.length);
  });

  // docs/decisions/operators.md: Prometheus scrapes /metrics with an operator token; it carries no secret and no partner's data.
  it('answers /metrics with the token only, and leaks no credential', async () => {
    const { creds } = await newPartner({ topup: '1000' });
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }] as Record<string, string>[])
      expect((await adminRaw('GET', '/metrics', headers)).status).toBe(401);
    const res = await adminRaw('GET', '/metrics', bearer);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.body).toContain('http_request_duration_seconds');
    for (const secret of [ADMIN_TOKEN, creds.api_key, creds.api_secret, creds.agency_key]) expect(res.body).not.toContain(secret);
    // Only /healthz is open: the admin routes still want the token.
    expect((await adminRaw('GET', '/admin/reconcile', {})).status).toBe(401);
  });

  it('answers /healthz without the token, saying only healthy or not', async () => {
    const res = await adminRaw('GET', '/healthz', {});
    expect([200, 503]).toContain(res.status);
    expect(res.body).toEqual({ ok: res.status === 200 });
  });
});

describe('partner create', () => {
  it('returns the credentials once and stores neither the secret nor the agency key in plaintext', async () => {
    const res = await adminClient(stack).post('/admin/partners', { name: '  Blue Sky Travel  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      partner_id: expect.any(Number),
      api_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      api_secret: expect.any(String),
      agency_key: expect.any(String),
    });
    const { partner_id, api_key, api_secret, agency_key } = res.body as PartnerCredentials;
    expect(api_secret.length).toBeGreaterThanOrEqual(32);
    expect(agency_key.length).toBeGreaterThanOrEqual(32);
    expect(new Set([api_key, api_secret, agency_key]).size).toBe(3);

    const [row] = await stack.db.select().from(partners).where(eq(partners.id, partner_id));
    expect(row).toBeDefined();
    expect(row!.name).toBe('Blue Sky Travel');
    expect(row!.status).toBe('active');
    const [a, b] = await connectionsOf(partner_id);
    expect(a).toMatchObject({ interface: 'a', name: 'Interface A', apiKey: api_key, status: 'active' });
    expect(b).toMatchObject({ interface: 'b', name: 'Interface B', apiKey: null, secretHash: null, status: 'active' });
    expect(a!.secretHash).not.toBe(api_secret);
    expect(b!.keyHash).not.toBe(agency_key);
    for (const column of [a!.secretHash, b!.keyHash, a!.apiKey, row!.name]) {
      expect(column).not.toContain(api_secret);
      expect(column).not.toContain(agency_key);
    }
    // Nothing in the whole row holds either plaintext.
    const serialized = JSON.stringify(row);
    expect(serialized).not.toContain(api_secret);
    expect(serialized).not.toContain(agency_key);

    // A new partner without amounts has an empty wallet and an empty ledger.
    const wallet = await adminClient(stack).get(`/admin/partners/${partner_id}/wallet`);
    expect(wallet.status).toBe(200);
    expect(wallet.body).toMatchObject({ balance: '0.00', credit_limit: '0.00', available: '0.00', currency: 'IRT' });
    expect(await rowsOf(partner_id)).toHaveLength(0);
  });

  it('gives every partner distinct credentials', async () => {
    const a = await adminClient(stack).createPartner();
    const b = await adminClient(stack).createPartner();
    expect(a.partner_id).not.toBe(b.partner_id);
    expect(a.api_key).not.toBe(b.api_key);
    expect(a.api_secret).not.toBe(b.api_secret);
    expect(a.agency_key).not.toBe(b.agency_key);
  });

  it('records credit_limit as a credit_grant row and topup as a topup row', async () => {
    const { creds, api } = await newPartner({ credit_limit: '1000000', topup: '2500000.50' });
    const rows = await ledgerOf(creds);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ direction: 'credit', type: 'credit_grant', amount: '1000000.00', balance_after: '0.00', order: null, product_order: null });
    expect(rows[1]).toMatchObject({ direction: 'credit', type: 'topup', amount: '2500000.50', balance_after: '2500000.50', order: null, product_order: null });
    expect(await api.wallet()).toMatchObject({ balance: '2500000.50', credit_limit: '1000000.00', available: '3500000.50' });
  });

  it('accepts amounts as JSON numbers and zero amounts without writing rows', async () => {
    const num = await adminClient(stack).post('/admin/partners', { name: 'Numbers', credit_limit: 1500.5, topup: 20 });
    expect(num.status).toBe(201);
    expect(await partnerClient(stack, num.body).wallet()).toMatchObject({ balance: '20.00', credit_limit: '1500.50', available: '1520.50' });

    const zero = await adminClient(stack).post('/admin/partners', { name: 'Zeros', credit_limit: '0', topup: '0.00' });
    expect(zero.status).toBe(201);
    expect(await rowsOf(zero.body.partner_id)).toHaveLength(0);
  });

  it.each([
    ['name missing', {}, /^name: /],
    ['name empty', { name: '' }, /^name: /],
    ['name only spaces', { name: '   ' }, /^name: /],
    ['name not a string', { name: 42 }, /^name: /],
    ['name longer than 200 characters', { name: 'x'.repeat(201) }, /^name: /],
    ['credit_limit negative', { name: 'A', credit_limit: '-5' }, /^credit_limit: /],
    ['credit_limit not a number', { name: 'A', credit_limit: 'abc' }, /^credit_limit: /],
    ['topup with three decimals', { name: 'A', topup: '1.234' }, /^topup: /],
    ['topup huge', { name: 'A', topup: 1e30 }, /^topup: /],
    ['topup null', { name: 'A', topup: null }, /^topup: /],
  ])('answers 400 naming the field and creates nothing: %s', async (_label, payload, message) => {
    const before = (await stack.db.select().from(partners)).length;
    const res = await adminClient(stack).post('/admin/partners', payload);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
    expect(await stack.db.select().from(partners)).toHaveLength(before);
  });

  it.each([
    ['malformed JSON', '{"name": "Broken"'],
    ['not JSON at all', 'name=Broken'],
    ['an empty body', ''],
  ])('answers 400 to %s', async (_label, raw) => {
    const before = (await stack.db.select().from(partners)).length;
    const res = await adminRaw('POST', '/admin/partners', { ...bearer, 'content-type': 'application/json' }, raw);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^body: /) });
    expect(await stack.db.select().from(partners)).toHaveLength(before);
  });

  it('answers 415 to a body sent as another media type, and writes nothing (the contract names application/json)', async () => {
    const before = (await stack.db.select().from(partners)).length;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await adminRaw('POST', '/admin/partners', { ...bearer, 'content-type': type }, JSON.stringify({ name: 'Mistyped' }));
      expect({ type, status: res.status, body: res.body }).toEqual({ type, status: 415, body: { error: 'Content-Type must be application/json' } });
    }
    expect(await stack.db.select().from(partners)).toHaveLength(before);
  });

  it('answers 400 naming the path id that is not one, and 404 for one no row can have', async () => {
    const bad = await adminRaw('GET', '/admin/partners/abc/wallet', bearer);
    expect([bad.status, bad.body]).toEqual([400, { error: 'partner: must be a positive integer id' }]);
    const user = await adminRaw('POST', '/admin/partners/1/users/x/deactivate', bearer);
    expect([user.status, user.body]).toEqual([400, { error: 'user: must be a positive integer id' }]);
    const huge = await adminRaw('GET', '/admin/partners/9999999999/wallet', bearer);
    expect(huge.status).toBe(404);
  });

  it('answers 400 to a JSON body that is not an object', async () => {
    for (const raw of ['[]', '"Broken"', 'null', '42']) {
      const res = await adminRaw('POST', '/admin/partners', { ...bearer, 'content-type': 'application/json' }, raw);
      expect({ raw, status: res.status }).toEqual({ raw, status: 400 });
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });
});

describe('hostile input on the admin API (issue 12)', () => {
  it('refuses text PostgreSQL cannot store and over-large bodies with a 4xx, writing nothing (a NUL was a 500)', async () => {
    const before = (await stack.db.select().from(partners)).length;
    const nul = await adminRaw('POST', '/admin/partners', { ...bearer, 'content-type': 'application/json' }, JSON.stringify({ name: 'Acme\u0000' }));
    expect([nul.status, nul.body]).toEqual([400, { error: 'body.name: text must not contain NUL characters or unpaired UTF-16 surrogates' }]);
    const audit = await adminRaw('GET', '/admin/audit?target=%00', bearer);
    expect(audit.status).toBe(400);
    const big = await adminRaw('POST', '/admin/partners', { ...bearer, 'content-type': 'application/json' }, JSON.stringify({ name: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(413);
    expect((await stack.db.select().from(partners)).length).toBe(before);
  });
});

describe('wallet top-up', () => {
  it('adds a topup row and raises the balance and available', async () => {
    const { creds, api } = await newPartner({ credit_limit: '100', topup: '1000' });
    const res = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/topup`, { amount: '250.75', note: 'bank transfer 42' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      balance: '1250.75',
      credit_limit: '100.00',
      available: '1350.75',
      currency: 'IRT',
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await api.wallet()).toMatchObject({ balance: '1250.75', credit_limit: '100.00', available: '1350.75' });
    const rows = await ledgerOf(creds);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatchObject({ direction: 'credit', type: 'topup', amount: '250.75', balance_after: '1250.75', note: 'bank transfer 42' });

    const plain = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/topup`, { amount: 10 });
    expect(plain.status).toBe(200);
    expect(plain.body.balance).toBe('1260.75');
    expect((await ledgerOf(creds))[3]).toMatchObject({ type: 'topup', amount: '10.00', note: 'operator top-up' });
  });

  it.each([
    ['negative', { amount: '-5' }],
    ['not a number', { amount: 'abc' }],
    ['three decimals', { amount: '1.234' }],
    ['empty string', { amount: '' }],
    ['zero', { amount: 0 }],
    ['zero as a string', { amount: '0.00' }],
    ['1e30', { amount: 1e30 }],
    ['1e30 as a string', { amount: '1e30' }],
    ['too large', { amount: '99999999999999999999' }],
    ['negative number', { amount: -5 }],
    ['null', { amount: null }],
    ['missing', {}],
    ['a boolean', { amount: true }],
  ])('answers 400 naming amount and writes no row: %s', async (_label, payload) => {
    const { creds } = await newPartner({ topup: '100' });
    const before = await walletRowOf(creds.partner_id);
    const res = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/topup`, payload);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^amount: /) });
    expect(await rowsOf(creds.partner_id)).toHaveLength(1);
    expect(await walletRowOf(creds.partner_id)).toEqual(before);
  });

  it('answers 400 to a malformed JSON body and writes no row', async () => {
    const { creds } = await newPartner({ topup: '100' });
    const res = await adminRaw('POST', `/admin/partners/${creds.partner_id}/topup`, { ...bearer, 'content-type': 'application/json' }, '{"amount": "5"');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^body: /) });
    expect(await rowsOf(creds.partner_id)).toHaveLength(1);
  });
});

describe('credit limit', () => {
  it('sets an absolute limit and records the delta as a credit_grant row without moving the balance', async () => {
    const { creds, api } = await newPartner({ credit_limit: '1000', topup: '500' });
    const path = `/admin/partners/${creds.partner_id}/credit-limit`;

    const raised = await adminClient(stack).post(path, { amount: '1500' });
    expect(raised.status).toBe(200);
    expect(raised.body).toMatchObject({ balance: '500.00', credit_limit: '1500.00', available: '2000.00', currency: 'IRT' });

    const lowered = await adminClient(stack).post(path, { amount: '200.50' });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ balance: '500.00', credit_limit: '200.50', available: '700.50' });

    // Setting the same limit again writes nothing.
    expect((await adminClient(stack).post(path, { amount: '200.50' })).status).toBe(200);
    // Zero is a valid limit.
    const zero = await adminClient(stack).post(path, { amount: '0' });
    expect(zero.status).toBe(200);
    expect(zero.body).toMatchObject({ balance: '500.00', credit_limit: '0.00', available: '500.00' });

    const rows = await ledgerOf(creds);
    expect(rows.map((r) => [r.type, r.direction, r.amount, r.balance_after])).toEqual([
      ['credit_grant', 'credit', '1000.00', '0.00'],
      ['topup', 'credit', '500.00', '500.00'],
      ['credit_grant', 'credit', '500.00', '500.00'],
      ['credit_grant', 'debit', '1299.50', '500.00'],
      ['credit_grant', 'debit', '200.50', '500.00'],
    ]);
    expect(await api.wallet()).toMatchObject({ balance: '500.00', credit_limit: '0.00', available: '500.00' });
  });

  it('refuses to lower the limit below what the partner owes, and accepts exactly the debt', async () => {
    const { creds, api } = await newPartner({ credit_limit: '1000000', topup: '0' });
    const order = await api.productOrder(); // 550,000.00 on credit
    const paid = await api.post('/api/partners/pay/', { product_order_id: order.id, idempotency_key: 'admin-debt-1' });
    expect(paid.status).toBe(200);
    expect(await api.wallet()).toMatchObject({ balance: '-550000.00', credit_limit: '1000000.00', available: '450000.00' });

    const path = `/admin/partners/${creds.partner_id}/credit-limit`;
    const before = await rowsOf(creds.partner_id);
    for (const amount of ['549999.99', '0', '100']) {
      const res = await adminClient(stack).post(path, { amount });
      expect({ amount, status: res.status }).toEqual({ amount, status: 400 });
      expect(res.body).toEqual({ error: expect.stringMatching(/^amount: .*550000\.00/) });
    }
    expect(await rowsOf(creds.partner_id)).toHaveLength(before.length);
    expect(await api.wallet()).toMatchObject({ balance: '-550000.00', credit_limit: '1000000.00' });

    const exact = await adminClient(stack).post(path, { amount: '550000' });
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ balance: '-550000.00', credit_limit: '550000.00', available: '0.00' });
    expect((await ledgerOf(creds)).at(-1)).toMatchObject({ type: 'credit_grant', direction: 'debit', amount: '450000.00', balance_after: '-550000.00' });
  });

  it.each([
    ['negative', { amount: '-5' }],
    ['not a number', { amount: 'abc' }],
    ['three decimals', { amount: '1.234' }],
    ['empty string', { amount: '' }],
    ['1e30', { amount: 1e30 }],
    ['null', { amount: null }],
    ['missing', {}],
  ])('answers 400 naming amount and writes no row: %s', async (_label, payload) => {
    const { creds } = await newPartner({ credit_limit: '100' });
    const before = await walletRowOf(creds.partner_id);
    const res = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/credit-limit`, payload);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^amount: /) });
    expect(await rowsOf(creds.partner_id)).toHaveLength(1);
    expect(await walletRowOf(creds.partner_id)).toEqual(before);
  });
});

describe('partner ids', () => {
  const routes: Array<[string, string, unknown]> = [
    ['GET', 'wallet', undefined],
    ['POST', 'topup', { amount: '10' }],
    ['POST', 'credit-limit', { amount: '10' }],
    ['POST', 'rotate-secret', {}],
    ['POST', 'rotate-agency-key', {}],
    ['POST', 'disable', {}],
  ];

  it.each(routes)('%s /admin/partners/x/%s answers 400 naming the partner', async (method, suffix, payload) => {
    for (const id of ['x', '0', '-1', '1.5', '01']) {
      const res =
        method === 'GET'
          ? await adminClient(stack).get(`/admin/partners/${id}/${suffix}`)
          : await adminClient(stack).post(`/admin/partners/${id}/${suffix}`, payload);
      expect({ id, status: res.status }).toEqual({ id, status: 400 });
      expect(res.body).toEqual({ error: expect.stringMatching(/^partner: /) });
    }
  });

  it.each(routes)('%s /admin/partners/999999/%s answers 404', async (method, suffix, payload) => {
    const res =
      method === 'GET'
        ? await adminClient(stack).get(`/admin/partners/999999/${suffix}`)
        : await adminClient(stack).post(`/admin/partners/999999/${suffix}`, payload);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.stringMatching(/999999.*not found/) });
  });

  it('answers 400 or 404, not 500, to a partner id beyond the integer range', async () => {
    for (const id of ['2147483648', '9999999999']) {
      const res = await adminClient(stack).get(`/admin/partners/${id}/wallet`);
      expect([400, 404]).toContain(res.status);
    }
  });

  it('answers 404 to the largest integer id', async () => {
    expect((await adminClient(stack).get('/admin/partners/2147483647/wallet')).status).toBe(404);
  });

  it('answers 404 {error} to an unknown admin route', async () => {
    const res = await adminClient(stack).get('/admin/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('credential rotation', () => {
  it('rotate-agency-key returns a new agency key and stores only its digest', async () => {
    const { creds } = await newPartner();
    const before = await connectionsOf(creds.partner_id);
    const res = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/rotate-agency-key`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ partner_id: creds.partner_id, agency_key: expect.any(String) });
    expect(res.body.agency_key).not.toBe(creds.agency_key);
    const after = await connectionsOf(creds.partner_id);
    expect(after[1]!.keyHash).not.toBe(before[1]!.keyHash);
    expect(after[1]!.keyHash).not.toContain(res.body.agency_key);
    expect(after[0]!.secretHash).toBe(before[0]!.secretHash);

    const again = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/rotate-agency-key`);
    expect(again.body.agency_key).not.toBe(res.body.agency_key);
  });

  it('rotate-secret returns the same key and a new secret, and stores only its digest', async () => {
    const { creds } = await newPartner();
    const res = await adminClient(stack).post(`/admin/partners/${creds.partner_id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ partner_id: creds.partner_id, api_key: creds.api_key, api_secret: expect.any(String) });
    expect(res.body.api_secret).not.toBe(creds.api_secret);
    const [row] = await stack.db.select().from(partners).where(eq(partners.id, creds.partner_id));
    expect(JSON.stringify(row)).not.toContain(res.body.api_secret);
  });
});

describe('admin CLI: toCommand', () => {
  it('maps partner create with amounts and --json to POST /admin/partners', () => {
    expect(toCommand(['partner', 'create', '--name', 'X', '--credit-limit', '5', '--topup', '7', '--json'])).toEqual({
      json: true,
      command: { method: 'POST', path: '/admin/partners', body: { name: 'X', credit_limit: '5', topup: '7' } },
    });
  });

  it('maps partner create without amounts (they stay undefined) and without --json', () => {
    const { json, command } = toCommand(['partner', 'create', '--name', 'Blue Sky']);
    expect(json).toBe(false);
    expect(command).toEqual({ method: 'POST', path: '/admin/partners', body: { name: 'Blue Sky' } });
    expect(command.body!.credit_limit).toBeUndefined();
    expect(command.body!.topup).toBeUndefined();
  });

  it('maps wallet topup to POST /admin/partners/:id/topup', () => {
    expect(toCommand(['wallet', 'topup', '--partner', '3', '--amount', '10'])).toEqual({
      json: false,
      command: { method: 'POST', path: '/admin/partners/3/topup', body: { amount: '10' }, headers: { 'idempotency-key': expect.stringMatching(/^cli-/) } },
    });
    expect(toCommand(['wallet', 'topup', '--partner', '3', '--amount', '10', '--note', 'wire']).command.body).toEqual({ amount: '10', note: 'wire' });
  });

  it('maps the other commands', () => {
    expect(toCommand(['wallet', 'credit-limit', '--partner', '12', '--amount', '500000.00']).command).toEqual({
      method: 'POST',
      path: '/admin/partners/12/credit-limit',
      body: { amount: '500000.00' },
      headers: { 'idempotency-key': expect.stringMatching(/^cli-/) },
    });
    expect(toCommand(['wallet', 'show', '--partner', '4']).command).toEqual({ method: 'GET', path: '/admin/partners/4/wallet' });
    expect(toCommand(['partner', 'rotate-secret', '--partner', '4']).command).toEqual({ method: 'POST', path: '/admin/partners/4/rotate-secret' });
    expect(toCommand(['partner', 'rotate-agency-key', '--partner', '4']).command).toEqual({ method: 'POST', path: '/admin/partners/4/rotate-agency-key' });
    expect(toCommand(['partner', 'disable', '--partner', '4', '--json'])).toEqual({
      json: true,
      command: { method: 'POST', path: '/admin/partners/4/disable' },
    });
  });

  it('throws without --partner', () => {
    expect(() => toCommand(['wallet', 'topup', '--amount', '10'])).toThrow(/--partner is required/);
    expect(() => toCommand(['partner', 'disable'])).toThrow(/--partner is required/);
  });

  it('throws on a --partner that is not a positive integer', () => {
    expect(() => toCommand(['wallet', 'topup', '--partner', 'abc', '--amount', '10'])).toThrow(/--partner must be/);
    expect(() => toCommand(['wallet', 'show', '--partner', '0'])).toThrow(/--partner must be/);
    expect(() => toCommand(['wallet', 'show', '--partner', '-3'])).toThrow();
  });

  it('throws without required values', () => {
    expect(() => toCommand(['wallet', 'topup', '--partner', '3'])).toThrow(/--amount is required/);
    expect(() => toCommand(['partner', 'create'])).toThrow(/--name is required/);
    expect(() => toCommand(['partner', 'create', '--name', ''])).toThrow(/--name is required/);
  });

  it('throws on an unknown command, a missing command and an unknown option', () => {
    expect(() => toCommand(['partner', 'delete', '--partner', '3'])).toThrow(/unknown command: partner delete/);
    expect(() => toCommand(['frobnicate'])).toThrow(/unknown command/);
    expect(() => toCommand([])).toThrow(/a command is required/);
    expect(() => toCommand(['wallet', 'show', '--partner', '3', '--bogus'])).toThrow();
  });
});
