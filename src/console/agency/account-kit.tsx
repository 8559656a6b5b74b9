import type { Context } from 'hono';
import type { Viewer } from '../layout';
import { Notice } from '../layout';
import type { AgencyKit, PageStatus } from './kit';
import type { ConsoleRequest } from './request';

/**
 * What the account pages (wallet, invoices, users, connections, webhooks, sub-agencies) share:
 * a page behind one right, the API's refusal shown as it gave it, and downloads passed on.
 */

/** A page that needs `right`: a viewer whose role lacks it gets the forbidden message (403), as the API would answer them. */
export const withRight = (
  kit: AgencyKit,
  right: string,
  title: (r: ConsoleRequest) => string,
  render: (r: ConsoleRequest, viewer: Viewer) => Promise<Response>,
) => kit.signedIn(async (r, viewer) => (viewer.rights.has(right) ? render(r, viewer) : forbidden(kit, r, viewer, title(r))));

export const forbidden = (kit: AgencyKit, r: ConsoleRequest, viewer: Viewer, title: string) =>
  kit.page(r, title, <Notice kind="error">{r.t('error.forbidden')}</Notice>, viewer, 403);

/** The API's answer to a change: its status and, when refused, its message. */
export interface Outcome {
  status: number;
  error?: string;
}

export function outcomeOf(res: { response: Response; error?: unknown }): Outcome {
  const message = (res.error as { error?: unknown } | undefined)?.error;
  return { status: res.response.status, ...(res.response.ok ? {} : { error: typeof message === 'string' ? message : res.response.statusText }) };
}

/** The status a console page answers a refused change with: the API's, within those a page uses. */
export function pageStatus(status: number): PageStatus {
  const known: PageStatus[] = [400, 401, 402, 403, 404, 409, 429];
  return (known as number[]).includes(status) ? (status as PageStatus) : status >= 500 ? 502 : 400;
}

/** A form's fields as strings. */
export async function fields(c: Context): Promise<Record<string, string>> {
  const form = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) if (typeof v === 'string') out[k] = v.trim();
  return out;
}

/** A file the API answered, passed on with its type and name; the API's refusal otherwise. */
export async function passOn(kit: AgencyKit, r: ConsoleRequest, viewer: Viewer, title: string, res: { response: Response; error?: unknown }) {
  if (!res.response.ok) {
    const out = outcomeOf(res);
    return kit.page(r, title, <Notice kind="error">{out.status === 403 ? r.t('error.forbidden') : out.error}</Notice>, viewer, pageStatus(out.status));
  }
  const headers = new Headers();
  for (const name of ['content-type', 'content-disposition']) {
    const value = res.response.headers.get(name);
    if (value) headers.set(name, value);
  }
  headers.set('cache-control', 'no-store');
  return new Response(res.response.body, { status: 200, headers });
}

/** An amount as it reads in either direction: the figure and its currency kept together, left to right. */
export const Amount = (props: { value: string; currency: string }) => (
  <bdi dir="ltr">
    {props.value} {props.currency}
  </bdi>
);
