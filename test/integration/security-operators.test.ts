import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { loadConfig } from '../../src/config';
import { adminIdempotencyKeys, operatorActions, operators, wallets } from '../../src/db/schema';
import { tokenHash } from '../../src/domain/operator-tokens';
import { ensureAdminToken } from '../../src/runtime/admin-token';
import { adminTls } from '../../src/runtime/serve-http';
import { listen } from '../../src/platform/listen';
import { toCommand } from '../../src/cli/admin';
import { call, newPartner } from '../support/clients';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/**
 * Operators are people: named tokens, stored hashed; the audit names the token's operator and
 * commits with its action; money movements take an Idempotency-Key; the admin port is not
 * served in plain HTTP off loopback by accident, throttles bad tokens, and keeps /metrics and
 * the health detail to operators.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const bootstrap = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const walletOf = async (partnerId: number) => (await stack.db.select().from(wallets).where(eq(wallets.partnerId, partnerId)))[0]!;

async function addOperator(name: string): Promise<string> {
  const res = await call(stack.admin, 'POST', '/admin/operators', bootstrap, { name });
  expect(res.status).toBe(201);
  return res.body.token as string;
}

describe('named operator tokens', () => {
  it('shows a token once, stores only its SHA-256, lists the operator and refuses a revoked token', async () => {
    const res = await call(stack.admin, 'POST', '/admin/operators', bootstrap, { name: 'alice' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'alice',
      token: expect.stringMatching(/^tbo_[A-Za-z0-9_-]{43}$/),
      created_at: expect.any(String),
      created_by: 'bootstrap',
      last_used_at: null,
      revoked_at: null,
    });
    const token = res.body.token as string;
    const [row] = await stack.db.select().from(operators).where(eq(operators.name, 'alice'));
    expect(row!.tokenHash).toBe(tokenHash(token));
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    // Nothing else in the database holds it either (the audit keeps the request's body, not the answer).
    const dump = await stack.db.execute(sql`select row_to_json(a)::text as j from operator_actions a`);
    expect(JSON.stringify(dump)).not.toContain(token.slice(4));

    expect((await call(stack.admin, 'GET', '/admin/audit', as(token))).status).toBe(200);
    const listed = await call(stack.admin, 'GET', '/admin/operators', as(token));
    expect(listed.body.results).toContainEqual(expect.objectContaining({ name: 'alice', last_used_at: expect.any(String), revoked_at: null }));

    expect((await call(stack.admin, 'POST', '/admin/operators', bootstrap, { name: 'alice' })).status).toBe(409);
    expect((await call(stack.admin, 'POST', '/admin/operators', bootstrap, { name: 'bootstrap' })).status).toBe(400);

    const revoked = await call(stack.admin, 'POST', '/admin/operators/alice/revoke', bootstrap);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await call(stack.admin, 'GET', '/admin/audit', as(token))).status).toBe(401);
    expect((await call(stack.admin, 'GET', '/admin/audit', as(`${token}x`))).status).toBe(401);
  });

  it('records the token’s operator in the audit, whatever X-Operator says', async () => {
    const token = await addOperator('bob');
    const { creds } = await newPartner(stack, '0', '0');
    const res = await call(stack.admin, 'POST', `/admin/partners/${creds.partner_id}/topup`, { ...as(token), 'x-operator': 'mallory' }, { amount: '100' });
    expect(res.status).toBe(200);
    const audit = await stack.db
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.target, `partners/${creds.partner_id}/topup`));
    expect(audit.map((a) => a.operator)).toEqual(['bob']);
  });

  it('refuses a bootstrap token shorter than 32 characters at start-up', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'sixteen-chars-ok-but-not-32' })).toThrow(/ADMIN_TOKEN: must be at least 32/);
    expect(() => ensureAdminToken('short-token-of-twenty', os.tmpdir())).toThrow(/at least 32/);
    expect(ensureAdminToken(ADMIN_TOKEN, os.tmpdir()).token).toBe(ADMIN_TOKEN);
  });

  it('the CLI adds, lists and revokes operators, and sends an Idempotency-Key on every money movement', () => {
    expect(toCommand(['operator', 'add', 'carol']).command).toMatchObject({ method: 'POST', path: '/admin/operators', body: { name: 'carol' } });
    expect(toCommand(['operator', 'list']).command).toMatchObject({ method: 'GET', path: '/admin/operators' });
    expect(toCommand(['operator', 'revoke', '7']).command).toMatchObject({ method: 'POST', path: '/admin/operators/7/revoke' });
    const given = toCommand(['wallet', 'topup', '--partner', '1', '--amount', '5', '--idempotency-key', 'k-1']).command;
    expect(given.headers).toEqual({ 'idempotency-key': 'k-1' });
    const a = toCommand(['wallet', 'credit-limit', '--partner', '1', '--amount', '5']).command.headers!['idempotency-key'];
    const b = toCommand(['wallet', 'credit-limit', '--partner', '1', '--amount', '5']).command.headers!['idempotency-key'];
    expect(a).toMatch(/^cli-/);
    expect(a).not.toBe(b);
  });
});

describe('the audit commits with its action', () => {
  it('rolls a top-up back when its audit row cannot be written', async () => {
    const { creds } = await newPartner(stack, '0', '1000');
    const before = await walletOf(creds.partner_id);
    await stack.db.execute(sql`alter table operator_actions add constraint audit_refuses_test check (reason is distinct from 'refuse-audit')`);
    try {
      const res = await call(stack.admin, 'POST', `/admin/partners/${creds.partner_id}/topup`, bootstrap, { amount: '500', note: 'refuse-audit' });
      expect(res.status).toBe(500);
      const limit = await call(stack.admin, 'POST', `/admin/partners/${creds.partner_id}/credit-limit`, bootstrap, { amount: '700', note: 'refuse-audit' });
      expect(limit.status).toBe(500);
    } finally {
      await stack.db.execute(sql`alter table operator_actions drop constraint audit_refuses_test`);
    }
    const after = await walletOf(creds.partner_id);
    expect({ balance: after.balance, creditLimit: after.creditLimit }).toEqual({ balance: before.balance, creditLimit: before.creditLimit });
  });
});

describe('idempotent top-ups and credit limits', () => {
  it('credits once for a key sent twice, answers the first answer again, and 422s the key on another body', async () => {
    const { creds } = await newPartner(stack, '0', '0');
    const topup = (key: string, amount: string) =>
      call(stack.admin, 'POST', `/admin/partners/${creds.partner_id}/topup`, { ...bootstrap, 'idempotency-key': key }, { amount, note: 'wire 42' });
    const first = await topup('wire-42', '250');
    expect(first.status).toBe(200);
    expect(first.body.balance).toBe('250.00');
    const again = await topup('wire-42', '250');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await walletOf(creds.partner_id)).balance).toBe(250_00);

    const other = await topup('wire-42', '999');
    expect(other.status).toBe(422);
    expect(other.body.error).toMatch(/Idempotency-Key/);
    expect((await walletOf(creds.partner_id)).balance).toBe(250_00);
    // Another action under the same key is refused too.
    const limit = await call(
      stack.admin,
      'POST',
      `/admin/partners/${creds.partner_id}/credit-limit`,
      { ...bootstrap, 'idempotency-key': 'wire-42' },
      { amount: '250' },
    );
    expect(limit.status).toBe(422);

    const audit = await stack.db
      .select()
      .from(operatorActions)
      .where(eq(operatorActions.target, `partners/${creds.partner_id}/topup`));
    expect(audit).toHaveLength(1);
    const [stored] = await stack.db.select().from(adminIdempotencyKeys).where(eq(adminIdempotencyKeys.key, 'wire-42'));
    expect(stored).toMatchObject({ operator: 'bootstrap', status: 200, path: `/admin/partners/${creds.partner_id}/topup` });

    const concurrent = await Promise.all([1, 2, 3].map(() => topup('wire-43', '10')));
    expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await walletOf(creds.partner_id)).balance).toBe(260_00);

    expect((await topup('bad key with spaces', '1')).status).toBe(400);
  });

  it('sets a credit limit once per key', async () => {
    const { creds } = await newPartner(stack, '0', '0');
    const set = (amount: string) =>
      call(stack.admin, 'POST', `/admin/partners/${creds.partner_id}/credit-limit`, { ...bootstrap, 'idempotency-key': 'limit-1' }, { amount });
    expect((await set('1000')).status).toBe(200);
    expect((await set('1000')).body.credit_limit).toBe('1000.00');
    expect((await set('2000')).status).toBe(422);
    expect((await walletOf(creds.partner_id)).creditLimit).toBe(1000_00);
  });
});

describe('the admin port', () => {
  it('refuses a non-loopback ADMIN_HOST without TLS or ADMIN_ALLOW_PLAIN_HTTP', () => {
    const token = { ADMIN_TOKEN };
    for (const host of ['0.0.0.0', '10.1.2.3', '::', 'admin.internal']) {
      expect(() => loadConfig({ ...token, ADMIN_HOST: host })).toThrow(/ADMIN_HOST: is not a loopback address/);
    }
    for (const host of ['127.0.0.1', '127.0.0.53', '::1', 'localhost']) expect(loadConfig({ ...token, ADMIN_HOST: host }).ADMIN_HOST).toBe(host);
    expect(loadConfig({ ...token, ADMIN_HOST: '0.0.0.0', ADMIN_ALLOW_PLAIN_HTTP: 'true' }).ADMIN_ALLOW_PLAIN_HTTP).toBe(true);
    expect(() => loadConfig({ ...token, ADMIN_HOST: '0.0.0.0', ADMIN_TLS_CERT: '/x.pem' })).toThrow(/ADMIN_TLS_KEY/);
    expect(loadConfig({ ...token, ADMIN_HOST: '0.0.0.0', ADMIN_TLS_CERT: '/x.pem', ADMIN_TLS_KEY: '/y.pem' }).ADMIN_HOST).toBe('0.0.0.0');
  });

  it('answers over HTTPS with ADMIN_TLS_CERT and ADMIN_TLS_KEY', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], {
      stdio: 'ignore',
    });
    const config = loadConfig({ ADMIN_TOKEN, ADMIN_HOST: '0.0.0.0', ADMIN_TLS_CERT: cert, ADMIN_TLS_KEY: key });
    const server = await listen(stack.admin.fetch, 0, '127.0.0.1', { tls: adminTls(config) });
    try {
      expect(server.url).toMatch(/^https:\/\//);
      const get = (headers: Record<string, string>) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = https.get(`${server.url}/admin/operators`, { ca: fs.readFileSync(cert), servername: 'localhost', headers }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          });
          req.on('error', reject);
        });
      expect((await get({ authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(200);
      expect((await get({})).status).toBe(401);
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 429 with Retry-After to an address past its bad tokens, even with a good token then', async () => {
    const admin = stack.adminWith({ badTokensPerMinute: 5 });
    const server = await listen(admin.fetch, 0, '127.0.0.1');
    try {
      const get = (token: string) => fetch(`${server.url}/admin/audit`, { headers: { authorization: `Bearer ${token}` } });
      expect((await get(ADMIN_TOKEN)).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await get(`guess-${i}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const refused = await get(ADMIN_TOKEN);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('serves /metrics only with an operator token', async () => {
    const token = await addOperator('prometheus');
    expect((await call(stack.admin, 'GET', '/metrics', {})).status).toBe(401);
    expect((await call(stack.admin, 'GET', '/metrics', { authorization: 'Bearer not-a-token' })).status).toBe(401);
    const scraped = await call(stack.admin, 'GET', '/metrics', { authorization: `Bearer ${token}` });
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('http_request_duration_seconds');
  });
});

describe('health', () => {
  it('tells the public only healthy or not; operators get each part’s check on the admin port', async () => {
    for (const app of [stack.app, stack.admin]) {
      const res = await call(app, 'GET', '/healthz', {});
      expect([200, 503]).toContain(res.status);
      expect(res.body).toEqual({ ok: res.status === 200 });
    }
    expect((await call(stack.admin, 'GET', '/admin/healthz', {})).status).toBe(401);
    const detail = await call(stack.admin, 'GET', '/admin/healthz', bootstrap);
    expect([200, 503]).toContain(detail.status);
    expect(detail.body).toMatchObject({ ok: expect.any(Boolean), checks: { database: { ok: expect.any(Boolean) }, temporal: { ok: expect.any(Boolean) } } });
  });
});
