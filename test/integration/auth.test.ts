import fs from 'node:fs';
import path from 'node:path';
import { adminClient, call, partnerClient, type PartnerCredentials, type Reply } from '../support/clients';
import { type TestStack, useStack } from '../support/stack';

/**
 * Interface A's authentication (spec §5, §7): X-API-KEY (64 hex) + X-API-SECRET on every
 * route but the published contract; every failure is a 401 with the `{ok: false, error}` envelope.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const WALLET = '/api/partners/wallet/';
const BASKET_ITEMS = '/api/products/basket/items/';
const BASKET_BODY = { product: 1, variant: 1, quantity: 1 };

/** A raw call to Interface A with exactly the headers given (no credentials added). */
const send = (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> =>
  call(stack.app, method, path, headers, body);

const creds = (c: Pick<PartnerCredentials, 'api_key' | 'api_secret'>) => ({ 'x-api-key': c.api_key, 'x-api-secret': c.api_secret });

/** Both the GET and the POST answer 401 with exactly `{ok: false, error}` and an X-Request-Id. */
async function expectUnauthorized(headers: Record<string, string>, message?: RegExp): Promise<void> {
  for (const [method, path, body] of [
    ['GET', WALLET, undefined],
    ['POST', BASKET_ITEMS, BASKET_BODY],
  ] as const) {
    const res = await send(method, path, headers, body);
    expect({ method, status: res.status }).toEqual({ method, status: 401 });
    expect(res.body).toEqual({ ok: false, error: expect.any(String) });
    expect(Object.keys(res.body).sort()).toEqual(['error', 'ok']);
    expect(res.body.error.length).toBeGreaterThan(0);
    if (message) expect(res.body.error).toMatch(message);
    expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
  }
}

async function newPartner(): Promise<PartnerCredentials> {
  return adminClient(stack).createPartner({ credit_limit: '0', topup: '5000000' });
}

describe('Interface A authentication', () => {
  let me: PartnerCredentials;
  let other: PartnerCredentials;

  beforeAll(async () => {
    me = await newPartner();
    other = await newPartner();
  });

  it('accepts the right key and secret on a GET and a POST', async () => {
    const wallet = await send('GET', WALLET, creds(me));
    expect(wallet.status).toBe(200);
    expect(wallet.body).toMatchObject({ ok: true, data: { balance: '5000000.00' } });
    expect(wallet.headers.get('x-request-id')).toBeTruthy();

    const add = await send('POST', BASKET_ITEMS, creds(me), BASKET_BODY);
    expect(add.status).toBe(201);
    expect(add.body.ok).toBe(true);
  });

  it('answers 401 without any credential header', async () => {
    await expectUnauthorized({}, /missing/i);
  });

  it('answers 401 with only the key or only the secret', async () => {
    await expectUnauthorized({ 'x-api-key': me.api_key }, /missing/i);
    await expectUnauthorized({ 'x-api-secret': me.api_secret }, /missing/i);
    await expectUnauthorized({ 'x-api-key': '', 'x-api-secret': me.api_secret });
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': '' });
  });

  it.each([
    ['a short key', 'abc'],
    ['63 hex characters', 'a'.repeat(63)],
    ['65 hex characters', 'a'.repeat(65)],
    ['64 non-hex characters', 'z'.repeat(64)],
    ['the real key with one extra character', 'KEY+0'],
    ['the real key less its last character', 'KEY-1'],
  ])('answers 401 to a key that is not 64 hex characters: %s', async (_label, raw) => {
    const key = raw === 'KEY+0' ? `${me.api_key}0` : raw === 'KEY-1' ? me.api_key.slice(0, 63) : raw;
    await expectUnauthorized({ 'x-api-key': key, 'x-api-secret': me.api_secret });
  });

  it('answers 401 to a well-formed key nobody holds', async () => {
    const unknown = me.api_key.startsWith('0') ? `1${me.api_key.slice(1)}` : `0${me.api_key.slice(1)}`;
    await expectUnauthorized({ 'x-api-key': unknown, 'x-api-secret': me.api_secret }, /invalid/i);
    await expectUnauthorized({ 'x-api-key': 'f'.repeat(64), 'x-api-secret': me.api_secret }, /invalid/i);
  });

  it('answers 401 to the right key with a wrong secret', async () => {
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': 'wrong-secret' }, /invalid/i);
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': `${me.api_secret}x` }, /invalid/i);
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': me.api_secret.toUpperCase() === me.api_secret ? 'x' : me.api_secret.toUpperCase() });
  });

  it('answers 401 to my key with another partner’s secret, and to their key with my secret', async () => {
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': other.api_secret }, /invalid/i);
    await expectUnauthorized({ 'x-api-key': other.api_key, 'x-api-secret': me.api_secret }, /invalid/i);
  });

  it('answers 401 to the agency key sent as X-API-SECRET', async () => {
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': me.agency_key }, /invalid/i);
    await expectUnauthorized({ 'x-api-key': me.api_key, authorization: `Bearer ${me.agency_key}` }, /missing/i);
  });

  it('answers 401 to the key sent as both headers', async () => {
    await expectUnauthorized({ 'x-api-key': me.api_key, 'x-api-secret': me.api_key }, /invalid/i);
  });

  it('accepts the key in upper-case hex (authenticatePartner lower-cases it)', async () => {
    const upper = { 'x-api-key': me.api_key.toUpperCase(), 'x-api-secret': me.api_secret };
    expect(upper['x-api-key']).toMatch(/^[0-9A-F]{64}$/);
    const res = await send('GET', WALLET, upper);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, data: { balance: '5000000.00' } });
    // Mixed case too.
    const mixed = me.api_key.replace(/[a-f]/g, (ch, i: number) => (i % 2 ? ch.toUpperCase() : ch));
    expect((await send('GET', WALLET, { 'x-api-key': mixed, 'x-api-secret': me.api_secret })).status).toBe(200);
  });

  it('echoes a sane X-Request-Id the caller sent, on a 401 too', async () => {
    const res = await send('GET', WALLET, { 'x-request-id': 'req-auth-12345678' });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe('req-auth-12345678');
  });

  it('answers 401 "disabled" once the operator disables the partner, and never lets it back in', async () => {
    const victim = await newPartner();
    expect((await send('GET', WALLET, creds(victim))).status).toBe(200);

    const disabled = await adminClient(stack).post(`/admin/partners/${victim.partner_id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ partner_id: victim.partner_id, status: 'disabled' });

    await expectUnauthorized(creds(victim), /disabled/i);
    // A wrong secret for a disabled partner does not reveal that the account exists and is disabled.
    const wrong = await send('GET', WALLET, { 'x-api-key': victim.api_key, 'x-api-secret': 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).not.toMatch(/disabled/i);
    // Other partners are unaffected.
    expect((await send('GET', WALLET, creds(me))).status).toBe(200);
  });

  it('rejects the old secret after rotate-secret and accepts the new one', async () => {
    const p = await newPartner();
    // Used first, so that the rotation must reach a process that has just authenticated it.
    expect((await send('GET', WALLET, creds(p))).status).toBe(200);
    const rotated = await adminClient(stack).post(`/admin/partners/${p.partner_id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ partner_id: p.partner_id, api_key: p.api_key, api_secret: expect.any(String) });
    expect(rotated.body.api_secret).not.toBe(p.api_secret);

    await expectUnauthorized(creds(p), /invalid/i);
    const fresh = { api_key: p.api_key, api_secret: rotated.body.api_secret as string };
    const wallet = await send('GET', WALLET, creds(fresh));
    expect(wallet.status).toBe(200);
    expect(wallet.body.data.balance).toBe('5000000.00');
    expect((await send('POST', BASKET_ITEMS, creds(fresh), BASKET_BODY)).status).toBe(201);
    expect((await partnerClient(stack, fresh).wallet()).balance).toBe('5000000.00');
  });

  it('rotating the agency key retires the old one on Interface B at once, and does not change Interface A credentials', async () => {
    const p = await newPartner();
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    expect((await send('GET', '/v1/products', bearer(p.agency_key))).status).toBe(200);
    const rotated = await adminClient(stack).post(`/admin/partners/${p.partner_id}/rotate-agency-key`);
    expect(rotated.status).toBe(200);
    expect((await send('GET', '/v1/products', bearer(p.agency_key))).status).toBe(401);
    expect((await send('GET', '/v1/products', bearer(rotated.body.agency_key as string))).status).toBe(200);
    expect((await send('GET', WALLET, creds(p))).status).toBe(200);
    await expectUnauthorized({ 'x-api-key': p.api_key, 'x-api-secret': rotated.body.agency_key }, /invalid/i);
  });
});

