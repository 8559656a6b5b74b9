import fs from 'node:fs/promises';
import path from 'node:path';
import { Hono, type Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * The docs pages, served by the engine itself from the pinned `swagger-ui-dist` package, so
 * that they render on a machine without internet and no request leaves it: `/docs` links
 * both interfaces, `/api/docs` and `/v1/docs` are Swagger UI on each OpenAPI document.
 */

const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The files a page loads (and the source maps a browser's developer tools ask for); nothing else of the package is served. */
const CONTENT_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-bundle.js.map': 'application/json; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

let version: Promise<string> | undefined;
/** The installed swagger-ui-dist version: part of every asset URL, so that a new version is a new URL and assets can be cached for good. */
const swaggerUiVersion = () => (version ??= fs.readFile(path.join(DIST, 'package.json'), 'utf8').then((s) => (JSON.parse(s) as { version: string }).version));

const assetsBase = (v: string) => `/docs/swagger-ui/${v}`;

/** HTML that is cheap to send and changes with each release: always revalidated. */
const PAGE_HEADERS = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  // The browser itself refuses anything from another origin: the pages load only what the engine serves.
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
};

/**
 * A docs page: its head (title, icon, any stylesheet and inline style) and body, sent with
 * PAGE_HEADERS.
 */
const page = (c: Context, head: { title: string; assets: string; stylesheet?: string; style: string }, body: HtmlEscapedString | Promise<HtmlEscapedString>) =>
  c.html(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${head.title}</title>
          <link rel="icon" type="image/png" sizes="32x32" href="${head.assets}/favicon-32x32.png" />
          ${head.stylesheet ? html`<link rel="stylesheet" href="${head.stylesheet}" />` : ''}
          <style>
            ${raw(head.style)}
          </style>
        </head>
        <body>
          ${body}
        </body>
      </html>`,
    200,
    PAGE_HEADERS,
  );

/** JSON inside an inline <script>: `<` escaped, so that no value can close the element. */
const scriptJson = (value: unknown) => raw(JSON.stringify(value).replace(/</g, '\\u003c'));

/** `GET <interface>/docs`: Swagger UI on the interface's OpenAPI document. */
export function swaggerPage(opts: { title: string; specUrl: string }) {
  return async (c: Context) => {
    const assets = assetsBase(await swaggerUiVersion());
    const config = { url: opts.specUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null };
    return page(
      c,
      { title: opts.title, assets, stylesheet: `${assets}/swagger-ui.css`, style: '.docs-nav { font-family: sans-serif; margin: 12px 20px 0; }' },
      html`<nav class="docs-nav"><a href="/docs">All API docs</a> · <a href="${opts.specUrl}">OpenAPI document (JSON)</a></nav>
        <div id="swagger-ui"></div>
        <script src="${assets}/swagger-ui-bundle.js"></script>
        <script>
          window.ui = SwaggerUIBundle(${scriptJson(config)});
        </script>`,
    );
  };
}

const LANDING_STYLE = [
  'body { font-family: sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #222; }',
  'section { border: 1px solid #ccc; border-radius: 6px; padding: 0 1rem 1rem; margin: 1rem 0; }',
  'small { color: #666; }',
].join('\n');

/** An interface as the landing page lists it. */
export interface DocumentedInterface {
  name: string;
  summary: string;
  docsUrl: string;
  specUrl: string;
}

/** `/docs`: the landing page; `/docs/swagger-ui/<version>/<file>`: Swagger UI's assets, cached for good. */
export function docsRoutes(interfaces: DocumentedInterface[]) {
  const app = new Hono();
  const cache = new Map<string, Promise<Buffer>>();

  app.get('/', async (c) => {
    const v = await swaggerUiVersion();
    return page(
      c,
      { title: 'Travel booking engine — API docs', assets: assetsBase(v), style: LANDING_STYLE },
      html`<h1>Travel booking engine — API docs</h1>
        ${interfaces.map(
          (i) =>
            html`<section>
              <h2>${i.name}</h2>
              <p>${i.summary}</p>
              <p><a href="${i.docsUrl}">Interactive docs (${i.docsUrl})</a> · <a href="${i.specUrl}">OpenAPI 3.1 document (${i.specUrl})</a></p>
            </section>`,
        )}
        <p><small>Swagger UI ${v}, served by the engine itself: these pages load nothing from outside this server.</small></p>`,
    );
  });

  app.get('/swagger-ui/:version/:file', async (c) => {
    const { version: asked, file } = c.req.param();
    const type = CONTENT_TYPES[file];
    if (!type || asked !== (await swaggerUiVersion())) return c.json({ detail: `no route for GET ${c.req.path}` }, 404);
    let body = cache.get(file);
    if (!body) {
      body = fs.readFile(path.join(DIST, file));
      cache.set(file, body);
      body.catch(() => cache.delete(file));
    }
    return c.body(new Uint8Array(await body), 200, {
      'Content-Type': type,
      // The version is in the URL: a new swagger-ui-dist is a new URL.
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    });
  });
  return app;
}
