import type { Child } from 'hono/jsx';
import type { Viewer } from '../layout';
import { Notice } from '../layout';
import { ListTable } from '../list-table';
import { fields, outcomeOf, pageStatus, withRight, type Outcome } from './account-kit';
import type { AgencyKit, AgencyPages, PageStatus } from './kit';
import type { ConsoleRequest } from './request';

/** An event sent again, and to which endpoints. */
interface Redelivery {
  event_id: number;
  endpoints: number[];
}

/** Credentials or a signing secret, shown once to whoever made them. */
interface Secrets {
  title: string;
  items: Array<{ label: string; value: string; name: string }>;
}

const ErrorNotice = ({ r, notice }: { r: ConsoleRequest; notice?: Outcome }) =>
  notice?.error ? <Notice kind="error">{notice.status === 403 ? r.t('error.forbidden') : notice.error}</Notice> : null;

const ShownOnce = ({ r, secrets }: { r: ConsoleRequest; secrets?: Secrets }) =>
  secrets ? (
    <section class="once" aria-labelledby="once-heading">
      <h2 id="once-heading">{secrets.title}</h2>
      <p role="status">{r.t('connections.once')}</p>
      {secrets.items.map((s) => (
        <label>
          {s.label}
          <input type="text" readonly value={s.value} data-secret={s.name} />
        </label>
      ))}
    </section>
  ) : null;

/** The agency's API connections (rotate, revoke) and the form to create one with rights at most the viewer's. */
async function Connections({ r, viewer, notice, secrets }: { r: ConsoleRequest; viewer: Viewer; notice?: Outcome; secrets?: Secrets }): Promise<Child> {
  const { t } = r;
  const list = (await r.api.GET('/partners/connections/')).data?.data.results ?? [];
  const csrf = <input type="hidden" name="csrf" value={viewer.csrfToken} />;
  return (
    <>
      <ErrorNotice r={r} notice={notice} />
      <ShownOnce r={r} secrets={secrets} />
      <ListTable
        headings={[t('connections.name'), t('connections.interface'), t('connections.key'), t('connections.rights'), t('users.status'), t('users.actions')]}
        none={t('connections.none')}
        rows={list.map((k) => (
          <tr>
            <th scope="row">{k.name}</th>
            <td>{k.interface.toUpperCase()}</td>
            <td>
              <bdi>
                <code>{k.api_key ?? ''}</code>
              </bdi>
            </td>
            <td>{k.rights.join(', ')}</td>
            <td>{k.status === 'active' ? t('users.active') : t('connections.revoked')}</td>
            <td>
              {k.status === 'active' && (
                <div class="actions">
                  <form method="post" action={`/console/connections/${k.id}/rotate`}>
                    {csrf}
                    <button type="submit" class="secondary" aria-label={t('connections.rotate_of', { name: k.name })}>
                      {t('connections.rotate')}
                    </button>
                  </form>
                  <form method="post" action={`/console/connections/${k.id}/revoke`}>
                    {csrf}
                    <button type="submit" class="danger" aria-label={t('connections.revoke_of', { name: k.name })}>
                      {t('connections.revoke')}
                    </button>
                  </form>
                </div>
              )}
            </td>
          </tr>
        ))}
      />
      <h2>{t('connections.add')}</h2>
      <form class="stack" method="post" action="/console/connections">
        {csrf}
        <label>
          {t('connections.name')}
          <input type="text" name="name" required maxlength={200} />
        </label>
        <label>
          {t('connections.interface')}
          <select name="interface">
            <option value="a">{t('connections.interface_a')}</option>
            <option value="b">{t('connections.interface_b')}</option>
          </select>
        </label>
        <fieldset>
          <legend>{t('connections.rights')}</legend>
          {[...viewer.rights].map((right) => (
            <label class="check">
              <input type="checkbox" name="rights" value={right} />
              {right}
            </label>
          ))}
        </fieldset>
        <button type="submit">{t('connections.add_submit')}</button>
      </form>
    </>
  );
}

