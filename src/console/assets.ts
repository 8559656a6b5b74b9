import fs from 'node:fs';
import path from 'node:path';
import { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { LOCALE_COOKIE, LOCALES } from './i18n';

/**
 * The consoles' static files, read once and served from memory: the stylesheet, the one page
 * script, and htmx from its npm package (no CDN). Each is revalidated by its ETag.
 */
const FILES = {
  'console.css': { file: path.join(__dirname, 'assets/console.css'), type: 'text/css; charset=utf-8' },
  'htmx.min.js': { file: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'link-token.js': { file: path.join(__dirname, 'assets/link-token.js'), type: 'text/javascript; charset=utf-8' },
} as const;

export function serveAssets(app: Hono, base: string): void {
  const loaded = new Map<string, { body: Buffer; type: string; etag: string }>();
  const read = (name: keyof typeof FILES) => {
    let entry = loaded.get(name);
    if (!entry) {
      const body = fs.readFileSync(FILES[name].file);
      entry = { body, type: FILES[name].type, etag: `"${body.length.toString(16)}-${fs.statSync(FILES[name].file).mtimeMs.toString(16)}"` };
      loaded.set(name, entry);
    }
    return entry;
  };
  app.get(`${base}/assets/:name`, (c) => {
    const name = c.req.param('name');
    if (!Object.hasOwn(FILES, name)) return c.notFound();
    const entry = read(name as keyof typeof FILES);
    if (c.req.header('if-none-match') === entry.etag) return c.body(null, 304);
    c.header('content-type', entry.type);
    c.header('etag', entry.etag);
    c.header('cache-control', 'no-cache');
    return c.body(new Uint8Array(entry.body));
  });
}

/**
 * A console's app with what both consoles share: its static files, and the language a link
 * chose (`?lang=`) kept in a cookie for the next pages.
 */
export function consoleApp(): Hono {
  const app = new Hono();
  serveAssets(app, '');
  app.use('*', async (c, next) => {
    const asked = c.req.query('lang');
    if (asked && Object.hasOwn(LOCALES, asked)) setCookie(c, LOCALE_COOKIE, asked, { path: '/console', sameSite: 'Lax', maxAge: 365 * 86_400 });
    await next();
  });
  return app;
}
