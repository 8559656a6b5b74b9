import type { Child } from 'hono/jsx';
import type { Viewer } from '../layout';
import { Notice } from '../layout';
import { fields, outcomeOf, pageStatus, withRight, type Outcome } from './account-kit';
import type { AgencyKit, AgencyPages, PageStatus } from './kit';
import type { ConsoleRequest } from './request';

const ROLES = ['owner', 'finance', 'agent', 'viewer'] as const;

/** A one-time link, shown once to whoever made it. */
interface IssuedLink {
  name: string;
  purpose: 'invitation' | 'reset';
  url: string;
  expires_at: string;
}

const RoleSelect = ({ r, id, value }: { r: ConsoleRequest; id: string; value?: string }) => (
  <select name="role" id={id} required>
    {ROLES.map((role) => (
      <option value={role} selected={role === value}>
        {r.t(`users.role_${role}`)}
      </option>
    ))}
  </select>
);

/** The agency's users, each with their role and what an owner may do with them, and the form to add one. */
async function Users({ r, viewer, notice, link }: { r: ConsoleRequest; viewer: Viewer; notice?: Outcome; link?: IssuedLink }): Promise<Child> {
  const { t } = r;
  const users = (await r.api.GET('/partners/users/')).data?.data.results ?? [];
  const csrf = <input type="hidden" name="csrf" value={viewer.csrfToken} />;
  return (
    <>
      {notice?.error && <Notice kind="error">{notice.status === 403 ? t('error.forbidden') : notice.error}</Notice>}
      {link && (
        <section class="once" aria-labelledby="link-heading">
          <h2 id="link-heading">
            {link.purpose === 'invitation' ? t('users.invitation_for', { name: link.name }) : t('users.reset_for', { name: link.name })}
          </h2>
          <p role="status">{t('users.link_once', { expires: link.expires_at.slice(0, 16).replace('T', ' ') })}</p>
          <label>
            {t('users.link')}
            <input type="text" readonly value={new URL(link.url, new URL(r.c.req.url).origin).toString()} data-link={link.purpose} />
          </label>
        </section>
      )}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('users.name')}</th>
              <th scope="col">{t('users.email')}</th>
              <th scope="col">{t('users.role')}</th>
              <th scope="col">{t('users.status')}</th>
              <th scope="col">{t('users.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr>
                <th scope="row">{u.name}</th>
                <td>
                  <bdi>{u.email}</bdi>
                </td>
                <td>
                  {t(`users.role_${u.role}`)}
                  {u.own_bookings_only && ` (${t('users.own_only')})`}
                </td>
                <td>{u.status === 'active' ? t('users.active') : t('users.inactive')}</td>
                <td>
                  {u.status === 'active' && (
                    <div class="actions">
                      <form method="post" action={`/console/users/${u.id}/role`} class="inline">
                        {csrf}
                        <label>
                          {t('users.new_role_of', { name: u.name })}
                          <RoleSelect r={r} id={`role-${u.id}`} value={u.role} />
                        </label>
                        <label class="check">
                          <input type="checkbox" name="own_bookings_only" value="on" checked={u.own_bookings_only} />
                          {t('users.own_only')}
                        </label>
                        <button type="submit" class="secondary">
                          {t('users.change_role')}
                        </button>
                      </form>
                      <form method="post" action={`/console/users/${u.id}/invitation`}>
                        {csrf}
                        <button type="submit" class="secondary" aria-label={t('users.invite_of', { name: u.name })}>
                          {t('users.invite')}
                        </button>
                      </form>
                      <form method="post" action={`/console/users/${u.id}/password-reset`}>
                        {csrf}
                        <button type="submit" class="secondary" aria-label={t('users.reset_of', { name: u.name })}>
                          {t('users.reset')}
                        </button>
                      </form>
                      <form method="post" action={`/console/users/${u.id}/deactivate`}>
                        {csrf}
                        <button type="submit" class="danger" aria-label={t('users.deactivate_of', { name: u.name })}>
                          {t('users.deactivate')}
                        </button>
                      </form>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>{t('users.add')}</h2>
      <form class="stack" method="post" action="/console/users">
        {csrf}
        <label>
          {t('users.name')}
          <input type="text" name="name" required maxlength={200} autocomplete="off" />
        </label>
        <label>
          {t('users.email')}
          <input type="email" name="email" required autocomplete="off" />
        </label>
        <label>
          {t('users.role')}
          <RoleSelect r={r} id="new-role" value="agent" />
        </label>
        <label class="check">
          <input type="checkbox" name="own_bookings_only" value="on" />
          {t('users.own_only_hint')}
        </label>
        <button type="submit">{t('users.add_submit')}</button>
      </form>
    </>
  );
}

const title = (r: ConsoleRequest) => r.t('nav.users');

const show = async (kit: AgencyKit, r: ConsoleRequest, viewer: Viewer, extra: { notice?: Outcome; link?: IssuedLink } = {}, status: PageStatus = 200) =>
  kit.page(r, title(r), await Users({ r, viewer, ...extra }), viewer, status);

/** `/console/users`: an owner's list of users; adding one shows its invitation link once; role, links and deactivation per user. */
export const usersPages: AgencyPages = (app, kit) => {
  app.get(
    '/users',
    withRight(kit, 'users', title, async (r, viewer) => show(kit, r, viewer)),
  );

  /** Makes a user's one-time link and shows it once. */
  const issue = async (r: ConsoleRequest, viewer: Viewer, id: string, purpose: 'invitation' | 'reset') => {
    const params = { params: { path: { id } }, body: {} as never };
    const res =
      purpose === 'invitation'
        ? await r.api.POST('/partners/users/{id}/invitation/', params)
        : await r.api.POST('/partners/users/{id}/password-reset/', params);
    if (!res.data) return show(kit, r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
    const users = (await r.api.GET('/partners/users/')).data?.data.results ?? [];
    const name = users.find((u) => String(u.id) === id)?.name ?? id;
    const d = res.data.data;
    return show(kit, r, viewer, { link: { name, purpose, url: d.url, expires_at: d.expires_at } });
  };

  app.post(
    '/users',
    withRight(kit, 'users', title, async (r, viewer) => {
      const f = await fields(r.c);
      const made = await r.api.POST('/partners/users/', {
        body: {
          name: f.name ?? '',
          email: f.email ?? '',
          role: f.role ?? '',
          ...(f.role === 'agent' ? { own_bookings_only: f.own_bookings_only === 'on' } : {}),
        },
      });
      if (!made.data) return show(kit, r, viewer, { notice: outcomeOf(made) }, pageStatus(made.response.status));
      return issue(r, viewer, String(made.data.data.id), 'invitation');
    }),
  );
  app.post(
    '/users/:id{[0-9]+}/invitation',
    withRight(kit, 'users', title, async (r, viewer) => issue(r, viewer, r.c.req.param('id') ?? '', 'invitation')),
  );
  app.post(
    '/users/:id{[0-9]+}/password-reset',
    withRight(kit, 'users', title, async (r, viewer) => issue(r, viewer, r.c.req.param('id') ?? '', 'reset')),
  );
  app.post(
    '/users/:id{[0-9]+}/role',
    withRight(kit, 'users', title, async (r, viewer) => {
      const f = await fields(r.c);
      const res = await r.api.POST('/partners/users/{id}/role/', {
        params: { path: { id: r.c.req.param('id') ?? '' } },
        body: { role: f.role ?? '', ...(f.role === 'agent' ? { own_bookings_only: f.own_bookings_only === 'on' } : {}) },
      });
      if (!res.data) return show(kit, r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return r.c.redirect('/console/users', 303);
    }),
  );
  app.post(
    '/users/:id{[0-9]+}/deactivate',
    withRight(kit, 'users', title, async (r, viewer) => {
      const res = await r.api.POST('/partners/users/{id}/deactivate/', { params: { path: { id: r.c.req.param('id') ?? '' } } });
      if (!res.data) return show(kit, r, viewer, { notice: outcomeOf(res) }, pageStatus(res.response.status));
      return r.c.redirect('/console/users', 303);
    }),
  );
};