/** The agency's webhook endpoints (delete) and the form to add one. */
async function Webhooks({
  r,
  viewer,
  notice,
  secrets,
  sent,
}: {
  r: ConsoleRequest;
  viewer: Viewer;
  notice?: Outcome;
  secrets?: Secrets;
  sent?: Redelivery;
}): Promise<Child> {
  const { t } = r;
  const list = (await r.api.GET('/partners/webhooks/')).data?.data.results ?? [];
  const deliveries = (await r.api.GET('/partners/webhooks/deliveries/')).data?.data.results ?? [];
  const csrf = <input type="hidden" name="csrf" value={viewer.csrfToken} />;
  return (
    <>
      <ErrorNotice r={r} notice={notice} />
      {sent && (
        <Notice kind="info">
          <span data-redelivered={sent.event_id}>{t('webhooks.redelivered', { id: sent.event_id, count: sent.endpoints.length })}</span>
        </Notice>
      )}
      <ShownOnce r={r} secrets={secrets} />
      <ListTable
        headings={[t('webhooks.url'), t('webhooks.types'), t('users.status'), t('users.actions')]}
        none={t('webhooks.none')}
        rows={list.map((w) => (
          <tr>
            <th scope="row">
              <bdi>{w.url}</bdi>
            </th>
            <td>{w.event_types.length === 0 ? t('webhooks.every_type') : w.event_types.join(', ')}</td>
            <td>
              {t(`webhooks.status_${w.status}`)}
              {w.disabled_reason && ` (${w.disabled_reason})`}
            </td>
            <td>
              <form method="post" action={`/console/webhooks/${w.id}/delete`}>
                {csrf}
                <button type="submit" class="danger" aria-label={t('webhooks.delete_of', { url: w.url })}>
                  {t('webhooks.delete')}
                </button>
              </form>
            </td>
          </tr>
        ))}
      />
      <h2>{t('webhooks.deliveries')}</h2>
      <ListTable
        headings={[t('webhooks.event'), t('webhooks.url'), t('users.status'), t('webhooks.attempts'), t('users.actions')]}
        none={t('webhooks.no_deliveries')}
        rows={deliveries.map((d) => (
          <tr data-delivery={d.id}>
            <th scope="row">
              <bdi>{d.event_type}</bdi> <bdi>{`(${d.webhook_id})`}</bdi>
            </th>
            <td>
              <bdi>{d.url}</bdi>
            </td>
            <td>{t(`webhooks.state_${d.state}`)}</td>
            <td>
              {d.attempts.length === 0 ? (
                t('webhooks.no_attempts')
              ) : (
                <ol class="attempts">
                  {d.attempts.map((a) => (
                    <li>
                      <time datetime={a.at}>{a.at.slice(0, 19).replace('T', ' ')}</time>{' '}
                      {a.status_code !== null ? `HTTP ${a.status_code}` : t(`webhooks.failure_${a.failure ?? 'unreachable'}`)}
                    </li>
                  ))}
                </ol>
              )}
            </td>
            <td>
              <form method="post" action={`/console/webhooks/events/${d.event_id}/redeliver`}>
                {csrf}
                <button type="submit" class="secondary" aria-label={t('webhooks.redeliver_of', { id: d.webhook_id })}>
                  {t('webhooks.redeliver')}
                </button>
              </form>
            </td>
          </tr>
        ))}
      />
      <h2>{t('webhooks.add')}</h2>
      <form class="stack" method="post" action="/console/webhooks">
        {csrf}
        <label>
          {t('webhooks.url')}
          <input type="url" name="url" required maxlength={2000} />
        </label>
        <label>
          {t('webhooks.types_field')}
          <input type="text" name="event_types" placeholder="order.completed, order.cancelled" />
        </label>
        <button type="submit">{t('webhooks.add_submit')}</button>
      </form>
    </>
  );
}

