import type { Viewer } from '../layout';
import type { PageStatus } from './kit';

/** What an API answer that went wrong says: its `error`, or the status line when it has none. */
export const errorOf = (res: { error?: unknown; response: Response }): string =>
  (res.error as { error?: string } | undefined)?.error ?? `${res.response.status} ${res.response.statusText}`;

const PAGE_STATUSES: ReadonlySet<number> = new Set([400, 401, 402, 403, 404, 409, 429, 502]);
/** The status a page answers with when the API refused: the API's own where a page may use it. */
export const pageStatusOf = (res: { response: Response }): PageStatus => (PAGE_STATUSES.has(res.response.status) ? res.response.status : 502) as PageStatus;

/**
 * The CSRF header for a read the API offers only as a POST (a search, a booking's data) made
 * while drawing a page: nothing changes, and the token is the viewer's own session's.
 */
export const readingAs = (viewer: Viewer) => ({ headers: { 'X-CSRF-Token': viewer.csrfToken } });

/** An amount with its currency, kept in reading order inside right-to-left text. */
export const Amount = (props: { value: string | number | null | undefined; currency: string }) => (
  <bdi class="amount">{`${props.value ?? '—'} ${props.currency}`}</bdi>
);

/** A form field's value as text ('' when absent or a file). */
export const field = (form: Record<string, unknown>, name: string): string => {
  const v = form[name];
  return typeof v === 'string' ? v.trim() : '';
};

/** A decimal amount from a query string, or undefined: what a redirect carried back to show. */
export const decimalParam = (v: string | undefined): string | undefined => (v && /^\d{1,13}(\.\d{1,2})?$/.test(v) ? v : undefined);
