import { adminSessionClient, type AdminClient } from '../../client';

export type { AdminClient };

/** The message of the admin API's refusal (`{error}`), or `fallback`. */
export const errorOf = (error: unknown, fallback: string): string =>
  error && typeof error === 'object' && typeof (error as { error?: unknown }).error === 'string' ? (error as { error: string }).error : fallback;

/**
 * The admin API called in process through its own app with the generated typed client
 * (src/client/admin-api.ts), and with what the browser sent: its cookie, its Origin and the
 * CSRF token the page carried. The admin API authenticates the session, checks the CSRF token
 * and the Origin, and audits as for a browser calling it directly (docs/decisions/consoles.md).
 */
export function adminApi(
  origin: string,
  browser: { cookie: string; origin?: string; csrfToken?: string },
  fetch: (req: Request) => Response | Promise<Response>,
): AdminClient {
  return adminSessionClient(origin, browser, { fetch: (req: Request) => Promise.resolve(fetch(req)) });
}
