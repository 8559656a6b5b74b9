/** An answer of the admin API as the console reads it: its status, its JSON (or text) and its headers. */
export interface AdminReply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** The admin API as the browser's session reaches it: the cookie, its Origin and the CSRF token the page carried. */
export interface AdminApi {
  get<T = Record<string, unknown>>(path: string): Promise<AdminReply<T>>;
  send<T = Record<string, unknown>>(method: 'POST' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<AdminReply<T>>;
}

/** The error an admin answer carries (`{error}`), or `fallback`. */
export const errorOf = (reply: AdminReply<unknown>, fallback: string): string => {
  const body = reply.body as { error?: unknown } | null;
  return body && typeof body.error === 'string' ? body.error : fallback;
};

/**
 * The admin API called in process through its own app, with what the browser sent: the admin
 * API authenticates the session, checks the CSRF token and the Origin, and audits as for a
 * browser calling it directly (docs/decisions/consoles.md).
 */
export function adminApi(
  origin: string,
  browser: { cookie: string; origin?: string; csrfToken?: string },
  fetch: (req: Request) => Response | Promise<Response>,
): AdminApi {
  const call = async <T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<AdminReply<T>> => {
    const headers: Record<string, string> = { cookie: browser.cookie, ...extra };
    if (browser.origin) headers.origin = browser.origin;
    if (browser.csrfToken) headers['x-csrf-token'] = browser.csrfToken;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new Request(`${origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (a CSV report): kept as text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return { get: (path) => call('GET', path), send: (method, path, body, headers) => call(method, path, body, headers) };
}
