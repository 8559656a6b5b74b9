import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AGENCY_ROLES } from '../../db/schema';
import { recordAgencyChange } from '../../domain/audit';
import { makeLink, useLink, type LinkPurpose } from '../../domain/console/links';
import { parsePassword } from '../../domain/console/passwords';
import { agencySession, beginSession, endSession, type AgencySession } from '../../domain/console/sessions';
import { accountOf, checkSignIn } from '../../domain/console/sign-in';
import { acceptedStep, beginTwoFactor, confirmTwoFactor, removeTwoFactor, spendStep } from '../../domain/console/two-factor';
import { requireUserOf } from '../../domain/organisation';
import { DomainError } from '../../domain/errors';
import { rowIdOf } from '../../domain/ids';
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from '../console-session';
import { consoleLinkUrl, mailLink } from '../console-links';
import { operationHeads } from '../openapi-document';
import type { ApiDeps } from '../deps';
import { created, ok, partnerRouter, type PartnerEnv } from './router';
import { commonErrors, errorResponse, Id, json, jsonBody, partnerOperations } from './schemas';

const open = operationHeads([])(['Console sessions']);
const { get, post, del } = partnerOperations(['Console sessions']);

const SignInBody = z
  .object({
    email: z.string().max(254).openapi({ example: 'sara@agency.example' }),
    password: z.string().max(1024).openapi({ example: 'a long passphrase of hers' }),
    agency_id: z.number().int().optional().openapi({ description: 'Which agency, when the e-mail is a user of more than one' }),
    totp: z.string().max(10).optional().openapi({ description: 'The six-digit code of the authenticator app, for a user with two-factor sign-in on' }),
  })
  .openapi('SignInRequest');

const CodeBody = z
  .object({ code: z.string().max(10).openapi({ example: '123456', description: 'The six-digit code of the authenticator app' }) })
  .openapi('TwoFactorCode');

const TwoFactorSetup = z
  .object({
    secret: z.string().openapi({ description: 'The base32 secret to type into an authenticator app: shown only in this answer' }),
    otpauth_uri: z.string().openapi({ description: 'The same as an otpauth:// address, which an app can scan as a QR code' }),
  })
  .openapi('TwoFactorSetup');

const Session = z
  .object({
    user: z.object({ id: z.number().int(), name: z.string(), email: z.string(), role: z.enum(AGENCY_ROLES), two_factor: z.boolean() }).nullable(),
    agency: z.object({ id: z.number().int(), name: z.string(), currency: z.string() }),
    rights: z.array(z.string()).openapi({ description: 'What this session (or connection) may do: the rights table of its role' }),
    csrf_token: z.string().nullable().openapi({ description: 'Send it as X-CSRF-Token on every change made with the session cookie; null for API keys' }),
    expires_at: z.string().nullable().openapi({ description: 'When the session ends at the latest (it ends sooner after 30 minutes unused)' }),
  })
  .openapi('ConsoleSession');

const PasswordBody = z
  .object({
    token: z.string().max(100).openapi({ description: 'The token of the invitation or reset link (after `#token=`)' }),
    password: z.string().max(1024).openapi({ description: 'At least 12 characters' }),
  })
  .openapi('SetPasswordRequest');

const Link = z
  .object({
    user_id: z.number().int(),
    purpose: z.enum(['invitation', 'reset']),
    url: z.string().openapi({ description: 'The one-time link to hand to the user: shown only in this answer', example: '/console/set-password#token=…' }),
    expires_at: z.string(),
    mailed: z.boolean().openapi({ description: 'Whether it was mailed to the user too (where a mail server is configured)' }),
  })
  .openapi('ConsoleLink');

const tooMany = { 429: errorResponse('Too many failed sign-ins for this account or from this address; retry after Retry-After seconds') };

