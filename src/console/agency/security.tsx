import { toString as qrSvg } from 'qrcode';
import type { Translate } from '../i18n';
import { Notice, type Viewer } from '../layout';
import type { AgencyPages } from './kit';
import type { ConsoleRequest } from './request';

/** The six digits an authenticator app shows. */
const CodeField = ({ t }: { t: Translate }) => (
  <label>
    {t('security.code')}
    <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
  </label>
);

/** The signed-in user's own second factor: whether it is on, setting it up with a code, turning it off. */
async function SecurityPage({
  r,
  viewer,
  on,
  setup,
  note,
  error,
}: {
  r: ConsoleRequest;
  viewer: Viewer;
  on: boolean;
  setup?: { secret: string; uri: string };
  note?: string;
  error?: string;
}) {
  const { t } = r;
  const qr = setup ? await qrSvg(setup.uri, { type: 'svg', margin: 1, width: 200 }) : null;
  const csrf = <input type="hidden" name="csrf" value={viewer.csrfToken} />;
  return (
    <>
      {note && <Notice kind="info">{note}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <p data-two-factor={on ? 'on' : 'off'}>{on ? t('security.on') : t('security.off')}</p>
      {on ? (
        <form class="stack" method="post" action="/console/security/remove">
          {csrf}
          <CodeField t={t} />
          <button type="submit" class="secondary">
            {t('security.remove')}
          </button>
        </form>
      ) : setup ? (
        <>
          <p>{t('security.scan')}</p>
          <figure class="qr" role="img" aria-label={t('security.qr')} dangerouslySetInnerHTML={{ __html: qr! }} />
          <p>
            {t('security.key')}: <code data-two-factor-key>{setup.secret}</code>
          </p>
          <form class="stack" method="post" action="/console/security/confirm">
            {csrf}
            <CodeField t={t} />
            <button type="submit">{t('security.confirm')}</button>
          </form>
        </>
      ) : (
        <form method="post" action="/console/security/begin">
          {csrf}
          <button type="submit">{t('security.begin')}</button>
        </form>
      )}
    </>
  );
}

/** `/console/security`: two-factor sign-in, through the session's own endpoints. */
export const securityPages: AgencyPages = (app, kit) => {
  const isOn = async (r: ConsoleRequest) => (await r.api.GET('/partners/session/')).data?.data.user?.two_factor ?? false;
  const render = async (
    r: ConsoleRequest,
    viewer: Viewer,
    extra: { setup?: { secret: string; uri: string }; note?: string; error?: string } = {},
    status: 200 | 400 | 409 = 200,
  ) => kit.page(r, r.t('security.title'), await SecurityPage({ r, viewer, on: await isOn(r), ...extra }), viewer, status);
  const errorOf = (e: unknown) => (e as { error?: string } | undefined)?.error ?? '';

  app.get(
    '/security',
    kit.signedIn(async (r, viewer) => {
      const note = r.c.req.query('note');
      return render(r, viewer, note === 'on' ? { note: r.t('security.turned_on') } : note === 'off' ? { note: r.t('security.turned_off') } : {});
    }),
  );
  app.post(
    '/security/begin',
    kit.signedIn(async (r, viewer) => {
      const res = await r.api.POST('/partners/session/two-factor/');
      if (!res.data) return render(r, viewer, { error: errorOf(res.error) }, 409);
      return render(r, viewer, { setup: { secret: res.data.data.secret, uri: res.data.data.otpauth_uri } });
    }),
  );
  for (const [path, done] of [
    ['confirm', 'on'],
    ['remove', 'off'],
  ] as const) {
    app.post(
      `/security/${path}`,
      kit.signedIn(async (r, viewer) => {
        const form = await r.c.req.parseBody();
        const code = typeof form.code === 'string' ? form.code : '';
        const res = await r.api.POST(path === 'confirm' ? '/partners/session/two-factor/confirm/' : '/partners/session/two-factor/remove/', { body: { code } });
        if (res.data) return r.c.redirect(`/console/security?note=${done}`, 303);
        return render(r, viewer, { error: errorOf(res.error) }, 400);
      }),
    );
  }
};