describe('the published contract and unknown routes', () => {
  it('serves /api/openapi.json without credentials', async () => {
    const res = await send('GET', '/api/openapi.json', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/partners/pay/', '/partners/wallet/', '/partners/ledger/']));
    expect(res.body.components.securitySchemes).toEqual({
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
      ApiSecret: { type: 'apiKey', in: 'header', name: 'X-API-SECRET' },
      ConsoleSession: { type: 'apiKey', in: 'cookie', name: 'tbe_session', description: expect.stringMatching(/X-CSRF-Token/) },
    });
    expect(res.body.paths['/partners/pay/'].post.security).toEqual([{ ApiKey: [], ApiSecret: [] }, { ConsoleSession: [] }]);
  });

  it('serves /api/docs as HTML without credentials', async () => {
    const res = await send('GET', '/api/docs', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(String(res.body)).toMatch(/<html|<!doctype html/i);
    expect(String(res.body)).toContain('/api/openapi.json');
  });

  it('documents X-Sandbox-Scenario on exactly the operations that read it, with the values each accepts and what they do', async () => {
    const pay = ['supplier_reject', 'supplier_flaky', 'supplier_slow', 'supplier_down', 'supplier_lost_response'];
    const hotel = ['price_changed', 'supplier_reject', 'supplier_flaky', 'supplier_slow', 'cancel_reject'];
    const flight = ['price_changed', 'supplier_reject', 'supplier_flaky', 'supplier_slow', 'refund_reject'];
    const agency = ['supplier_reject', 'supplier_flaky', 'supplier_slow'];
    const expected: Record<string, Record<string, string[]>> = {
      '/api/openapi.json': {
        // A flight paid with schedule_change is later moved by its airline.
        'POST /partners/pay/': [...pay, 'schedule_change'],
        'POST /hotel/check_rate/': hotel,
        'POST /hotel/prebook/': hotel,
        'POST /hotel/book/': hotel,
        'POST /hotel/cancel/': hotel,
        'POST /flights/revalidate_flight/': flight,
        'POST /flights/air_refund/': flight,
        'POST /flights/air_booking/': ['seat_taken'],
        'POST /flights/air_change_request/': ['change_penalty', 'change_offer_expires'],
        'POST /flights/air_change_confirm/': ['supplier_reject', 'supplier_lost_response', 'supplier_down'],
        'POST /flights/air_order_services/': ['bag_refused', 'supplier_lost_response'],
        'POST /flights/air_schedule_change/': ['supplier_flaky', 'supplier_lost_response'],
        'POST /visa/request/': ['visa_approve', 'visa_reject'],
        'POST /residence/bookings/modify/': pay,
      },
      '/v1/openapi.json': { 'POST /hotels/bookings': agency, 'POST /products/orders': agency },
    };
    type Param = { name: string; in: string; required?: boolean; description?: string; schema: { enum?: string[] } };
    for (const [url, operations] of Object.entries(expected)) {
      const doc = (await send('GET', url, {})).body as { paths: Record<string, Record<string, { parameters?: Param[] }>> };
      const documented: Record<string, string[]> = {};
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const header = op.parameters?.find((p) => p.name.toLowerCase() === 'x-sandbox-scenario');
          if (!header) continue;
          const key = `${method.toUpperCase()} ${path}`;
          documented[key] = header.schema.enum ?? [];
          expect({ key, in: header.in, required: header.required }).toEqual({ key, in: 'header', required: false });
          expect(header.description).toMatch(/^Sandbox only/);
          // Each value is explained: what it simulates here, or that it is accepted without effect.
          for (const value of documented[key])
            expect({ key, value, described: header.description!.includes(`\`${value}\``) }).toEqual({ key, value, described: true });
        }
      }
      expect(documented).toEqual(operations);
    }
  });

  it('serves the /docs landing page and Swagger UI from the engine itself, never from another host', async () => {
    // The exact version package.json pins is the one served (and is part of every asset URL).
    const version = (JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { dependencies: Record<string, string> })
      .dependencies['swagger-ui-dist']!;
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const landing = await send('GET', '/docs', {});
    expect(landing.status).toBe(200);
    expect(landing.headers.get('content-type')).toMatch(/text\/html/);
    expect(landing.headers.get('cache-control')).toBe('no-cache');
    for (const link of ['/api/docs', '/v1/docs', '/api/openapi.json', '/v1/openapi.json']) expect(String(landing.body)).toContain(`href="${link}"`);

    for (const page of ['/docs', '/api/docs', '/v1/docs']) {
      const res = await send('GET', page, {});
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      // Every URL a page names is on this server (or a fragment), no CDN.
      const urls = [...String(res.body).matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
      expect(urls.filter((u) => !u.startsWith('/'))).toEqual([]);
    }

    const assets = [
      ['swagger-ui-bundle.js', /^text\/javascript/],
      ['swagger-ui.css', /^text\/css/],
      ['favicon-32x32.png', /^image\/png$/],
    ] as const;
    for (const [file, type] of assets) {
      const res = await stack.app.request(`/docs/swagger-ui/${version}/${file}`);
      expect({ file, status: res.status }).toEqual({ file, status: 200 });
      expect(res.headers.get('content-type')).toMatch(type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    // Only those files, only in the installed version.
    for (const path of [`/docs/swagger-ui/${version}/package.json`, `/docs/swagger-ui/${version}/..%2Fpackage.json`, '/docs/swagger-ui/0.0.1/swagger-ui.css']) {
      expect({ path, status: (await send('GET', path, {})).status }).toEqual({ path, status: 404 });
    }
  });

  it('answers 404 with an X-Request-Id for an unknown /api route with valid credentials', async () => {
    const me = await newPartner();
    for (const path of ['/api/partners/nothing-here/', '/api/nothing', '/api/partners/wallet/extra/']) {
      const res = await send('GET', path, creds(me));
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(typeof res.body.error).toBe('string');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('answers 404 with the envelope for an unknown /api route with valid credentials', async () => {
    const me = await newPartner();
    const res = await send('GET', '/api/partners/nothing-here/', creds(me));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, error: expect.any(String) });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers 401, not 404, for an unknown /api route without credentials', async () => {
    const res = await send('GET', '/api/partners/nothing-here/', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, error: expect.any(String) });
  });
});
