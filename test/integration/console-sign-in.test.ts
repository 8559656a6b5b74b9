import { eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { agencyUsers } from '../../src/db/schema';
import { SIGN_IN_FAILURES } from '../../src/http/rate-limit';
import { adminClient, call, type PartnerCredentials, type Reply } from '../support/clients';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { toCommand } from '../../src/cli/admin';
import { SMTPServer } from 'smtp-server';
import { smtpMailer } from '../../src/platform/mailer';

/**
 * The agency console's sign-in (docs/decisions/console-sign-in.md): passwords set through
 * one-time links and kept as argon2id, a session cookie that signs a browser in to Interface A
 * with its role's rights, CSRF and origin checks on every change, and throttled failures.
 */

let stack: TestStack;
useStack((s) => (stack = s));

const aHeaders = (k: { api_key: string; api_secret: string }) => ({ 'x-api-key': k.api_key, 'x-api-secret': k.api_secret });
const PASSWORD = 'correct horse battery staple';

/** A mail body as sent (quoted-printable): its soft line breaks joined, its =XX escapes decoded. */
const quotedPrintable = (text: string) => text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

let agency: PartnerCredentials;
let owner: Record<string, string>;

beforeAll(async () => {
  agency = await adminClient(stack).createPartner({ credit_limit: '0', topup: '10000000' });
  owner = aHeaders(agency);
});

/** A user of `role` whose password is set through their invitation link. */
async function userWithPassword(email: string, role: string): Promise<number> {
  const user = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: email.split('@')[0], email, role });
  expect(user.status).toBe(201);
  const invited = await call(stack.app, 'POST', `/api/partners/users/${user.body.data.id}/invitation/`, owner, {});
  expect(invited.status).toBe(201);
  const token = String(invited.body.data.url).split('#token=')[1];
  expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: PASSWORD })).status).toBe(200);
  return user.body.data.id;
}

/** Signs in: the cookie to send back and the CSRF token. */
async function signIn(email: string, password = PASSWORD): Promise<{ res: Reply; cookie: string; csrf: string }> {
  const res = await call(stack.app, 'POST', '/api/partners/session/', {}, { email, password });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { res, cookie: setCookie.split(';')[0]!, csrf: res.body?.data?.csrf_token };
}

