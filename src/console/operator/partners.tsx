import { randomUUID } from 'node:crypto';
import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { field, pageStatusOf, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

const money = (amount: string, currency: string) => <bdi>{`${amount} ${currency}`}</bdi>;

/** Partners and agencies: a name filter, the list with wallets, and a form to create one. */
async function Partners({ r, csrf, error, created }: { r: OperatorRequest; csrf: string; error?: string; created?: Record<string, unknown> }) {
  const { t } = r;
  const name = r.c.req.query('name') ?? '';
  const { data: list, error: refused } = await r.api.GET('/admin/partners', { params: { query: name ? { name } : {} } });
  return (
    <>
      {error && <Notice kind="error">{error}</Notice>}
      {created && (
        <section aria-labelledby="created-heading" class="notice info" role="status">
          <h2 id="created-heading">{t('op.partners.created')}</h2>
          <p>{t('op.partners.shown_once')}</p>
          <dl>
            {Object.entries(created).map(([k, v]) => (
              <div>
                <dt>{k}</dt>
                <dd>
                  <code>{String(v)}</code>
                </dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <form class="filters" method="get" action="/console/partners">
        <label>
          {t('op.partners.name')}
          <input type="search" name="name" value={name} maxlength={200} />
        </label>
        <button type="submit">{t('op.filter')}</button>
      </form>
      {!list ? (
        <Notice kind="error">{errorOf(refused, t('error.title'))}</Notice>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>{t('op.partners.caption', { count: list.count })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('op.partners.name')}</th>
                <th scope="col">{t('op.partners.status')}</th>
                <th scope="col">{t('dashboard.balance')}</th>
                <th scope="col">{t('dashboard.credit_limit')}</th>
                <th scope="col">{t('dashboard.available')}</th>
                <th scope="col">{t('op.partners.rate_limit')}</th>
                <th scope="col">{t('op.partners.parent')}</th>
              </tr>
            </thead>
            <tbody>
              {list.results.map((p) => (
                <tr>
                  <th scope="row">
                    <a href={`/console/partners/${p.id}`}>{`${p.name} (${p.id})`}</a>
                  </th>
                  <td>{t(p.status === 'active' ? 'op.partners.active' : 'op.partners.disabled')}</td>
                  <td class="amount">{p.wallet && money(p.wallet.balance, p.wallet.currency)}</td>
                  <td class="amount">{p.wallet && money(p.wallet.credit_limit, p.wallet.currency)}</td>
                  <td class="amount">{p.wallet && money(p.wallet.available, p.wallet.currency)}</td>
                  <td>{p.rate_limit_per_minute ?? t('op.partners.default')}</td>
                  <td>{p.parent_id ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>{t('op.partners.create')}</h2>
      <form class="stack" method="post" action="/console/partners">
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          {t('op.partners.name')}
          <input type="text" name="name" required maxlength={200} />
        </label>
        <label>
          {t('dashboard.credit_limit')}
          <input type="text" name="credit_limit" inputmode="decimal" />
        </label>
        <label>
          {t('op.partners.topup')}
          <input type="text" name="topup" inputmode="decimal" />
        </label>
        <button type="submit">{t('op.partners.create')}</button>
      </form>
    </>
  );
}

/** One partner: its wallet and rate limit, with the forms that change them. */
async function Partner({ r, csrf, id, error }: { r: OperatorRequest; csrf: string; id: number; error?: string }) {
  const { t } = r;
  const path = { id: String(id) };
  const { data: partner } = await r.api.GET('/admin/partners/{id}/alerts', { params: { path } });
  if (!partner) return { status: 404 as const, title: t('error.title'), body: <Notice kind="error">{t('op.not_found')}</Notice> };
  const { data: limit } = await r.api.GET('/admin/partners/{id}/rate-limit', { params: { path } });
  const done = r.c.req.query('done');
  const hidden = <input type="hidden" name="csrf" value={csrf} />;
  return {
    status: 200 as const,
    title: partner.name,
    body: (
      <>
        {error && <Notice kind="error">{error}</Notice>}
        {done && <Notice kind="info">{t('op.saved')}</Notice>}
        <dl class="figures">
          <div>
            <dt>{t('op.partners.status')}</dt>
            <dd data-figure="status">{t(partner.status === 'active' ? 'op.partners.active' : 'op.partners.disabled')}</dd>
          </div>
          {partner.wallet && (
            <>
              <div>
                <dt>{t('dashboard.balance')}</dt>
                <dd class="amount" data-figure="balance">
                  {money(partner.wallet.balance, partner.wallet.currency)}
                </dd>
              </div>
              <div>
                <dt>{t('dashboard.credit_limit')}</dt>
                <dd class="amount" data-figure="credit_limit">
                  {money(partner.wallet.credit_limit, partner.wallet.currency)}
                </dd>
              </div>
            </>
          )}
          <div>
            <dt>{t('op.partners.rate_limit')}</dt>
            <dd>{limit?.effective_per_minute ?? ''}</dd>
          </div>
        </dl>
        <p>
          <a href={`/console/partners/${id}/webhooks`}>{t('op.nav.webhooks')}</a>
        </p>
        <h2>{t('op.partners.topup')}</h2>
        <form class="stack" method="post" action={`/console/partners/${id}/topup`}>
          {hidden}
          {/* One key per form drawn: sent twice (a double click, a reload), the top-up is made once. */}
          <input type="hidden" name="idempotency_key" value={`console-${randomUUID()}`} />
          <label>
            {t('op.partners.amount')}
            <input type="text" name="amount" inputmode="decimal" required />
          </label>
          <label>
            {t('op.partners.note')}
            <input type="text" name="note" maxlength={500} />
          </label>
          <button type="submit">{t('op.partners.topup')}</button>
        </form>
        <h2>{t('dashboard.credit_limit')}</h2>
        <form class="stack" method="post" action={`/console/partners/${id}/credit-limit`}>
          {hidden}
          <input type="hidden" name="idempotency_key" value={`console-${randomUUID()}`} />
          <label>
            {t('op.partners.new_limit')}
            <input type="text" name="amount" inputmode="decimal" required />
          </label>
          <button type="submit">{t('op.partners.set_limit')}</button>
        </form>
        <h2>{t('op.partners.alerts')}</h2>
        <p data-figure="alerts">{t('op.partners.alerts_now', { thresholds: partner.thresholds.join(', '), left: partner.credit_left_percent ?? '–' })}</p>
        <form class="stack" method="post" action={`/console/partners/${id}/alerts`}>
          {hidden}
          <label>
            {t('op.partners.thresholds')}
            <input type="text" name="thresholds" pattern="[0-9, ]*" value={partner.thresholds.join(', ')} />
          </label>
          <button type="submit">{t('op.partners.set_alerts')}</button>
        </form>
        <h2>{t('op.partners.rate_limit')}</h2>
        <form class="stack" method="post" action={`/console/partners/${id}/rate-limit`}>
          {hidden}
          <label>
            {t('op.partners.per_minute')}
            <input type="text" name="per_minute" inputmode="numeric" pattern="[0-9]*" value={limit?.per_minute == null ? '' : String(limit.per_minute)} />
          </label>
          <button type="submit">{t('op.partners.set_rate_limit')}</button>
        </form>
        <h2>{t('op.partners.status')}</h2>
        <form method="post" action={`/console/partners/${id}/${partner.status === 'active' ? 'disable' : 'enable'}`}>
          {hidden}
          <button type="submit">{t(partner.status === 'active' ? 'op.partners.disable' : 'op.partners.enable')}</button>
        </form>
      </>
    ),
  };
}

const idOf = (raw: string | undefined) => (raw && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : null);

/** `/console/partners` and `/console/partners/:id`: create, disable and enable, credit limit, top-up, rate limit. */
export const partnerPages: OperatorPages = (app, kit) => {
  app.get(
    '/partners',
    kit.signedIn(async (r, viewer) => kit.page(r, r.t('op.partners.title'), await Partners({ r, csrf: viewer.csrfToken }), viewer)),
  );
  app.post(
    '/partners',
    kit.signedIn(async (r, viewer) => {
      const [creditLimit, topUp] = [field(r, 'credit_limit'), field(r, 'topup')];
      const body = { name: field(r, 'name'), ...(creditLimit ? { credit_limit: creditLimit } : {}), ...(topUp ? { topup: topUp } : {}) };
      const { data: created, error, response } = await r.api.POST('/admin/partners', { body });
      const page = created ? { created } : { error: errorOf(error, r.t('error.title')) };
      return kit.page(
        r,
        r.t('op.partners.title'),
        await Partners({ r, csrf: viewer.csrfToken, ...page }),
        viewer,
        created ? 200 : pageStatusOf(response.status),
      );
    }),
  );
  app.get(
    '/partners/:id',
    kit.signedIn(async (r, viewer) => {
      const id = idOf(r.c.req.param('id'));
      const shown = id === null ? null : await Partner({ r, csrf: viewer.csrfToken, id });
      if (!shown) return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      return kit.page(r, shown.title, shown.body, viewer, shown.status);
    }),
  );
  app.post(
    '/partners/:id/:change',
    kit.signedIn(async (r, viewer) => {
      const id = idOf(r.c.req.param('id'));
      const change = r.c.req.param('change') ?? '';
      if (id === null || !['topup', 'credit-limit', 'rate-limit', 'alerts', 'disable', 'enable'].includes(change)) {
        return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      }
      const path = { id: String(id) };
      let res: { error?: unknown; response: Response };
      if (change === 'topup' || change === 'credit-limit') {
        const note = field(r, 'note');
        const key = field(r, 'idempotency_key');
        const init = {
          params: { path, header: key ? { 'Idempotency-Key': key } : {} },
          body: { amount: field(r, 'amount'), ...(note ? { note } : {}) },
        };
        res = change === 'topup' ? await r.api.POST('/admin/partners/{id}/topup', init) : await r.api.POST('/admin/partners/{id}/credit-limit', init);
      } else if (change === 'alerts') {
        // Whole percents as numbers; anything else goes as written, for the API to refuse by name.
        const thresholds = field(r, 'thresholds')
          .split(/[\s,]+/)
          .filter((x) => x !== '')
          .map((x) => (/^\d{1,3}$/.test(x) ? Number(x) : x));
        res = await r.api.POST('/admin/partners/{id}/alerts', { params: { path }, body: { thresholds } });
      } else if (change === 'rate-limit') {
        const raw = field(r, 'per_minute');
        // A number, or null for the default; anything else goes as written, for the API to refuse by name.
        const perMinute = raw === '' ? null : /^\d{1,9}$/.test(raw) ? Number(raw) : (raw as unknown as number);
        res = await r.api.POST('/admin/partners/{id}/rate-limit', { params: { path }, body: { per_minute: perMinute } });
      } else {
        res =
          change === 'disable'
            ? await r.api.POST('/admin/partners/{id}/disable', { params: { path } })
            : await r.api.POST('/admin/partners/{id}/enable', { params: { path } });
      }
      if (res.response.status === 200) return r.c.redirect(`/console/partners/${id}?done=${change}`, 303);
      const shown = await Partner({ r, csrf: viewer.csrfToken, id, error: errorOf(res.error, r.t('error.title')) });
      return kit.page(r, shown.title, shown.body, viewer, pageStatusOf(res.response.status));
    }),
  );
};