/** `/console/connections` (the `connections` right) and `/console/webhooks` (the `webhooks` right). */
export const connectionsPages: AgencyPages = (app, kit) => {
  const connectionsTitle = (r: ConsoleRequest) => r.t('nav.connections');
  const webhooksTitle = (r: ConsoleRequest) => r.t('nav.webhooks');
  const showConnections = async (
    k: AgencyKit,
    r: ConsoleRequest,
    viewer: Viewer,
    extra: { notice?: Outcome; secrets?: Secrets } = {},
    status: PageStatus = 200,
  ) => k.page(r, connectionsTitle(r), await Connections({ r, viewer, ...extra }), viewer, status);
  const showWebhooks = async (
    r: ConsoleRequest,
    viewer: Viewer,
    extra: { notice?: Outcome; secrets?: Secrets; sent?: Redelivery } = {},
    status: PageStatus = 200,
  ) => kit.page(r, webhooksTitle(r), await Webhooks({ r, viewer, ...extra }), viewer, status);
  const credentials = (r: ConsoleRequest, title: string, d: { api_key: string | null; api_secret?: string; agency_key?: string }): Secrets => ({
    title,
    items: [
      ...(d.api_key && d.api_secret ? [{ label: 'X-API-KEY', value: d.api_key, name: 'api_key' }] : []),
      ...(d.api_secret ? [{ label: 'X-API-SECRET', value: d.api_secret, name: 'api_secret' }] : []),
      ...(d.agency_key ? [{ label: r.t('connections.agency_key'), value: d.agency_key, name: 'agency_key' }] : []),
    ],
  });

  app.get(
    '/connections',
    withRight(kit, 'connections', connectionsTitle, async (r, viewer) => showConnections(kit, r, viewer)),
  );
  app.post(
    '/connections',
    withRight(kit, 'connections', connectionsTitle, async (r, viewer) => {
      const form = await r.c.req.parseBody({ all: true });
      const f = await fields(r.c);
      const rights = ([] as unknown[]).concat(form.rights ?? []).filter((x): x is string => typeof x === 'string');
      const res = await r.api.POST('/partners/connections/', { body: { name: f.name ?? '', interface: f.interface ?? 'a', rights } });
      if (!res.data) return showConnections(kit, r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return showConnections(kit, r, viewer, { secrets: credentials(r, r.t('connections.created', { name: res.data.data.name }), res.data.data) });
    }),
  );
  app.post(
    '/connections/:id{[0-9]+}/rotate',
    withRight(kit, 'connections', connectionsTitle, async (r, viewer) => {
      const res = await r.api.POST('/partners/connections/{id}/rotate/', { params: { path: { id: r.c.req.param('id') ?? '' } } });
      if (!res.data) return showConnections(kit, r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return showConnections(kit, r, viewer, { secrets: credentials(r, r.t('connections.rotated', { name: res.data.data.name }), res.data.data) });
    }),
  );
  app.post(
    '/connections/:id{[0-9]+}/revoke',
    withRight(kit, 'connections', connectionsTitle, async (r, viewer) => {
      const res = await r.api.POST('/partners/connections/{id}/revoke/', { params: { path: { id: r.c.req.param('id') ?? '' } } });
      if (!res.data) return showConnections(kit, r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return r.c.redirect('/console/connections', 303);
    }),
  );

  app.get(
    '/webhooks',
    withRight(kit, 'webhooks', webhooksTitle, async (r, viewer) => showWebhooks(r, viewer)),
  );
  app.post(
    '/webhooks',
    withRight(kit, 'webhooks', webhooksTitle, async (r, viewer) => {
      const f = await fields(r.c);
      const types = (f.event_types ?? '')
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean);
      const res = await r.api.POST('/partners/webhooks/', { body: { url: f.url ?? '', ...(types.length ? { event_types: types as never } : {}) } });
      if (!res.data) return showWebhooks(r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return showWebhooks(r, viewer, {
        secrets: {
          title: r.t('webhooks.created', { url: res.data.data.url }),
          items: [{ label: r.t('webhooks.secret'), value: res.data.data.secret, name: 'secret' }],
        },
      });
    }),
  );
  app.post(
    '/webhooks/events/:id{[0-9]+}/redeliver',
    withRight(kit, 'webhooks', webhooksTitle, async (r, viewer) => {
      const res = await r.api.POST('/partners/events/{id}/redeliver/', { params: { path: { id: r.c.req.param('id') ?? '' } } });
      if (!res.data) return showWebhooks(r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return showWebhooks(r, viewer, { sent: res.data.data });
    }),
  );
  app.post(
    '/webhooks/:id{[0-9]+}/delete',
    withRight(kit, 'webhooks', webhooksTitle, async (r, viewer) => {
      const res = await r.api.DELETE('/partners/webhooks/{id}/', { params: { path: { id: r.c.req.param('id') ?? '' } } });
      if (!res.response.ok) return showWebhooks(r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return r.c.redirect('/console/webhooks', 303);
    }),
  );
};
