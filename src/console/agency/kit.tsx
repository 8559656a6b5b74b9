import type { Context, Hono } from 'hono';
import { partnerSessionClient } from '../../client';
import { CSRF_HEADER } from '../../http/console-session';
import { localeOf, translator } from '../i18n';
import { Page, type NavItem, type Viewer } from '../layout';
import { AGENCY_NAV } from './nav';
import type { ConsoleRequest } from './request';
import { signedInPages } from '../signed-in';

/** What the agency console needs: the engine's own HTTP app, which it calls as a browser would. */
export interface AgencyConsoleDeps {
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>;
}

/** The statuses a console page answers with. */
export type PageStatus = 200 | 400 | 401 | 402 | 403 | 404 | 409 | 429 | 502;

/** What every page module of the agency console uses (./dashboard.tsx is the smallest example). */
export interface AgencyKit {
  /** The request with its language and Interface A as the browser's session reaches it. */
  requestOf(c: Context): Promise<ConsoleRequest>;
  /** The signed-in viewer, or null (no session, or it ended). */
  viewerOf(r: ConsoleRequest): Promise<Viewer | null>;
  /** A whole page around `body`: the layout, its navigation for the viewer's rights. */
  page(r: ConsoleRequest, title: string, body: unknown, viewer?: Viewer, status?: PageStatus): Response | Promise<Response>;
  /** A handler for a page that needs a session: without one, the sign-in page. */
  signedIn(render: (r: ConsoleRequest, viewer: Viewer) => Promise<Response>): (c: Context) => Promise<Response>;
}

/** Registers an area's pages on the console's app. */
export type AgencyPages = (app: Hono, kit: AgencyKit) => void;

export function agencyKit(deps: AgencyConsoleDeps): AgencyKit {
  const requestOf = async (c: Context): Promise<ConsoleRequest> => {
    const locale = localeOf(c);
    const form = c.req.method === 'POST' ? await c.req.parseBody().catch(() => ({}) as Record<string, unknown>) : {};
    const csrf = typeof form.csrf === 'string' ? form.csrf : c.req.header(CSRF_HEADER);
    const api = partnerSessionClient(
      new URL(c.req.url).origin,
      { cookie: c.req.header('cookie') ?? '', ...(csrf ? { csrfToken: csrf } : {}), ...(c.req.header('origin') ? { origin: c.req.header('origin') } : {}) },
      { fetch: (req: Request) => Promise.resolve(deps.fetch(req, c.env)) },
    );
    return { c, t: translator(locale), locale, api };
  };

  /** The signed-in viewer, or null (no session, or it ended). */
  const viewerOf = async (r: ConsoleRequest): Promise<Viewer | null> => {
    const { data } = await r.api.GET('/partners/session/');
    if (!data || !data.data.user || !data.data.csrf_token) return null;
    const s = data.data;
    return { name: s.user!.name, role: s.user!.role, agency: s.agency.name, rights: new Set(s.rights), csrfToken: s.csrf_token! };
  };

  const page = (r: ConsoleRequest, title: string, body: unknown, viewer?: Viewer, status: PageStatus = 200) =>
    r.c.html(
      '<!doctype html>' +
        String(
          <Page t={r.t} locale={r.locale} title={title} path={r.c.req.path} viewer={viewer} nav={AGENCY_NAV as readonly NavItem[]}>
            {body as never}
          </Page>,
        ),
      status,
    );

  /** Every other page needs a session: without one, the sign-in page. */
  const signedIn = signedInPages(requestOf, viewerOf);

  return { requestOf, viewerOf, page, signedIn };
}
