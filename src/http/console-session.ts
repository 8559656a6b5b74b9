import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { DomainError } from '../domain/errors';

/** The console's session cookie (docs/decisions/console-sign-in.md). */
export const SESSION_COOKIE = 'tbe_session';
/**
 * The operator console's, on the admin port: a cookie is not kept apart by port, so on one
 * host (`npm start` on localhost) an agency's and an operator's sessions each need a name.
 */
export const OPERATOR_SESSION_COOKIE = 'tbe_operator_session';
/** The header every change made with a session carries: the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The session token the request's cookie holds, if any. */
export const sessionTokenOf = (c: Context, name = SESSION_COOKIE): string | undefined => getCookie(c, name);

/** Whether the request authenticates with a console session: a session cookie and no key headers. */
export const presentsSession = (c: Context, keyHeaders: readonly string[]): boolean =>
  keyHeaders.every((h) => c.req.header(h) === undefined) && sessionTokenOf(c) !== undefined;

/**
 * HttpOnly, SameSite=Strict, on every path of the origin; Secure except on a loopback address,
 * where a browser is given plain HTTP by the engine itself (`npm start`).
 */
export function setSessionCookie(c: Context, token: string, expiresAt: Date, name = SESSION_COOKIE): void {
  const secure = !LOOPBACK.has(new URL(c.req.url).hostname);
  setCookie(c, name, token, { httpOnly: true, sameSite: 'Strict', secure, path: '/', expires: expiresAt });
}

export const clearSessionCookie = (c: Context, name = SESSION_COOKIE): void => {
  deleteCookie(c, name, { path: '/' });
};

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * A change made with a session must come from the console's own pages: it carries the
 * session's CSRF token (which only those pages can read), and an Origin, when the browser
 * sends one, of the host the request was sent to (its URL's, built from its Host). Either missing or wrong: 403.
 */
export function requireSameOrigin(c: Context, csrfToken: string): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  if (fromAnotherOrigin(c)) throw new DomainError('forbidden', 'forbidden: a session is not accepted from another origin');
  const presented = c.req.header(CSRF_HEADER);
  if (presented === undefined || !equal(presented, csrfToken)) {
    throw new DomainError('forbidden', `forbidden: a change made with a console session must carry its ${CSRF_HEADER} header`);
  }
}

/** Whether the request's Origin, when it has one, names another host than the one it reached. */
export function fromAnotherOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== new URL(c.req.url).host;
  } catch {
    return true;
  }
}