describe('the agency console’s sign-in', () => {
  it('sets a password once through an invitation, kept as a memory-hard hash', async () => {
    const user = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: 'Mina', email: 'mina@console.example', role: 'viewer' });
    const invited = await call(stack.app, 'POST', `/api/partners/users/${user.body.data.id}/invitation/`, owner, {});
    expect(invited.body.data).toMatchObject({ purpose: 'invitation', url: expect.stringMatching(/^\/console\/set-password#token=[A-Za-z0-9_-]{43}$/) });
    const token = String(invited.body.data.url).split('#token=')[1];
    const short = await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatch(/password: must be at least 12 characters/);
    expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: PASSWORD })).status).toBe(200);
    const again = await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: PASSWORD });
    expect(again.status).toBe(404);
    // Its one method; any other is not allowed, credentials or not (TRACE too: the contract fuzzer sends it over a socket).
    for (const method of ['GET', 'PUT', 'DELETE'])
      expect({ method, status: (await call(stack.app, method, '/api/partners/password/', {})).status }).toEqual({ method, status: 405 });
    const [row] = await stack.db.select().from(agencyUsers).where(eq(agencyUsers.id, user.body.data.id));
    // argon2id at 19 MiB and two passes: not a fast hash, and not the password.
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row!.passwordHash).not.toContain(PASSWORD);
    // Nobody without the users right makes a link.
    const viewer = await signIn('mina@console.example');
    const refused = await call(
      stack.app,
      'POST',
      `/api/partners/users/${user.body.data.id}/password-reset/`,
      { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf },
      {},
    );
    expect(refused.status).toBe(403);
  });

  it('signs a browser in with a cookie that carries the role’s rights, and signs it out', async () => {
    await userWithPassword('omid@console.example', 'agent');
    expect((await signIn('omid@console.example', 'not the password at all')).res.status).toBe(401);
    expect((await signIn('nobody@console.example')).res.status).toBe(401);
    const { res, cookie, csrf } = await signIn('OMID@console.example');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ user: { email: 'omid@console.example', role: 'agent' }, agency: { id: agency.partner_id }, csrf_token: csrf });
    expect(res.body.data.rights).toEqual(['book', 'documents', 'modify', 'pay', 'search', 'view']);
    const attributes = res.headers.get('set-cookie')!;
    expect(attributes).toMatch(/^tbe_session=[A-Za-z0-9_-]{43};/);
    expect(attributes).toMatch(/HttpOnly/);
    expect(attributes).toMatch(/SameSite=Strict/);
    expect(attributes).toMatch(/Secure/);

    const session = { cookie };
    expect((await call(stack.app, 'GET', '/api/partners/orders/', session)).status).toBe(200);
    expect((await call(stack.app, 'GET', '/api/partners/session/', session)).body.data).toMatchObject({ csrf_token: csrf });
    // The same rights table as keys: an agent manages no users.
    expect((await call(stack.app, 'GET', '/api/partners/users/', session)).status).toBe(403);
    // A change carries the CSRF token, and comes from no other origin.
    const basket = { product: 1, variant: 2, quantity: 1 };
    const bare = await call(stack.app, 'POST', '/api/products/basket/items/', session, basket);
    expect(bare.status).toBe(403);
    expect(bare.body.error).toMatch(/X-CSRF-Token|x-csrf-token/i);
    expect((await call(stack.app, 'POST', '/api/products/basket/items/', { ...session, 'x-csrf-token': 'x'.repeat(43) }, basket)).status).toBe(403);
    const crossOrigin = await call(
      stack.app,
      'POST',
      '/api/products/basket/items/',
      { ...session, 'x-csrf-token': csrf, origin: 'https://evil.example' },
      basket,
    );
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.body.error).toMatch(/another origin/);
    const made = await call(stack.app, 'POST', '/api/products/basket/items/', { ...session, 'x-csrf-token': csrf, origin: 'http://engine.test' }, basket);
    expect(made.status).toBe(201);

    const out = await call(stack.app, 'DELETE', '/api/partners/session/', { ...session, 'x-csrf-token': csrf });
    expect(out.body.data).toEqual({ signed_out: true });
    expect((await call(stack.app, 'GET', '/api/partners/orders/', session)).status).toBe(401);
  });

  it('ends a user’s sessions when they are deactivated or their password is reset', async () => {
    const id = await userWithPassword('leila@console.example', 'finance');
    const first = await signIn('leila@console.example');
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', { cookie: first.cookie })).status).toBe(200);
    const reset = await call(stack.app, 'POST', `/api/partners/users/${id}/password-reset/`, owner, {});
    const token = String(reset.body.data.url).split('#token=')[1];
    expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: 'another long passphrase' })).status).toBe(200);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', { cookie: first.cookie })).status).toBe(401);
    expect((await signIn('leila@console.example')).res.status).toBe(401);
    const second = await signIn('leila@console.example', 'another long passphrase');
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', { cookie: second.cookie })).status).toBe(200);
    expect((await call(stack.app, 'POST', `/api/partners/users/${id}/deactivate/`, owner, {})).status).toBe(200);
    expect((await call(stack.app, 'GET', '/api/partners/wallet/', { cookie: second.cookie })).status).toBe(401);
  });

  it('throttles failed sign-ins per account: the right password waits too', async () => {
    await userWithPassword('babak@console.example', 'viewer');
    for (let i = 0; i < SIGN_IN_FAILURES.perAccount; i++) expect((await signIn('babak@console.example', `guess number ${i} here`)).res.status).toBe(401);
    const locked = await signIn('babak@console.example');
    expect(locked.res.status).toBe(429);
    expect(Number(locked.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.res.headers.get('set-cookie')).toBeNull();
  });

  it('lets an operator make the links through the CLI, audited', async () => {
    const user = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: 'Nima', email: 'nima@console.example', role: 'owner' });
    const admin = async (argv: string[]) => {
      const { command } = toCommand(argv);
      return call(stack.admin, command.method, command.path, { authorization: `Bearer ${ADMIN_TOKEN}` }, command.body);
    };
    const ids = ['--partner', String(agency.partner_id), '--user', String(user.body.data.id)];
    const invited = await admin(['agency', 'user', 'invite', ...ids]);
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ purpose: 'invitation', url: expect.stringMatching(/^\/console\/set-password#token=/) });
    const reset = await admin(['agency', 'user', 'reset', ...ids]);
    expect(reset.body).toMatchObject({ purpose: 'reset' });
    // The invitation still stands beside the reset; each works once.
    for (const made of [invited, reset]) {
      const token = String(made.body.url).split('#token=')[1];
      expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: PASSWORD })).status).toBe(200);
    }
    const audit = await call(stack.admin, 'GET', `/admin/audit?target=partners/${agency.partner_id}/`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(JSON.stringify(audit.body)).toMatch(/users\/[0-9]+\/password-reset/);
    expect((await admin(['agency', 'user', 'invite', '--partner', String(agency.partner_id), '--user', '987654'])).status).toBe(404);
  });

  it('adds an optional second factor: a code once, at sign-in, until the user or the owner takes it off', async () => {
    const id = await userWithPassword('sepideh@console.example', 'agent');
    const first = await signIn('sepideh@console.example');
    const session = { cookie: first.cookie, 'x-csrf-token': first.csrf };
    // It is the signed-in person's own: API keys cannot set it up.
    expect((await call(stack.app, 'POST', '/api/partners/session/two-factor/', owner, {})).status).toBe(409);
    const setup = await call(stack.app, 'POST', '/api/partners/session/two-factor/', session, {});
    expect(setup.status).toBe(201);
    expect(setup.body.data.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    const [row] = await stack.db.select().from(agencyUsers).where(eq(agencyUsers.id, id));
    expect(row!.totpSecret).toMatch(/^sealed:v2:/);
    const app = new TOTP({ secret: Secret.fromBase32(setup.body.data.secret), digits: 6, period: 30, algorithm: 'SHA1' });
    const code = (offset = 0) => app.generate({ timestamp: Date.now() + offset * 30_000 });
    expect(
      (await call(stack.app, 'POST', '/api/partners/session/two-factor/confirm/', session, { code: '000000' === code() ? '111111' : '000000' })).status,
    ).toBe(400);
    // Not on until confirmed: the password alone still signs in.
    expect((await signIn('sepideh@console.example')).res.status).toBe(200);
    expect((await call(stack.app, 'POST', '/api/partners/session/two-factor/confirm/', session, { code: code(-1) })).status).toBe(200);

    const bare = await signIn('sepideh@console.example');
    expect(bare.res.status).toBe(401);
    expect(bare.res.body.error).toMatch(/six-digit code/);
    const withCode = await call(stack.app, 'POST', '/api/partners/session/', {}, { email: 'sepideh@console.example', password: PASSWORD, totp: code() });
    expect(withCode.status).toBe(200);
    // A code is used once, and so are the ones before it.
    for (const used of [code(), code(-1)]) {
      const again = await call(stack.app, 'POST', '/api/partners/session/', {}, { email: 'sepideh@console.example', password: PASSWORD, totp: used });
      expect(again.status).toBe(401);
    }
    // The owner takes it off for someone who lost their phone.
    const users = await call(stack.app, 'GET', '/api/partners/users/', owner);
    expect(users.body.data.results.find((u: { id: number }) => u.id === id)).toMatchObject({ two_factor: true });
    expect((await call(stack.app, 'POST', `/api/partners/users/${id}/two-factor/remove/`, owner, {})).status).toBe(200);
    expect((await signIn('sepideh@console.example')).res.status).toBe(200);
  });

  it('mails a link to its user where a mail server is configured, and still answers it when the server is down', async () => {
    const received: Array<{ to: string; text: string }> = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, done) {
        let text = '';
        stream.on('data', (d: Buffer) => (text += d.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text });
          done();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as { port: number }).port;
    try {
      const mailing = stack.appWith({
        linkMail: { mailer: smtpMailer(`smtp://127.0.0.1:${port}`, 'Console <console@engine.test>'), publicUrl: 'https://travel.example' },
      });
      const user = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: 'Arash', email: 'arash@console.example', role: 'viewer' });
      const made = await call(mailing, 'POST', `/api/partners/users/${user.body.data.id}/invitation/`, owner, {});
      expect(made.status).toBe(201);
      expect(made.body.data.mailed).toBe(true);
      expect(received).toHaveLength(1);
      expect(received[0]!.to).toBe('arash@console.example');
      const mailedUrl = /https:\/\/travel\.example\/console\/set-password#token=([A-Za-z0-9_-]{43})/.exec(quotedPrintable(received[0]!.text));
      expect(mailedUrl?.[1]).toBe(String(made.body.data.url).split('#token=')[1]);
      expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token: mailedUrl![1], password: PASSWORD })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    // Nobody answers at that address now: the link is still made and answered, marked not mailed.
    const down = stack.appWith({
      linkMail: { mailer: smtpMailer(`smtp://127.0.0.1:${port}`, 'Console <console@engine.test>', 2_000), publicUrl: 'https://travel.example' },
    });
    const user = await call(stack.app, 'POST', '/api/partners/users/', owner, { name: 'Kaveh', email: 'kaveh@console.example', role: 'viewer' });
    const made = await call(down, 'POST', `/api/partners/users/${user.body.data.id}/password-reset/`, owner, {});
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ mailed: false, url: expect.stringMatching(/#token=/) });
  });
});
