import { randomUUID } from 'node:crypto';
import type { Child } from 'hono/jsx';
import type { components } from '../../client/partner-api';
import type { Viewer } from '../layout';
import { Notice } from '../layout';
import { Amount, fields, outcomeOf, pageStatus, withRight, type Outcome } from './account-kit';
import type { AgencyPages, PageStatus } from './kit';
import type { ConsoleRequest } from './request';

type Service = components['schemas']['SubAgencyMarkup']['service'];
/** The services a markup is set for, as the API's document lists them (the compiler keeps the two equal). */
const SERVICES = ['hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change'] as const satisfies readonly Service[];
type Missing = Exclude<Service, (typeof SERVICES)[number]>;
const everyService: Missing extends never ? true : never = true;
void everyService;

const ErrorNotice = ({ r, notice }: { r: ConsoleRequest; notice?: Outcome }) =>
  notice?.error ? <Notice kind="error">{notice.status === 403 ? r.t('error.forbidden') : notice.error}</Notice> : null;

/** The sub-agencies with their balance, credit and what they can spend, each with a form to set its credit limit. */
async function Agencies({ r, viewer, notice }: { r: ConsoleRequest; viewer: Viewer; notice?: Outcome }): Promise<Child> {
  const { t } = r;
  const children = (await r.api.GET('/partners/agencies/')).data?.data ?? [];
  return (
    <>
      <ErrorNotice r={r} notice={notice} />
      {children.length === 0 ? (
        <p>{t('agencies.none')}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('agencies.name')}</th>
                <th scope="col">{t('users.status')}</th>
                <th scope="col">{t('dashboard.balance')}</th>
                <th scope="col">{t('dashboard.credit_limit')}</th>
                <th scope="col">{t('dashboard.available')}</th>
                <th scope="col">{t('agencies.set_credit')}</th>
              </tr>
            </thead>
            <tbody>
              {children.map((s) => (
                <tr data-agency={s.id}>
                  <th scope="row">
                    <a href={`/console/agencies/${s.id}`}>{s.name}</a>
                  </th>
                  <td>{s.status === 'active' ? t('users.active') : t('users.inactive')}</td>
                  <td class="amount">
                    <Amount value={s.balance} currency={s.currency} />
                  </td>
                  <td class="amount" data-figure="credit">
                    <Amount value={s.credit_limit} currency={s.currency} />
                  </td>
                  <td class="amount" data-figure="available">
                    <Amount value={s.available} currency={s.currency} />
                  </td>
                  <td>
                    <form method="post" action={`/console/agencies/${s.id}/credit`} class="inline">
                      <input type="hidden" name="csrf" value={viewer.csrfToken} />
                      {/* One key per form drawn: sending the same form twice sets the credit once. */}
                      <input type="hidden" name="idempotency_key" value={`console-${randomUUID()}`} />
                      <label>
                        {t('agencies.credit_of', { name: s.name })}
                        <input type="text" inputmode="decimal" name="credit_limit" required pattern="[0-9]+(\.[0-9]{1,2})?" value={s.credit_limit} />
                      </label>
                      <button type="submit" class="secondary">
                        {t('agencies.set_credit')}
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>{t('agencies.credit_hint')}</p>
    </>
  );
}

/** One sub-agency's markups by service, as a form that replaces them all. */
async function Markups({
  r,
  viewer,
  id,
  notice,
}: {
  r: ConsoleRequest;
  viewer: Viewer;
  id: string;
  notice?: Outcome;
}): Promise<{ title: string; body: Child; status: PageStatus }> {
  const { t } = r;
  const child = await r.api.GET('/partners/agencies/{id}/', { params: { path: { id } } });
  if (!child.data) return { title: t('nav.agencies'), body: <ErrorNotice r={r} notice={outcomeOf(child)} />, status: pageStatus(child.response.status) };
  const markups = (await r.api.GET('/partners/agencies/{id}/markups/', { params: { path: { id } } })).data?.data ?? [];
  const of = new Map(markups.map((m) => [m.service, m]));
  return {
    title: t('agencies.markups_of', { name: child.data.data.name }),
    status: notice?.error ? pageStatus(notice.status) : 200,
    body: (
      <>
        <ErrorNotice r={r} notice={notice} />
        <p>
          <a href="/console/agencies">{t('agencies.back')}</a>
        </p>
        <form method="post" action={`/console/agencies/${id}/markups`}>
          <input type="hidden" name="csrf" value={viewer.csrfToken} />
          <div class="table-wrap">
            <table>
              <caption>{t('agencies.markups_hint')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('order.service')}</th>
                  <th scope="col">{t('agencies.percent')}</th>
                  <th scope="col">{t('agencies.fixed', { currency: child.data.data.currency })}</th>
                </tr>
              </thead>
              <tbody>
                {SERVICES.map((s) => (
                  <tr>
                    <th scope="row" id={`svc-${s}`}>
                      {t(`agencies.service_${s}`)}
                    </th>
                    <td>
                      <label>
                        <span class="visually-hidden">{`${t(`agencies.service_${s}`)}: ${t('agencies.percent')}`}</span>
                        <input type="text" inputmode="decimal" name={`percent_${s}`} value={of.get(s)?.percent ?? ''} />
                      </label>
                    </td>
                    <td>
                      <label>
                        <span class="visually-hidden">{`${t(`agencies.service_${s}`)}: ${t('agencies.fixed', { currency: child.data!.data.currency })}`}</span>
                        <input type="text" inputmode="decimal" name={`fixed_${s}`} value={of.get(s)?.fixed ?? ''} />
                      </label>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <button type="submit">{t('agencies.save_markups')}</button>
        </form>
      </>
    ),
  };
}

/** `/console/agencies`: the sub-agencies, their credit and the parent's markups on each (the `sub_agencies` right). */
export const agenciesPages: AgencyPages = (app, kit) => {
  const title = (r: ConsoleRequest) => r.t('nav.agencies');
  const showList = async (r: ConsoleRequest, viewer: Viewer, notice?: Outcome, status: PageStatus = 200) =>
    kit.page(r, title(r), await Agencies({ r, viewer, ...(notice ? { notice } : {}) }), viewer, status);
  const showMarkups = async (r: ConsoleRequest, viewer: Viewer, id: string, notice?: Outcome) => {
    const m = await Markups({ r, viewer, id, ...(notice ? { notice } : {}) });
    return kit.page(r, m.title, m.body, viewer, m.status);
  };

  app.get(
    '/agencies',
    withRight(kit, 'sub_agencies', title, async (r, viewer) => showList(r, viewer)),
  );
  app.post(
    '/agencies/:id{[0-9]+}/credit',
    withRight(kit, 'sub_agencies', title, async (r, viewer) => {
      const f = await fields(r.c);
      const res = await r.api.POST('/partners/agencies/{id}/credit/', {
        params: { path: { id: r.c.req.param('id') ?? '' } },
        body: { credit_limit: f.credit_limit ?? '', idempotency_key: f.idempotency_key ?? '' },
      });
      if (!res.data) return showList(r, viewer, outcomeOf(res), pageStatus(res.response.status));
      return r.c.redirect('/console/agencies', 303);
    }),
  );
  app.get(
    '/agencies/:id{[0-9]+}',
    withRight(kit, 'sub_agencies', title, async (r, viewer) => showMarkups(r, viewer, r.c.req.param('id') ?? '')),
  );
  app.post(
    '/agencies/:id{[0-9]+}/markups',
    withRight(kit, 'sub_agencies', title, async (r, viewer) => {
      const id = r.c.req.param('id') ?? '';
      const f = await fields(r.c);
      const markups = SERVICES.flatMap((service) => {
        const percent = f[`percent_${service}`] ?? '';
        const fixed = f[`fixed_${service}`] ?? '';
        if (!percent && !fixed) return [];
        return [{ service, ...(percent ? { percent } : {}), ...(fixed ? { fixed } : {}) }];
      });
      const res = await r.api.PUT('/partners/agencies/{id}/markups/', { params: { path: { id } }, body: { markups } });
      if (!res.data) return showMarkups(r, viewer, id, outcomeOf(res));
      return r.c.redirect(`/console/agencies/${id}`, 303);
    }),
  );
};
