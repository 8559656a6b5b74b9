import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { field, pageStatusOf, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

/** Exchange rates: each pair's current rate, and a form to set one. */
async function Rates({ r, csrf, error }: { r: OperatorRequest; csrf: string; error?: string }) {
  const { t } = r;
  const { data: rates, error: refused } = await r.api.GET('/admin/fx');
  if (!rates) return <Notice kind="error">{errorOf(refused, t('error.title'))}</Notice>;
  return (
    <>
      {error && <Notice kind="error">{error}</Notice>}
      {r.c.req.query('set') && <Notice kind="info">{t('op.saved')}</Notice>}
      {rates.results.length === 0 ? (
        <p>{t('op.rates.none')}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>{t('op.rates.caption', { hours: rates.max_age_hours })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('op.rates.from')}</th>
                <th scope="col">{t('op.rates.to')}</th>
                <th scope="col">{t('op.rates.rate')}</th>
                <th scope="col">{t('op.set_by')}</th>
                <th scope="col">{t('op.set_at')}</th>
              </tr>
            </thead>
            <tbody>
              {rates.results.map((x) => (
                <tr>
                  <th scope="row">{x.currency}</th>
                  <td>{x.wallet_currency}</td>
                  <td class="amount">
                    <bdi>{x.rate}</bdi>
                    {x.stale ? ` (${t('op.rates.stale')})` : ''}
                  </td>
                  <td>{x.set_by}</td>
                  <td>
                    <time datetime={x.set_at}>{x.set_at.slice(0, 16).replace('T', ' ')}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>{t('op.rates.set')}</h2>
      <form class="stack" method="post" action="/console/rates">
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          {t('op.rates.from')}
          <input type="text" name="from" required maxlength={10} placeholder="USD" />
        </label>
        <label>
          {t('op.rates.to')}
          <input type="text" name="to" maxlength={10} placeholder={rates.wallet_currency} />
        </label>
        <label>
          {t('op.rates.rate')}
          <input type="text" name="rate" inputmode="decimal" required />
        </label>
        <button type="submit">{t('op.rates.set')}</button>
      </form>
    </>
  );
}

/** `/console/rates`. */
export const ratePages: OperatorPages = (app, kit) => {
  app.get(
    '/rates',
    kit.signedIn(async (r, viewer) => kit.page(r, r.t('op.rates.title'), await Rates({ r, csrf: viewer.csrfToken }), viewer)),
  );
  app.post(
    '/rates',
    kit.signedIn(async (r, viewer) => {
      const to = field(r, 'to');
      const { error, response } = await r.api.POST('/admin/fx', { body: { from: field(r, 'from'), rate: field(r, 'rate'), ...(to ? { to } : {}) } });
      if (response.status === 201) return r.c.redirect('/console/rates?set=1', 303);
      const body = await Rates({ r, csrf: viewer.csrfToken, error: errorOf(error, r.t('error.title')) });
      return kit.page(r, r.t('op.rates.title'), body, viewer, pageStatusOf(response.status));
    }),
  );
};
