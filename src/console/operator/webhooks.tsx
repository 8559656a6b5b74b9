import { Notice } from '../layout';
import { errorOf } from './admin-api';
import { field, pageStatusOf, type OperatorPages } from './kit';
import type { OperatorRequest } from './request';

/** A partner's webhook endpoints and their latest deliveries, with what an operator may do to each. */
async function Webhooks({ r, csrf, id, notice }: { r: OperatorRequest; csrf: string; id: number; notice?: { kind: 'error' | 'info'; text: string } }) {
  const { t } = r;
  const path = { id: String(id) };
  const { data: endpoints, error, response } = await r.api.GET('/admin/partners/{id}/webhooks', { params: { path } });
  if (!endpoints) return { status: pageStatusOf(response.status), body: <Notice kind="error">{errorOf(error, t('error.title'))}</Notice> };
  const { data: deliveries } = await r.api.GET('/admin/partners/{id}/webhooks/deliveries', { params: { path } });
  const hidden = <input type="hidden" name="csrf" value={csrf} />;
  return {
    status: 200 as const,
    body: (
      <>
        {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
        <p>
          <a href={`/console/partners/${id}`}>{t('op.webhooks.back')}</a>
        </p>
        <h2>{t('op.webhooks.endpoints')}</h2>
        {endpoints.endpoints.length === 0 ? (
          <p>{t('op.webhooks.none')}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('op.webhooks.url')}</th>
                  <th scope="col">{t('op.webhooks.status')}</th>
                  <th scope="col">{t('op.webhooks.events')}</th>
                  <th scope="col">{t('op.webhooks.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {endpoints.endpoints.map((e) => (
                  <tr data-endpoint={e.id}>
                    <td>
                      <bdi>{e.url}</bdi>
                    </td>
                    <td>
                      {e.status}
                      {e.disabled_reason ? ` (${[e.disabled_reason, e.disabled_detail].filter(Boolean).join(': ')})` : ''}
                    </td>
                    <td>{e.event_types.length ? e.event_types.join(', ') : t('op.webhooks.every_event')}</td>
                    <td class="actions">
                      {e.status !== 'enabled' && (
                        <form method="post" action={`/console/partners/${id}/webhooks/${e.id}/enable`}>
                          {hidden}
                          <button type="submit" class="secondary">
                            {t('op.webhooks.enable')}
                          </button>
                        </form>
                      )}
                      <form method="post" action={`/console/partners/${id}/webhooks/${e.id}/delete`}>
                        {hidden}
                        <button type="submit" class="danger">
                          {t('op.webhooks.delete')}
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <h2>{t('op.webhooks.deliveries')}</h2>
        {!deliveries?.deliveries.length ? (
          <p>{t('op.webhooks.no_deliveries')}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('op.webhooks.event')}</th>
                  <th scope="col">{t('op.webhooks.url')}</th>
                  <th scope="col">{t('op.webhooks.state')}</th>
                  <th scope="col">{t('op.webhooks.attempts')}</th>
                  <th scope="col">{t('op.webhooks.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.deliveries.map((d) => (
                  <tr data-delivery={d.id}>
                    <td>
                      <bdi>{`${d.event_type} ${d.event_id}`}</bdi>
                    </td>
                    <td>
                      <bdi>{d.url}</bdi>
                    </td>
                    <td data-state>{d.state}</td>
                    <td>
                      <ul class="attempts">
                        {d.attempts.map((a) => (
                          <li>
                            <time datetime={a.at}>{a.at.slice(0, 19).replace('T', ' ')}</time> <bdi>{a.status_code ?? a.failure ?? a.error ?? ''}</bdi>
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td>
                      <form method="post" action={`/console/partners/${id}/webhooks/redeliver`}>
                        {hidden}
                        <input type="hidden" name="event_id" value={String(d.event_id)} />
                        <button type="submit" class="secondary">
                          {t('op.webhooks.redeliver')}
                        </button>
                      </form>
                    </td>
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

const idOf = (raw: string | undefined) => (raw && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : null);
/** An event's id as the deliveries show it (`evt_42`, or the number). */
const eventIdOf = (raw: string) => /^(?:evt_)?([1-9][0-9]{0,9})$/.exec(raw)?.[1] ?? null;

/** `/console/partners/:id/webhooks`: any partner's endpoints and deliveries; enable, delete, send an event again (each audited). */
export const webhookPages: OperatorPages = (app, kit) => {
  const show = async (r: OperatorRequest, csrf: string, id: number, notice?: { kind: 'error' | 'info'; text: string }, status?: number) => {
    const { status: shown, body } = await Webhooks({ r, csrf, id, ...(notice ? { notice } : {}) });
    return { status: status === undefined ? shown : pageStatusOf(status), body };
  };
  app.get(
    '/partners/:id/webhooks',
    kit.signedIn(async (r, viewer) => {
      const id = idOf(r.c.req.param('id'));
      if (id === null) return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      const note = r.c.req.query('note');
      const { status, body } = await show(r, viewer.csrfToken, id, note === 'done' ? { kind: 'info', text: r.t('op.saved') } : undefined);
      return kit.page(r, r.t('op.webhooks.title', { id }), body, viewer, status);
    }),
  );
  app.post(
    '/partners/:id/webhooks/:endpoint/:change',
    kit.signedIn(async (r, viewer) => {
      const id = idOf(r.c.req.param('id'));
      const endpoint = idOf(r.c.req.param('endpoint'));
      const change = r.c.req.param('change');
      if (id === null || endpoint === null || (change !== 'enable' && change !== 'delete')) {
        return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      }
      const path = { id: String(endpoint) };
      const { error, response } =
        change === 'enable'
          ? await r.api.POST('/admin/webhooks/{id}/enable', { params: { path } })
          : await r.api.POST('/admin/webhooks/{id}/delete', { params: { path } });
      if (response.status === 200) return r.c.redirect(`/console/partners/${id}/webhooks?note=done`, 303);
      const { body } = await show(r, viewer.csrfToken, id, { kind: 'error', text: errorOf(error, r.t('error.title')) });
      return kit.page(r, r.t('op.webhooks.title', { id }), body, viewer, pageStatusOf(response.status));
    }),
  );
  app.post(
    '/partners/:id/webhooks/redeliver',
    kit.signedIn(async (r, viewer) => {
      const id = idOf(r.c.req.param('id'));
      const event = eventIdOf(field(r, 'event_id'));
      if (id === null) return kit.page(r, r.t('error.title'), <Notice kind="error">{r.t('op.not_found')}</Notice>, viewer, 404);
      const res = event === null ? null : await r.api.POST('/admin/events/{id}/redeliver', { params: { path: { id: event } } });
      if (res?.response.status === 200) return r.c.redirect(`/console/partners/${id}/webhooks?note=done`, 303);
      const text = res ? errorOf(res.error, r.t('error.title')) : r.t('op.not_found');
      const { body } = await show(r, viewer.csrfToken, id, { kind: 'error', text });
      return kit.page(r, r.t('op.webhooks.title', { id }), body, viewer, res ? pageStatusOf(res.response.status) : 404);
    }),
  );
};
