import type { Context } from 'hono';
import { fromAnotherOrigin, SESSION_COOKIE } from '../../http/console-session';
import { consoleApp } from '../assets';
import { localeOf, translator } from '../i18n';
import { SignInForm, type SignInNotice } from '../sign-in-form';
import { Notice, Page } from '../layout';
import { accountPages } from './account';
import { bookingsPages } from './bookings';
import { dashboardPages } from './dashboard';
import { securityPages } from './security';
import { agencyKit, type AgencyConsoleDeps } from './kit';
import type { ConsoleRequest } from './request';

export type { AgencyConsoleDeps };

/**
 * The agency console at /console/ (docs/decisions/consoles.md): pages drawn on the server
 * from Interface A's answers. Every call goes through the same API a key would, with the
 * browser's session cookie, its Origin and the CSRF token the page carried, so rights, rate
 * limits, audit and the CSRF check are the API's own; the console reads nothing else.
 */
export function createAgencyConsole(deps: AgencyConsoleDeps) {
  const app = consoleApp();

  const kit = agencyKit(deps);
  const { requestOf, page } = kit;

  const signInForm = (r: ConsoleRequest, notice?: SignInNotice, email = '', status: 200 | 401 | 429 | 400 = 200) =>
    page(
      r,
      r.t('sign_in.title'),
      <SignInForm notice={notice} submit={r.t('sign_in.submit')}>
        <label>
          {r.t('sign_in.email')}
          <input type="email" name="email" autocomplete="username" required value={email} />
        </label>
        <label>
          {r.t('sign_in.password')}
          <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <label>
          {r.t('sign_in.agency')}
          <input type="text" inputmode="numeric" name="agency_id" pattern="[0-9]*" />
        </label>
        <label>
          {r.t('sign_in.totp')}
          <input type="text" inputmode="numeric" name="totp" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} />
        </label>
      </SignInForm>,
      undefined,
      status,
    );

  app.get('/sign-in', async (c) => {
    const r = await requestOf(c);
    const note = c.req.query('note');
    const notice =
      note === 'signed-out'
        ? { kind: 'info' as const, text: r.t('sign_in.signed_out') }
        : note === 'password-set'
          ? { kind: 'info' as const, text: r.t('sign_in.password_set') }
          : undefined;
    return signInForm(r, notice);
  });

  app.post('/sign-in', async (c) => {
    if (fromAnotherOrigin(c)) return c.text('forbidden: another origin', 403);
    const r = await requestOf(c);
    const form = await c.req.parseBody();
    const email = typeof form.email === 'string' ? form.email : '';
    const agency = typeof form.agency_id === 'string' && /^[1-9][0-9]{0,9}$/.test(form.agency_id) ? Number(form.agency_id) : undefined;
    const res = await r.api.POST('/partners/session/', {
      body: {
        email,
        password: typeof form.password === 'string' ? form.password : '',
        ...(agency === undefined ? {} : { agency_id: agency }),
        ...(typeof form.totp === 'string' && form.totp.trim() ? { totp: form.totp.trim() } : {}),
      },
    });
    if (res.response.status === 200) {
      const cookie = res.response.headers.get('set-cookie');
      if (cookie) c.header('set-cookie', cookie, { append: true });
      return c.redirect('/console/', 303);
    }
    if (res.response.status === 429) {
      const seconds = res.response.headers.get('retry-after') ?? '60';
      return signInForm(r, { kind: 'error', text: r.t('sign_in.throttled', { seconds }) }, email, 429);
    }
    if (res.response.status === 400)
      return signInForm(r, { kind: 'error', text: (res.error as { error?: string } | undefined)?.error ?? r.t('sign_in.wrong') }, email, 400);
    const said = (res.error as { error?: string } | undefined)?.error ?? '';
    return signInForm(r, { kind: 'error', text: r.t(/two-factor/.test(said) ? 'sign_in.totp_needed' : 'sign_in.wrong') }, email, 401);
  });

  app.post('/sign-out', async (c) => {
    const r = await requestOf(c);
    const res = await r.api.DELETE('/partners/session/');
    const cookie = res.response.headers.get('set-cookie');
    if (cookie) c.header('set-cookie', cookie, { append: true });
    else c.header('set-cookie', `${SESSION_COOKIE}=; Max-Age=0; Path=/`, { append: true });
    return c.redirect('/console/sign-in?note=signed-out', 303);
  });

  const passwordForm = (r: ConsoleRequest, notice?: string, status: 200 | 400 | 404 = 200) =>
    page(
      r,
      r.t('password.title'),
      <>
        {notice && <Notice kind="error">{notice}</Notice>}
        <noscript>
          <Notice kind="info">{r.t('password.no_token')}</Notice>
        </noscript>
        <form class="stack" method="post" action="/console/set-password" id="set-password">
          <input type="hidden" name="token" id="link-token" />
          <label>
            {r.t('password.new')}
            <input type="password" name="password" autocomplete="new-password" minlength={12} required />
          </label>
          <button type="submit">{r.t('password.submit')}</button>
        </form>
        {/* The link's token is in the fragment, which no request carries: it is read here, in the page. */}
        <script src="/console/assets/link-token.js" defer></script>
      </>,
      undefined,
      status,
    );

  app.get('/set-password', async (c) => passwordForm(await requestOf(c)));
  app.post('/set-password', async (c) => {
    if (fromAnotherOrigin(c)) return c.text('forbidden: another origin', 403);
    const r = await requestOf(c);
    const form = await c.req.parseBody();
    const res = await r.api.POST('/partners/password/', {
      body: { token: typeof form.token === 'string' ? form.token : '', password: typeof form.password === 'string' ? form.password : '' },
    });
    if (res.response.status === 200) return c.redirect('/console/sign-in?note=password-set', 303);
    if (res.response.status === 404) return passwordForm(r, r.t('password.link_gone'), 404);
    return passwordForm(r, (res.error as { error?: string } | undefined)?.error ?? r.t('error.title'), 400);
  });

  // The pages, each area in its own module, each behind a session.
  dashboardPages(app, kit);
  securityPages(app, kit);
  accountPages(app, kit);
  bookingsPages(app, kit);

  return app;
}

/** A console address that names no page: a page that says so, in the reader's language, with the way back. */
export function consoleNotFound(c: Context): Response | Promise<Response> {
  const locale = localeOf(c);
  const t = translator(locale);
  return c.html(
    '<!doctype html>' +
      String(
        <Page t={t} locale={locale} title={t('error.not_found')} path={c.req.path}>
          <p>
            <a href="/console/">{t('nav.dashboard')}</a>
          </p>
        </Page>,
      ),
    404,
  );
}