const routes = {
  signIn: createRoute({
    ...open.post('/partners/session/', 'Sign in to the agency console', 'Sets the session cookie (HttpOnly, SameSite=Strict) and answers its CSRF token.'),
    request: { body: jsonBody(SignInBody) },
    responses: { 200: json(Session, 'Signed in'), 400: errorResponse('Bad input'), 401: errorResponse('Wrong e-mail or password'), ...tooMany },
  }),
  current: createRoute({
    ...get('/partners/session/', 'Who is signed in', 'The user, agency and rights of the session (or of the API connection), with the CSRF token.'),
    responses: { 200: json(Session, 'The session'), ...commonErrors },
  }),
  signOut: createRoute({
    ...del('/partners/session/', 'Sign out', 'Ends the session and clears its cookie.'),
    responses: { 200: json(z.object({ signed_out: z.boolean() }), 'Signed out'), ...commonErrors },
  }),
  setPassword: createRoute({
    ...open.post('/partners/password/', 'Set a console password with a one-time link', 'Uses the link up and ends every session the user had.'),
    request: { body: jsonBody(PasswordBody) },
    responses: {
      200: json(z.object({ user_id: z.number().int() }), 'The password is set: sign in with it'),
      400: errorResponse('Bad input'),
      404: errorResponse('The link was used, replaced or expired'),
      ...tooMany,
    },
  }),
  twoFactorBegin: createRoute({
    ...post(
      '/partners/session/two-factor/',
      'Set up two-factor sign-in',
      'For the signed-in user: a new secret for an authenticator app, in use once a code from it is confirmed.',
    ),
    responses: { 201: json(TwoFactorSetup, 'The secret, shown once'), 409: errorResponse('Already on, or not a signed-in user'), ...commonErrors },
  }),
  twoFactorConfirm: createRoute({
    ...post('/partners/session/two-factor/confirm/', 'Turn two-factor sign-in on', 'With a current code of the secret being set up.'),
    request: { body: jsonBody(CodeBody) },
    responses: {
      200: json(z.object({ two_factor: z.boolean() }), 'On'),
      409: errorResponse('Already on, nothing being set up, or not a signed-in user'),
      ...commonErrors,
    },
  }),
  twoFactorRemove: createRoute({
    ...post('/partners/session/two-factor/remove/', 'Turn two-factor sign-in off', 'For the signed-in user, with a current code.'),
    request: { body: jsonBody(CodeBody) },
    responses: { 200: json(z.object({ two_factor: z.boolean() }), 'Off'), 409: errorResponse('Not a signed-in user (API keys)'), ...commonErrors },
  }),
  removeUsersTwoFactor: createRoute({
    ...post(
      '/partners/users/{id}/two-factor/remove/',
      "Turn a user's two-factor sign-in off",
      'For a user who lost their device; they sign in with their password alone until they set it up again.',
    ),
    request: { params: Id('id') },
    responses: { 200: json(z.object({ two_factor: z.boolean() }), 'Off'), ...commonErrors },
  }),
  invite: createRoute({
    ...post(
      '/partners/users/{id}/invitation/',
      'An invitation link for a user',
      'A one-time link (7 days) to set their password; a new one replaces the last.',
    ),
    request: { params: Id('id') },
    responses: { 201: json(Link, 'The link, shown once'), 409: errorResponse('The user is deactivated'), ...commonErrors },
  }),
  reset: createRoute({
    ...post('/partners/users/{id}/password-reset/', 'A password reset link for a user', 'A one-time link (1 hour); their sessions end when it is used.'),
    request: { params: Id('id') },
    responses: { 201: json(Link, 'The link, shown once'), 409: errorResponse('The user is deactivated'), ...commonErrors },
  }),
};

/** What the session answers say of a console session. */
const sessionView = (s: AgencySession) => ({
  user: { id: s.user.id, name: s.user.name, email: s.user.email, role: s.user.role, two_factor: s.user.twoFactor },
  agency: { id: s.partner.id, name: s.partner.name, currency: s.partner.currency },
  rights: [...s.partner.principal.rights].sort(),
  csrf_token: s.csrfToken,
  expires_at: s.expiresAt.toISOString(),
});

