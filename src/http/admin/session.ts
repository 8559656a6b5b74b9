import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Db } from '../../db/client';
import { beginSession, endSession, operatorSession, type OperatorSession } from '../../domain/console/sessions';
import { DomainError } from '../../domain/errors';
import { authenticateOperator } from '../../domain/operator-tokens';
import { limitBody } from '../body-limit';
import { clearSessionCookie, fromAnotherOrigin, OPERATOR_SESSION_COOKIE, sessionTokenOf, setSessionCookie } from '../console-session';
import type { SignInThrottle } from '../rate-limit';
import { adminOperations, adminRouter } from './router';
import { errorResponse, json, jsonBody, retryAfter } from './schemas';

/** What the operator session answers say of a session (the CSRF token only to a session). */
export const renderOperatorSession = (s: OperatorSession) => ({
  operator: s.operator,
  csrf_token: s.csrfToken,
  expires_at: s.expiresAt.toISOString(),
});

const SignInBody = z
  .object({ token: z.string({ error: 'token is required: your operator token (tbo_…)' }).max(200).openapi({ description: 'A named operator’s token' }) })
  .openapi('OperatorSignInRequest');

const Session = z
  .object({
    operator: z.object({ id: z.number().int().nullable(), name: z.string() }),
    csrf_token: z.string().nullable().openapi({ description: 'What every change made with the session carries as X-CSRF-Token; null with a token' }),
    expires_at: z.string().nullable().openapi({ description: 'When the session ends at the latest; null with a token' }),
  })
  .openapi('OperatorSession');

const { get, del } = adminOperations(['Console session']);

const routes = {
  signIn: createRoute({
    method: 'post',
    path: '/admin/session',
    tags: ['Console session'],
    summary: 'Sign in to the operator console',
    description:
      'A named operator’s token is exchanged for a session in the `tbe_operator_session` cookie (HttpOnly, SameSite=Strict), which the admin API then accepts in place of the token. The bootstrap token cannot sign in. Failed sign-ins count per client address.',
    security: [],
    middleware: limitBody((c, error) => c.json({ error }, 413)),
    request: { body: jsonBody(SignInBody) },
    responses: {
      200: { ...json(Session, 'Signed in'), headers: { 'Set-Cookie': { description: 'The session cookie', schema: { type: 'string' as const } } } },
      401: errorResponse('An unknown or revoked token, or the bootstrap token'),
      403: errorResponse('From another origin'),
      413: errorResponse('The request body is larger than 256 KiB'),
      415: errorResponse('Content-Type must be application/json'),
      429: { ...errorResponse('Too many failed sign-ins from this address'), headers: retryAfter('Seconds until this address may try again') },
    },
  }),
  session: createRoute({
    ...get('/admin/session', 'Who is signed in', 'With a token: its operator, and no CSRF token.'),
    responses: { 200: json(Session, 'The operator') },
  }),
  signOut: createRoute({
    ...del('/admin/session', 'Sign out of the operator console'),
    responses: { 200: json(z.object({ signed_out: z.boolean().openapi({ description: 'Whether a session ended' }) }), 'Signed out') },
  }),
};

/**
 * Signing in to the operator console (docs/decisions/consoles.md, "Operators"): a named
 * operator's token is exchanged for a session, which the admin API then accepts as it accepts
 * the token. Mounted before the token check: it is how a browser gets past it.
 */
export function operatorSignInRoute(deps: { db: Db; adminToken: string; signIns: SignInThrottle; clientAddress: (c: Context) => string }) {
  const refuse = (c: Context, wait: number) => {
    c.header('Retry-After', String(wait));
    return c.json({ error: `too many failed sign-ins from this address; retry in ${wait} s` }, 429);
  };
  return adminRouter().openapi(routes.signIn, async (c) => {
    if (fromAnotherOrigin(c)) throw new DomainError('forbidden', 'forbidden: a session is not begun from another origin');
    const address = deps.clientAddress(c);
    // A token is not an account: failures count per address alone.
    const account = `operator-token-from:${address}`;
    const wait = await deps.signIns.refusedFor(account, address);
    if (wait !== null) return refuse(c, wait);
    const { token } = c.req.valid('json');
    const operator = await authenticateOperator(deps.db, token.trim(), deps.adminToken);
    if (operator?.id === null || operator?.id === undefined) {
      if (!operator) await deps.signIns.failed(account, address);
      // The bootstrap token names no operator a session could belong to (nor would its audit).
      throw new DomainError('unauthorized', 'sign in with a named operator token (tbo_…): an unknown or revoked token, or the bootstrap token, is refused');
    }
    const begun = await beginSession(deps.db, { operatorId: operator.id });
    setSessionCookie(c, begun.token, begun.expiresAt, OPERATOR_SESSION_COOKIE);
    return c.json(renderOperatorSession(await operatorSession(deps.db, begun.token)), 200);
  });
}

/** The session's own answers, behind the admin API's authentication: who is signed in, and signing out. */
export function operatorSessionRoutes(deps: { db: Db }) {
  return adminRouter()
    .openapi(routes.session, (c) => {
      const session = c.get('operatorSession');
      if (session) return c.json(renderOperatorSession(session), 200);
      return c.json({ operator: c.get('operator'), csrf_token: null, expires_at: null }, 200);
    })
    .openapi(routes.signOut, async (c) => {
      const session = c.get('operatorSession');
      if (session) await endSession(deps.db, sessionTokenOf(c, OPERATOR_SESSION_COOKIE));
      clearSessionCookie(c, OPERATOR_SESSION_COOKIE);
      return c.json({ signed_out: session !== undefined }, 200);
    });
}
