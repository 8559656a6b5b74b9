import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { field, pageStatusOf, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

const SERVICES = ['hotels', 'flights', 'products', 'tours', 'residence', 'visa', 'flight_change'] as const;
const OPTIONAL = ['partner', 'supplier', 'percent', 'fixed', 'min_margin', 'from', 'to'] as const;

/** Markups: the rules in force, each removable, and a form to set one. */
async function Markups({ r, csrf, error }: { r: OperatorRequest; csrf: string; error?: string }) {
  const { t } = r;
  const { data: rules, error: refused } = await r.api.GET('/admin/markups');
  if (!rules) return <Notice kind="error">{errorOf(refused, t('error.title'))}</Notice>;
  const done = r.c.req.query('done');
  return (
    <>
      {error && <Notice kind="error">{error}</Notice>}
      {done && <Notice kind="info">{t(done === 'removed' ? 'op.markups.removed' : 'op.saved')}</Notice>}
      {rules.results.length === 0 ? (
        <p>{t('op.markups.none')}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>{t('op.markups.caption', { currency: rules.currency })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('op.markups.rule')}</th>
                <th scope="col">{t('order.service')}</th>
                <th scope="col">{t('op.partner')}</th>
                <th scope="col">{t('op.markups.supplier')}</th>
                <th scope="col">{t('op.markups.percent')}</th>
                <th scope="col">{t('op.markups.fixed')}</th>
                <th scope="col">{t('op.markups.min_margin')}</th>
                <th scope="col">{t('op.markups.period')}</th>
                <th scope="col">{t('op.set_by')}</th>
                <th scope="col">{t('op.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {rules.results.map((m) => (
                <tr data-markup={m.id}>
                  <th scope="row">{m.id}</th>
                  <td>{m.service}</td>
                  <td>{m.partner_id ?? t('op.markups.everyone')}</td>
                  <td>{m.supplier ?? t('op.markups.any')}</td>
                  <td class="amount">
                    <bdi>{m.percent ?? ''}</bdi>
                  </td>
                  <td class="amount">
                    <bdi>{m.fixed ?? ''}</bdi>
                  </td>
                  <td class="amount">
                    <bdi>{m.min_margin ?? ''}</bdi>
                  </td>
                  <td>
                    <bdi>{`${m.from ?? '…'} – ${m.to ?? '…'}`}</bdi>
                  </td>
                  <td>{m.created_by}</td>
                  <td>
                    <form method="post" action={`/console/markups/${m.id}/remove`}>
                      <input type="hidden" name="csrf" value={csrf} />
                      <button type="submit" aria-label={t('op.markups.remove_rule', { id: m.id })}>
                        {t('op.markups.remove')}
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>{t('op.markups.set')}</h2>
      <form class="stack" method="post" action="/console/markups">
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          {t('order.service')}
          <select name="service" required>
            {SERVICES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          {t('op.markups.partner_field')}
          <input type="text" name="partner" inputmode="numeric" pattern="[0-9]*" />
        </label>
        <label>
          {t('op.markups.supplier_field')}
          <input type="text" name="supplier" maxlength={50} />
        </label>
        <label>
          {t('op.markups.percent')}
          <input type="text" name="percent" inputmode="decimal" />
        </label>
        <label>
          {t('op.markups.fixed_field', { currency: rules.currency })}
          <input type="text" name="fixed" inputmode="decimal" />
        </label>
        <label>
          {t('op.markups.min_margin_field', { currency: rules.currency })}
          <input type="text" name="min_margin" inputmode="decimal" />
        </label>
        <label>
          {t('op.markups.from')}
          <input type="date" name="from" />
        </label>
        <label>
          {t('op.markups.to')}
          <input type="date" name="to" />
        </label>
        <button type="submit">{t('op.markups.set')}</button>
      </form>
    </>
  );
}

/** `/console/markups`: list, set, remove. */
export const markupPages: OperatorPages = (app, kit) => {
  const render = async (r: OperatorRequest, viewer: { csrfToken: string }, error?: string) => Markups({ r, csrf: viewer.csrfToken, error });
  app.get(
    '/markups',
    kit.signedIn(async (r, viewer) => kit.page(r, r.t('op.markups.title'), await render(r, viewer), viewer)),
  );
  app.post(
    '/markups',
    kit.signedIn(async (r, viewer) => {
      const optional = Object.fromEntries(OPTIONAL.filter((name) => field(r, name) !== '').map((name) => [name, field(r, name)])) as Partial<
        Record<(typeof OPTIONAL)[number], string>
      >;
      const { error, response } = await r.api.POST('/admin/markups', { body: { service: field(r, 'service'), ...optional } });
      if (response.status === 201) return r.c.redirect('/console/markups?done=set', 303);
      return kit.page(r, r.t('op.markups.title'), await render(r, viewer, errorOf(error, r.t('error.title'))), viewer, pageStatusOf(response.status));
    }),
  );
  app.post(
    '/markups/:id/remove',
    kit.signedIn(async (r, viewer) => {
      const id = r.c.req.param('id') ?? '';
      const { error, response } = await r.api.DELETE('/admin/markups/{id}', { params: { path: { id } } });
      if (response.status === 200) return r.c.redirect('/console/markups?done=removed', 303);
      return kit.page(r, r.t('op.markups.title'), await render(r, viewer, errorOf(error, r.t('error.title'))), viewer, pageStatusOf(response.status));
    }),
  );
};
