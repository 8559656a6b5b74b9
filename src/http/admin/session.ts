import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { beginSession, endSession, operatorSession, type OperatorSession } from '../../domain/console/sessions';
import { DomainError } from '../../domain/errors';
import { authenticateOperator } from '../../domain/operator-tokens';
import { limitBody } from '../body-limit';
import { clearSessionCookie, fromAnotherOrigin, OPERATOR_SESSION_COOKIE, sessionTokenOf, setSessionCookie } from '../console-session';
import type { SignInThrottle } from '../rate-limit';
import type { OperatorVariables } from './actions';
import type { RequestIdVariables } from '../request-id';
import { body } from './input';

/** The admin app's variables: who acts, and the console session when one signed the request in. */
export type SessionEnv = { Variables: RequestIdVariables & OperatorVariables & { operatorSession?: OperatorSession } };

/** What the operator session answers say of a session (the CSRF token only to a session). */
export const renderOperatorSession = (s: OperatorSession) => ({
  operator: s.operator,
  csrf_token: s.csrfToken,
  expires_at: s.expiresAt.toISOString(),
});

const SignInBody = z.object({ token: z.string({ error: 'token is required: your operator token (tbo_…)' }).max(200) });

/**
 * Signing in to the operator console (docs/decisions/consoles.md, "Operators"): a named
 * operator's token is exchanged for a session, which the admin API then accepts as it accepts
 * the token. Registered before the token check: it is how a browser gets past it.
 */
export function operatorSignInRoute(
  app: Hono<SessionEnv>,
  deps: { db: Db; adminToken: string; signIns: SignInThrottle; clientAddress: (c: Context) => string },
): void {
  const refuse = (c: Context, wait: number) => {
    c.header('Retry-After', String(wait));
    return c.json({ error: `too many failed sign-ins from this address; retry in ${wait} s` }, 429);
  };
  app.post(
    '/admin/session',
    limitBody((c, error) => c.json({ error }, 413)),
    async (c) => {
      if (fromAnotherOrigin(c)) throw new DomainError('forbidden', 'forbidden: a session is not begun from another origin');
      const address = deps.clientAddress(c);
      // A token is not an account: failures count per address alone.
      const account = `operator-token-from:${address}`;
      const wait = await deps.signIns.refusedFor(account, address);
      if (wait !== null) return refuse(c, wait);
      const { token } = await body(c, SignInBody);
      const operator = await authenticateOperator(deps.db, token.trim(), deps.adminToken);
      if (operator?.id === null || operator?.id === undefined) {
        if (!operator) await deps.signIns.failed(account, address);
        // The bootstrap token names no operator a session could belong to (nor would its audit).
        throw new DomainError('unauthorized', 'sign in with a named operator token (tbo_…): an unknown or revoked token, or the bootstrap token, is refused');
      }
      const begun = await beginSession(deps.db, { operatorId: operator.id });
      setSessionCookie(c, begun.token, begun.expiresAt, OPERATOR_SESSION_COOKIE);
      return c.json(renderOperatorSession(await operatorSession(deps.db, begun.token)));
    },
  );
}

/** The session's own answers, behind the admin API's authentication: who is signed in, and signing out. */
export function operatorSessionRoutes(app: Hono<SessionEnv>, db: Db): void {
  app.get('/admin/session', (c) => {
    const session = c.get('operatorSession');
    if (session) return c.json(renderOperatorSession(session));
    return c.json({ operator: c.get('operator'), csrf_token: null, expires_at: null });
  });
  app.delete('/admin/session', async (c) => {
    const session = c.get('operatorSession');
    if (session) await endSession(db, sessionTokenOf(c, OPERATOR_SESSION_COOKIE));
    clearSessionCookie(c, OPERATOR_SESSION_COOKIE);
    return c.json({ signed_out: session !== undefined });
  });
}
