import type { Context, Hono } from 'hono';
import { CSRF_HEADER } from '../../http/console-session';
import { localeOf, translator } from '../i18n';
import { Notice, Page, type Viewer } from '../layout';
import { adminApi } from './admin-api';
import { OPERATOR_NAV } from './nav';
import type { OperatorRequest } from './request';
import { signedInPages } from '../signed-in';

/** What the operator console needs: the admin app, which it calls as a browser would, and where Temporal Web is. */
export interface OperatorConsoleDeps {
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>;
  /** Temporal Web's origin and the engine's namespace, for the links to a workflow; none when it is not known. */
  temporalWeb?: { origin: string; namespace: string };
}

/** The statuses a console page answers with. */
export type PageStatus = 200 | 400 | 401 | 403 | 404 | 409 | 422 | 429 | 502;

/** What every page module of the operator console uses. */
export interface OperatorKit {
  deps: OperatorConsoleDeps;
  requestOf(c: Context): Promise<OperatorRequest>;
  viewerOf(r: OperatorRequest): Promise<Viewer | null>;
  page(r: OperatorRequest, title: string, body: unknown, viewer?: Viewer, status?: PageStatus): Response | Promise<Response>;
  signedIn(render: (r: OperatorRequest, viewer: Viewer) => Promise<Response>): (c: Context) => Promise<Response>;
}

/** Registers an area's pages on the operator console's app. */
export type OperatorPages = (app: Hono, kit: OperatorKit) => void;

/** A posted form field as text ('' when absent). */
export const field = (r: OperatorRequest, name: string): string => {
  const value = r.form[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** A page's notice from the API's refusal: its message, with the status it answered. */
export const Refused = (props: { text: string }) => <Notice kind="error">{props.text}</Notice>;

/** The status a refused change's page answers with: the API's, when it is one a page may answer. */
export const pageStatusOf = (status: number): PageStatus =>
  ([400, 401, 403, 404, 409, 422, 429] as const).find((s) => s === status) ?? (status >= 500 ? 502 : 400);

export function operatorKit(deps: OperatorConsoleDeps): OperatorKit {
  const requestOf = async (c: Context): Promise<OperatorRequest> => {
    const locale = localeOf(c);
    const form = c.req.method === 'POST' ? await c.req.parseBody().catch(() => ({}) as Record<string, unknown>) : {};
    const csrf = typeof form.csrf === 'string' ? form.csrf : c.req.header(CSRF_HEADER);
    const origin = c.req.header('origin');
    const api = adminApi(
      new URL(c.req.url).origin,
      { cookie: c.req.header('cookie') ?? '', ...(csrf ? { csrfToken: csrf } : {}), ...(origin ? { origin } : {}) },
      (req) => deps.fetch(req, c.env),
    );
    return { c, t: translator(locale), locale, api, form };
  };

  const viewerOf = async (r: OperatorRequest): Promise<Viewer | null> => {
    const { data } = await r.api.GET('/admin/session');
    if (!data?.csrf_token) return null;
    return { name: data.operator.name, role: r.t('op.role'), agency: '', rights: new Set(), csrfToken: data.csrf_token };
  };

  const page = (r: OperatorRequest, title: string, body: unknown, viewer?: Viewer, status: PageStatus = 200) =>
    r.c.html(
      '<!doctype html>' +
        String(
          <Page t={r.t} locale={r.locale} title={title} path={r.c.req.path} viewer={viewer} nav={OPERATOR_NAV}>
            {body as never}
          </Page>,
        ),
      status,
    );

  const signedIn = signedInPages(requestOf, viewerOf);

  return { deps, requestOf, viewerOf, page, signedIn };
}
