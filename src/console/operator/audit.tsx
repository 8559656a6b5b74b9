import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { pageStatusOf, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

const FILTERS = ['operator', 'target', 'from', 'to'] as const;

/** The audit log, newest first, filtered by operator, target (its beginning) and UTC days. */
async function Audit({ r }: { r: OperatorRequest }) {
  const { t } = r;
  const asked = Object.fromEntries(FILTERS.map((f) => [f, r.c.req.query(f) ?? '']));
  const query = Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== '')) as Partial<Record<(typeof FILTERS)[number], string>>;
  const { data: audit, error, response } = await r.api.GET('/admin/audit', { params: { query } });
  return {
    status: audit ? 200 : pageStatusOf(response.status),
    body: (
      <>
        <form class="filters" method="get" action="/console/audit">
          <label>
            {t('op.audit.operator')}
            <input type="text" name="operator" value={asked.operator} maxlength={64} />
          </label>
          <label>
            {t('op.audit.target')}
            <input type="text" name="target" value={asked.target} maxlength={500} />
          </label>
          <label>
            {t('op.audit.from')}
            <input type="date" name="from" value={asked.from} />
          </label>
          <label>
            {t('op.audit.to')}
            <input type="date" name="to" value={asked.to} />
          </label>
          <button type="submit">{t('op.filter')}</button>
        </form>
        {!audit ? (
          <Notice kind="error">{errorOf(error, t('error.title'))}</Notice>
        ) : audit.results.length === 0 ? (
          <p>{t('op.audit.none')}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <caption>{t('op.audit.caption', { count: audit.count })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('op.audit.at')}</th>
                  <th scope="col">{t('op.audit.operator')}</th>
                  <th scope="col">{t('op.audit.action')}</th>
                  <th scope="col">{t('op.audit.target')}</th>
                  <th scope="col">{t('op.audit.reason')}</th>
                </tr>
              </thead>
              <tbody>
                {audit.results.map((a) => (
                  <tr data-audit={a.id}>
                    <td>
                      <time datetime={a.at}>{a.at.slice(0, 19).replace('T', ' ')}</time>
                    </td>
                    <td>{a.operator}</td>
                    <td>
                      <bdi>{a.action}</bdi>
                    </td>
                    <td>
                      <bdi>{a.target}</bdi>
                    </td>
                    <td>{a.reason ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    ),
  };
}

/** `/console/audit`. */
export const auditPages: OperatorPages = (app, kit) => {
  app.get(
    '/audit',
    kit.signedIn(async (r, viewer) => {
      const { status, body } = await Audit({ r });
      return kit.page(r, r.t('op.audit.title'), body, viewer, status);
    }),
  );
};
