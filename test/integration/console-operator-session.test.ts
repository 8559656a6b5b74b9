import { SIGN_IN_FAILURES } from '../../src/http/rate-limit';
import { call, type Reply } from '../support/clients';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';

/**
 * The operator console's sign-in (docs/decisions/consoles.md, "Operators"): a named operator's
 * token exchanged for a session, which the admin API accepts as it accepts the token (the same
 * operator in the audit), with the CSRF token and the Origin checked on every change.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const ORIGIN = 'http://engine.test';
const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function namedOperator(name: string): Promise<string> {
  const added = await call(stack.admin, 'POST', '/admin/operators', bearer, { name });
  expect(added.status).toBe(201);
  return added.body.token as string;
}

async function signIn(token: string, headers: Record<string, string> = {}): Promise<{ res: Reply; cookie: string; csrf: string }> {
  const res = await call(stack.admin, 'POST', '/admin/session', headers, { token });
  return { res, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: res.body?.csrf_token };
}

const auditOf = async (target: string) => (await call(stack.admin, 'GET', `/admin/audit?target=${encodeURIComponent(target)}`, bearer)).body.results;

describe('the operator console’s session on the admin API', () => {
  it('signs a named operator in with their token and acts as them, audited as with the token', async () => {
    const token = await namedOperator('console-ava');
    const { res, cookie, csrf } = await signIn(token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ operator: { name: 'console-ava' }, csrf_token: expect.any(String) });
    const set = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^tbe_operator_session=[A-Za-z0-9_-]{43}$/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    // Not a loopback host: Secure.
    expect(set).toMatch(/Secure/);

    const who = await call(stack.admin, 'GET', '/admin/session', { cookie });
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ operator: { name: 'console-ava' }, csrf_token: csrf });

    // A change with the session, then the same with the token: the same operator in the audit.
    const bySession = await call(stack.admin, 'POST', '/admin/fx', { cookie, 'x-csrf-token': csrf, origin: ORIGIN }, { from: 'EUR', rate: '1000' });
    expect(bySession.status).toBe(201);
    expect(bySession.body).toMatchObject({ currency: 'EUR', set_by: 'console-ava' });
    const byToken = await call(stack.admin, 'POST', '/admin/fx', { authorization: `Bearer ${token}` }, { from: 'GBP', rate: '10' });
    expect(byToken.body).toMatchObject({ set_by: 'console-ava' });
    const audit = (await call(stack.admin, 'GET', '/admin/audit?operator=console-ava', bearer)).body.results;
    expect(audit.map((a: { action: string; operator: string }) => [a.action, a.operator])).toEqual([
      ['fx', 'console-ava'],
      ['fx', 'console-ava'],
    ]);
  });

  it('refuses a change without the CSRF token, or from another origin, and writes nothing', async () => {
    const { cookie, csrf } = await signIn(await namedOperator('console-ben'));
    const before = (await call(stack.admin, 'GET', '/admin/markups', bearer)).body.results.length;
    const rule = { service: 'tours', percent: '3' };

    const noToken = await call(stack.admin, 'POST', '/admin/markups', { cookie, origin: ORIGIN }, rule);
    expect(noToken.status).toBe(403);
    expect(noToken.body.error).toMatch(/x-csrf-token/);
    const wrongToken = await call(stack.admin, 'POST', '/admin/markups', { cookie, origin: ORIGIN, 'x-csrf-token': 'x'.repeat(43) }, rule);
    expect(wrongToken.status).toBe(403);
    const crossOrigin = await call(stack.admin, 'POST', '/admin/markups', { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf }, rule);
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.body.error).toMatch(/another origin/);
    const crossDelete = await call(stack.admin, 'DELETE', '/admin/session', { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf });
    expect(crossDelete.status).toBe(403);

    expect((await call(stack.admin, 'GET', '/admin/markups', bearer)).body.results.length).toBe(before);
    expect(await auditOf('markups')).toEqual([]);
    // Reading needs no CSRF token; the same change with it is taken.
    expect((await call(stack.admin, 'GET', '/admin/markups', { cookie })).status).toBe(200);
    expect((await call(stack.admin, 'POST', '/admin/markups', { cookie, origin: ORIGIN, 'x-csrf-token': csrf }, rule)).status).toBe(201);
    // A session is not begun from another origin either.
    expect((await call(stack.admin, 'POST', '/admin/session', { origin: 'https://evil.example' }, { token: 'tbo_whatever' })).status).toBe(403);
  });

  it('lets Temporal Web decode with a signed-in operator’s session, and nothing else from its origin', async () => {
    const { cookie } = await signIn(await namedOperator('console-una'));
    const fromUi = { cookie, origin: 'http://127.0.0.1:8233' };
    const decoded = await call(stack.admin, 'POST', '/admin/codec/decode', fromUi, { payloads: [] });
    expect(decoded.status).toBe(200);
    expect(decoded.body).toEqual({ payloads: [] });
    expect((await call(stack.admin, 'POST', '/admin/fx', fromUi, { from: 'EUR', rate: '1000' })).status).toBe(403);
    expect((await call(stack.admin, 'POST', '/admin/codec/decode', { origin: 'http://127.0.0.1:8233' }, { payloads: [] })).status).toBe(401);
  });

  it('ends a revoked operator’s sessions at once, and a signed-out one', async () => {
    const { cookie, csrf } = await signIn(await namedOperator('console-cyrus'));
    expect((await call(stack.admin, 'GET', '/admin/needs-attention', { cookie })).status).toBe(200);
    expect((await call(stack.admin, 'POST', '/admin/operators/console-cyrus/revoke', bearer, {})).status).toBe(200);
    const after = await call(stack.admin, 'GET', '/admin/needs-attention', { cookie });
    expect(after.status).toBe(401);
    expect(after.body.error).toMatch(/revoked/);
    expect((await call(stack.admin, 'POST', '/admin/fx', { cookie, 'x-csrf-token': csrf }, { from: 'CHF', rate: '1' })).status).toBe(401);

    const other = await signIn(await namedOperator('console-dara'));
    const out = await call(stack.admin, 'DELETE', '/admin/session', { cookie: other.cookie, 'x-csrf-token': other.csrf, origin: ORIGIN });
    expect(out.body).toEqual({ signed_out: true });
    expect((await call(stack.admin, 'GET', '/admin/session', { cookie: other.cookie })).status).toBe(401);
  });

  it('shows the API’s refusal of a decision without a reason on the console page, with its status', async () => {
    const { cookie, csrf } = await signIn(await namedOperator('console-farah'));
    const form = new URLSearchParams({ csrf, action: 'compensate', reason: '' }).toString();
    const res = await stack.admin.request(`${ORIGIN}/console/queue/999999`, {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/role="alert"[^>]*>reason: say why/);
    // The same form without its CSRF token is refused by the API, not by the console.
    const forged = await stack.admin.request(`${ORIGIN}/console/queue/999999`, {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: 'compensate', reason: 'a good reason' }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(await auditOf('orders/999999')).toEqual([]);
  });

  it('refuses the bootstrap token, unknown and revoked tokens, and throttles failures per address', async () => {
    const boot = await signIn(ADMIN_TOKEN);
    expect(boot.res.status).toBe(401);
    expect(boot.res.body.error).toMatch(/named operator token/);
    expect(boot.res.headers.get('set-cookie')).toBeNull();
    expect((await call(stack.admin, 'POST', '/admin/session', {}, {})).status).toBe(400);

    const good = await namedOperator('console-elham');
    // A token names no account: the address is the account, held to an account's budget.
    for (let i = 0; i < SIGN_IN_FAILURES.perAccount; i++) {
      expect((await signIn(`tbo_${'w'.repeat(43)}${i}`)).res.status).toBe(401);
    }
    // Past the address's budget, even the right token waits.
    const throttled = await signIn(good);
    expect(throttled.res.status).toBe(429);
    expect(Number(throttled.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.res.headers.get('set-cookie')).toBeNull();
  });
});
