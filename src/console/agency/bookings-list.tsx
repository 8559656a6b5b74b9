import type { Hono } from 'hono';
import type { MessageKey } from '../messages/en';
import { Notice, type Viewer } from '../layout';
import { Amount, errorOf, pageStatusOf } from './answers';
import type { AgencyKit } from './kit';
import type { ConsoleRequest } from './request';
import { OrderByAndDate, OrderColumns } from './order-columns';

const STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled', 'refunded', 'refund_requested'] as const;
const TABS = ['all', 'upcoming', 'past', 'cancelled'] as const;
type Tab = (typeof TABS)[number];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - DAY).toISOString().slice(0, 10);
const later = (a: string | undefined, b: string) => (a && a > b ? a : b);
const earlier = (a: string | undefined, b: string) => (a && a < b ? a : b);

/** What the list was asked for: a tab and the filters, each checked before it goes to the API. */
interface Asked {
  tab: Tab;
  status?: (typeof STATUSES)[number];
  from?: string;
  to?: string;
  agent?: string;
  page?: string;
}

function askedOf(q: Record<string, string>): Asked {
  return {
    tab: (TABS as readonly string[]).includes(q.tab ?? '') ? (q.tab as Tab) : 'all',
    status: (STATUSES as readonly string[]).includes(q.status ?? '') ? (q.status as Asked['status']) : undefined,
    from: q.from && DATE.test(q.from) ? q.from : undefined,
    to: q.to && DATE.test(q.to) ? q.to : undefined,
    agent: q.agent && /^[1-9]\d{0,8}$/.test(q.agent) ? q.agent : undefined,
    page: q.page && /^[1-9]\d{0,8}$/.test(q.page) ? q.page : undefined,
  };
}

/**
 * The API's filters for a tab and the filters chosen: upcoming is what has not started yet and
 * is not cancelled, past what started before today, cancelled what was cancelled or refunded.
 * A status chosen narrows the tab's.
 */
function apiQuery(a: Asked) {
  const tabStatuses: Record<Tab, string | undefined> = {
    all: undefined,
    upcoming: 'pending,processing,completed,refund_requested',
    past: 'completed,refund_requested,refunded',
    cancelled: 'cancelled,refunded',
  };
  const status = a.status ?? tabStatuses[a.tab];
  const from = a.tab === 'upcoming' ? later(a.from, today()) : a.from;
  const to = a.tab === 'past' ? earlier(a.to, yesterday()) : a.to;
  return {
    ...(status ? { status } : {}),
    ...(from ? { travel_from: from } : {}),
    ...(to ? { travel_to: to } : {}),
    ...(a.agent ? { agent: a.agent } : {}),
  };
}

/** The list's own address with `changes` applied (an absent value leaves the parameter out). */
function linkTo(a: Asked, changes: Partial<Asked>): string {
  const all = { ...a, ...changes };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(all)) if (v !== undefined && !(k === 'tab' && v === 'all')) q.set(k, String(v));
  const s = q.toString();
  return `/console/bookings${s ? `?${s}` : ''}`;
}

