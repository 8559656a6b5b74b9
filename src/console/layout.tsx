import type { Child } from 'hono/jsx';
import { LOCALES, type Locale, type Translate } from './i18n';
import type { MessageKey } from './messages/en';

/** Who is signed in, as the pages need it: from `GET /api/partners/session/`. */
export interface Viewer {
  name: string;
  role: string;
  agency: string;
  rights: ReadonlySet<string>;
  csrfToken: string;
}

/** A page of the console's navigation and the right it needs (the API's rights table decides what each page may do). */
export interface NavItem {
  href: string;
  label: MessageKey;
  right: string | null;
}

export interface PageProps {
  t: Translate;
  locale: Locale;
  title: string;
  /** The path of the page, to mark its navigation entry as current. */
  path: string;
  viewer?: Viewer;
  nav?: readonly NavItem[];
  children?: Child;
}

/**
 * The console's page: its language and reading direction on <html>, a skip link, the
 * navigation a viewer's rights allow, and the CSRF token every htmx request sends.
 */
export function Page(props: PageProps) {
  const { t, locale, title, viewer } = props;
  const here = (href: string) => (props.path === href || (href !== '/console/' && props.path.startsWith(href)) ? 'page' : undefined);
  return (
    <html lang={locale} dir={LOCALES[locale].dir}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${t('app.name')}`}</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/htmx.min.js" defer></script>
      </head>
      <body hx-headers={viewer ? JSON.stringify({ 'X-CSRF-Token': viewer.csrfToken }) : undefined}>
        <a class="skip" href="#main">
          {t('app.skip')}
        </a>
        <header class="top">
          <a class="brand" href="/console/">
            {t('app.name')}
          </a>
          {viewer && (
            <nav aria-label={t('nav.label')}>
              <ul>
                {(props.nav ?? [])
                  .filter((item) => item.right === null || viewer.rights.has(item.right))
                  .map((item) => (
                    <li>
                      <a href={item.href} aria-current={here(item.href)}>
                        {t(item.label)}
                      </a>
                    </li>
                  ))}
              </ul>
            </nav>
          )}
          <div class="account">
            {viewer && (
              <form method="post" action="/console/sign-out">
                <span>{t('session.signed_in_as', { name: viewer.name, role: viewer.role })}</span> <input type="hidden" name="csrf" value={viewer.csrfToken} />
                <button type="submit">{t('session.sign_out')}</button>
              </form>
            )}
            <ul class="languages" aria-label={t('app.language')}>
              {(Object.keys(LOCALES) as Locale[]).map((l) => (
                <li>
                  <a href={`?lang=${l}`} lang={l} hreflang={l} aria-current={l === locale ? 'true' : undefined}>
                    {LOCALES[l].name}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        </header>
        <main id="main" tabindex={-1}>
          <h1>{title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** A message the page shows above its content: `role="alert"` for what went wrong, `status` otherwise. */
export const Notice = (props: { kind: 'error' | 'info'; children?: Child }) => (
  <p class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
    {props.children}
  </p>
);
