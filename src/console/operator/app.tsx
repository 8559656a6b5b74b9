import { fromAnotherOrigin, OPERATOR_SESSION_COOKIE } from '../../http/console-session';
import { consoleApp } from '../assets';
import { SignInForm, type SignInNotice } from '../sign-in-form';
import { errorOf } from './admin-api';
import { auditPages } from './audit';
import { webhookPages } from './webhooks';
import { operatorKit, type OperatorConsoleDeps } from './kit';
import { markupPages } from './markups';
import { partnerPages } from './partners';
import { queuePages } from './queue';
import { ratePages } from './rates';
import { reportPages } from './reports';
import type { OperatorRequest } from './request';

export type { OperatorConsoleDeps };

/**
 * The operator console at /console/ on the admin port (docs/decisions/consoles.md): pages
 * drawn on the server from the admin API's answers, called in process with the browser's
 * session cookie, Origin and CSRF token, so authentication, the CSRF check and the audit are
 * the admin API's own.
 */
export function createOperatorConsole(deps: OperatorConsoleDeps) {
  const app = consoleApp();

  const kit = operatorKit(deps);
  const { requestOf, page } = kit;

  const signInForm = (r: OperatorRequest, notice?: SignInNotice, status: 200 | 400 | 401 | 403 | 429 = 200) =>
    page(
      r,
      r.t('op.sign_in.title'),
      <SignInForm notice={notice} intro={<p>{r.t('op.sign_in.help')}</p>} submit={r.t('sign_in.submit')}>
        <label>
          {r.t('op.sign_in.token')}
          <input type="password" name="token" autocomplete="current-password" required />
        </label>
      </SignInForm>,
      undefined,
      status,
    );

  app.get('/sign-in', async (c) => {
    const r = await requestOf(c);
    return signInForm(r, c.req.query('note') === 'signed-out' ? { kind: 'info', text: r.t('sign_in.signed_out') } : undefined);
  });

  app.post('/sign-in', async (c) => {
    if (fromAnotherOrigin(c)) return c.text('forbidden: another origin', 403);
    const r = await requestOf(c);
    const token = typeof r.form.token === 'string' ? r.form.token : '';
    const { error, response } = await r.api.POST('/admin/session', { body: { token } });
    if (response.status === 200) {
      const cookie = response.headers.get('set-cookie');
      if (cookie) c.header('set-cookie', cookie, { append: true });
      return c.redirect('/console/', 303);
    }
    if (response.status === 429)
      return signInForm(r, { kind: 'error', text: r.t('sign_in.throttled', { seconds: response.headers.get('retry-after') ?? '60' }) }, 429);
    if (response.status === 401) return signInForm(r, { kind: 'error', text: r.t('op.sign_in.wrong') }, 401);
    return signInForm(r, { kind: 'error', text: errorOf(error, r.t('error.title')) }, response.status === 403 ? 403 : 400);
  });

  app.post('/sign-out', async (c) => {
    const r = await requestOf(c);
    const { response } = await r.api.DELETE('/admin/session');
    const cookie = response.headers.get('set-cookie');
    c.header('set-cookie', cookie ?? `${OPERATOR_SESSION_COOKIE}=; Max-Age=0; Path=/`, { append: true });
    return c.redirect('/console/sign-in?note=signed-out', 303);
  });

  // The pages, each area in its own module, each behind a session.
  queuePages(app, kit);
  partnerPages(app, kit);
  ratePages(app, kit);
  markupPages(app, kit);
  reportPages(app, kit);
  auditPages(app, kit);
  webhookPages(app, kit);

  return app;
}