async function List({ r, viewer }: { r: ConsoleRequest; viewer: Viewer }) {
  const { t } = r;
  const asked = askedOf(r.c.req.query());
  const res = await r.api.GET('/partners/orders/', { params: { query: { ...apiQuery(asked), ...(asked.page ? { page: asked.page } : {}) } } });
  const found = res.data?.data;
  const users = viewer.rights.has('users') ? ((await r.api.GET('/partners/users/')).data?.data.results ?? []) : [];
  const exportLink = `/console/bookings/export?${new URLSearchParams(apiQuery(asked)).toString()}`;
  const body = (
    <>
      <nav aria-label={t('bookings.tabs')} class="tabs">
        <ul>
          {TABS.map((tab) => (
            <li>
              <a href={linkTo(asked, { tab, page: undefined })} aria-current={tab === asked.tab ? 'page' : undefined}>
                {t(`bookings.tab_${tab}` as MessageKey)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action="/console/bookings" class="filters" aria-label={t('bookings.filters')}>
        {asked.tab !== 'all' && <input type="hidden" name="tab" value={asked.tab} />}
        <label>
          {t('bookings.status')}
          <select name="status">
            <option value="">{t('bookings.any_status')}</option>
            {STATUSES.map((s) => (
              <option value={s} selected={s === asked.status}>
                {t(`status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('bookings.travel_from')}
          <input type="date" name="from" value={asked.from ?? ''} />
        </label>
        <label>
          {t('bookings.travel_to')}
          <input type="date" name="to" value={asked.to ?? ''} />
        </label>
        {users.length > 0 && (
          <label>
            {t('bookings.agent')}
            <select name="agent">
              <option value="">{t('bookings.any_agent')}</option>
              {users.map((u) => (
                <option value={String(u.id)} selected={String(u.id) === asked.agent}>
                  {u.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="submit">{t('bookings.apply')}</button>
      </form>
      <p class="note">{t('bookings.travel_note')}</p>
      {!found && <Notice kind="error">{errorOf(res)}</Notice>}
      {found && (
        <section aria-labelledby="list-heading">
          <h2 id="list-heading">{t('bookings.page', { page: found.current_page, pages: found.total_pages, count: found.total_count })}</h2>
          <p>
            <a href={exportLink} download="bookings.csv">
              {t('bookings.export')}
            </a>
          </p>
          {found.results.length === 0 ? (
            <p>{t('bookings.none')}</p>
          ) : (
            <div class="table-wrap">
              <table class="bookings">
                <OrderColumns t={t} />
                <tbody>
                  {found.results.map((o) => (
                    <tr>
                      <th scope="row">
                        {o.service === 'hotel' || o.service === 'flight' ? (
                          <a href={`/console/bookings/${o.service}/${o.id}`} aria-label={t('bookings.open', { id: o.id })}>
                            {String(o.id)}
                          </a>
                        ) : (
                          String(o.id)
                        )}
                      </th>
                      <td>{t(`service.${o.service}` as MessageKey)}</td>
                      <td>{t(`status.${o.status}` as MessageKey) ?? o.status}</td>
                      <td class="amount">
                        <Amount value={o.total_price} currency={o.currency} />
                      </td>
                      <OrderByAndDate order={o} />
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {found.total_pages > 1 && (
            <nav aria-label={t('bookings.paging')} class="paging">
              {found.current_page > 1 && <a href={linkTo(asked, { page: String(found.current_page - 1) })}>{t('bookings.previous')}</a>}
              {found.current_page < found.total_pages && <a href={linkTo(asked, { page: String(found.current_page + 1) })}>{t('bookings.next')}</a>}
            </nav>
          )}
        </section>
      )}
    </>
  );
  return { body, status: found ? 200 : pageStatusOf(res) };
}

/** `/console/bookings`: the list with its tabs and filters, and its CSV export. */
export function bookingListPages(app: Hono, kit: AgencyKit): void {
  app.get(
    '/bookings',
    kit.signedIn(async (r, viewer) => {
      const { body, status } = await List({ r, viewer });
      return kit.page(r, r.t('bookings.title'), body, viewer, status);
    }),
  );

  /** The CSV the API answers for the same filters, passed on as a download. */
  app.get(
    '/bookings/export',
    kit.signedIn(async (r, viewer) => {
      const q = r.c.req.query();
      const query = {
        ...(q.status ? { status: q.status } : {}),
        ...(q.travel_from ? { travel_from: q.travel_from } : {}),
        ...(q.travel_to ? { travel_to: q.travel_to } : {}),
        ...(q.agent ? { agent: q.agent } : {}),
      };
      const res = await r.api.GET('/partners/orders/export/', { params: { query }, parseAs: 'text' });
      if (!res.response.ok) return kit.page(r, r.t('bookings.title'), <Notice kind="error">{errorOf(res)}</Notice>, viewer, pageStatusOf(res));
      const headers: Record<string, string> = { 'content-type': res.response.headers.get('content-type') ?? 'text/csv; charset=utf-8' };
      const disposition = res.response.headers.get('content-disposition');
      if (disposition) headers['content-disposition'] = disposition;
      return r.c.body(res.data as string, 200, headers);
    }),
  );
}