/** Interface A's extension for the agency console's sign-in (docs/decisions/console-sign-in.md). */
export function sessionRoutes(deps: ApiDeps) {
  const { db } = deps;
  // Read when a request comes: the OpenAPI document is built without the limiter's store.
  const throttle = () => deps.rateLimits.signIns;
  const refuse = (c: Context<PartnerEnv>, wait: number, what: string) => {
    c.header('Retry-After', String(wait));
    return c.json({ ok: false as const, error: `too many ${what}; retry in ${wait} s` }, 429);
  };
  /** The signed-in user's own id: their second factor is theirs to set, with a console session only. */
  const ownUser = (c: Context<PartnerEnv>) => {
    const session = c.get('consoleSession');
    if (!session) throw new DomainError('conflict', 'two-factor sign-in is a signed-in user’s own: use the console’s session, not API keys');
    return session.user.id;
  };
  /** Makes a one-time link for the agency's user in the path, audited; shown only in this answer. */
  const issueLink = async (c: Context<PartnerEnv>, rawId: string, purpose: LinkPurpose) => {
    const { id, principal } = c.get('partner');
    const userId = rowIdOf(rawId, 'user');
    const made = await db.transaction(async (tx) => {
      const made = await makeLink(tx, { partnerId: id, userId, purpose, by: principal.actor });
      await recordAgencyChange(tx, principal.actor, id, `user.${purpose}`, { user_id: userId, link_id: made.id });
      return made;
    });
    const mailed = await mailLink(deps.linkMail, made);
    return created(c, { user_id: userId, purpose, url: consoleLinkUrl(made.token), expires_at: made.expiresAt.toISOString(), mailed });
  };

  return partnerRouter()
    .openapi(routes.signIn, async (c) => {
      const body = c.req.valid('json');
      const account = accountOf(body.email);
      const address = deps.clientAddress(c);
      const wait = await throttle().refusedFor(account, address);
      if (wait !== null) return refuse(c, wait, 'failed sign-ins');
      let user;
      try {
        user = await checkSignIn(db, { email: body.email, password: body.password, ...(body.agency_id === undefined ? {} : { agencyId: body.agency_id }) });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'unauthorized') await throttle().failed(account, address);
        throw err;
      }
      if (user.twoFactor.totpEnabledAt) {
        if (!body.totp) throw new DomainError('unauthorized', 'two-factor sign-in: send the six-digit code of your authenticator app as totp');
        const step = acceptedStep(deps.secrets, user.userId, user.twoFactor, body.totp);
        if (step === null) {
          await throttle().failed(account, address);
          throw new DomainError('unauthorized', 'wrong or already used two-factor code');
        }
        await spendStep(db, user.userId, step);
      }
      await throttle().succeeded(account);
      const begun = await beginSession(db, { userId: user.userId });
      setSessionCookie(c, begun.token, begun.expiresAt);
      return ok(c, sessionView(await agencySession(db, begun.token)));
    })
    .openapi(routes.current, async (c) => {
      const session = c.get('consoleSession');
      if (session) return ok(c, sessionView(session));
      const { id, name, currency, principal } = c.get('partner');
      return ok(c, { user: null, agency: { id, name, currency }, rights: [...principal.rights].sort(), csrf_token: null, expires_at: null });
    })
    .openapi(routes.signOut, async (c) => {
      const session = c.get('consoleSession');
      if (session) await endSession(db, sessionTokenOf(c));
      clearSessionCookie(c);
      return ok(c, { signed_out: session !== undefined });
    })
    .openapi(routes.setPassword, async (c) => {
      const body = c.req.valid('json');
      const address = deps.clientAddress(c);
      // A link's token is not an account: its failures count per address alone.
      const asAccount = `link-from:${address}`;
      const wait = await throttle().refusedFor(asAccount, address);
      if (wait !== null) return refuse(c, wait, 'failed attempts from this address');
      const password = parsePassword('password', body.password);
      try {
        return ok(c, { user_id: (await useLink(db, body.token, password)).userId });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') await throttle().failed(asAccount, address);
        throw err;
      }
    })
    .openapi(routes.twoFactorBegin, async (c) => {
      const setup = await beginTwoFactor(db, deps.secrets, ownUser(c));
      return created(c, { secret: setup.secret, otpauth_uri: setup.uri });
    })
    .openapi(routes.twoFactorConfirm, async (c) => {
      await confirmTwoFactor(db, deps.secrets, ownUser(c), c.req.valid('json').code);
      return ok(c, { two_factor: true });
    })
    .openapi(routes.twoFactorRemove, async (c) => {
      await removeTwoFactor(db, deps.secrets, ownUser(c), c.req.valid('json').code);
      return ok(c, { two_factor: false });
    })
    .openapi(routes.removeUsersTwoFactor, async (c) => {
      const { id, principal } = c.get('partner');
      const userId = rowIdOf(c.req.valid('param').id, 'user');
      await db.transaction(async (tx) => {
        await requireUserOf(tx, id, userId);
        await removeTwoFactor(tx, deps.secrets, userId, null);
        await recordAgencyChange(tx, principal.actor, id, 'user.two_factor_remove', { user_id: userId });
      });
      return ok(c, { two_factor: false });
    })
    .openapi(routes.invite, (c) => issueLink(c, c.req.valid('param').id, 'invitation'))
    .openapi(routes.reset, (c) => issueLink(c, c.req.valid('param').id, 'reset'));
}
