import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { listen, type RunningServer } from '../../src/platform/listen';
import { launchBrowser, SCREENSHOT_DIR } from '../support/browser';
import { type TestStack, useStack } from '../support/stack';

/**
 * The docs pages in a real browser (issue 15): Debian's Chromium, driven by puppeteer-core,
 * opens /docs, /api/docs and /v1/docs on the engine's HTTP app (served on a loopback port).
 * Every request a page makes is intercepted: one to any other origin than the engine fails
 * the test and is never sent, so the pages are proven to render without internet. Each
 * Swagger UI page must render every operation of its OpenAPI document.
 *
 * Chromium and the screenshots: test/support/browser.ts (Debian's Chromium, never
 * downloaded; without it the test fails, saying so, and never skips).
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let stack: TestStack;
useStack((s) => (stack = s));

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await listen(stack.app.fetch, 0, '127.0.0.1');
  browser = await launchBrowser('the docs browser test');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Visit {
  page: Page;
  /** Requests to any other origin than the engine's: aborted, never sent. */
  elsewhere: string[];
  /** Page errors, console errors, failed or refused requests to the engine. */
  problems: string[];
}

const visits: Page[] = [];
afterEach(async () => {
  for (const page of visits.splice(0)) await page.close();
});

/** Opens `pathname` on the engine with every request watched; waits until the network is quiet. */
async function open(pathname: string): Promise<Visit> {
  const page = await browser.newPage();
  visits.push(page);
  await page.setViewport({ width: 1280, height: 900 });
  const elsewhere: string[] = [];
  const problems: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.origin === server.url) return void req.continue();
    elsewhere.push(`${req.method()} ${req.url()}`);
    void req.abort('blockedbyclient');
  });
  page.on('requestfailed', (req) => {
    if (new URL(req.url()).origin === server.url) problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} for ${res.url()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err instanceof Error ? err.message : String(err)}`));
  // A Content-Security-Policy refusal shows here too.
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  const res = await page.goto(`${server.url}${pathname}`, { waitUntil: 'networkidle0', timeout: 60_000 });
  expect(res?.status()).toBe(200);
  return { page, elsewhere, problems };
}

const screenshot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

/** Nothing left the machine and nothing went wrong on the page. */
function expectLocalAndClean(visit: Visit): void {
  expect(visit.elsewhere).toEqual([]);
  expect(visit.problems).toEqual([]);
}

interface Operation {
  tags?: string[];
  parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>;
}
type Document = { info: { title: string }; paths: Record<string, Record<string, Operation>> };

async function documentAt(url: string): Promise<Document> {
  const res = await stack.app.request(url);
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

/** `METHOD path` of every operation, once per tag, as Swagger UI lists them. */
function operationsOf(doc: Document): string[] {
  const ops: string[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) ops.push(...(op.tags ?? ['default']).map(() => `${method.toUpperCase()} ${p}`));
    }
  }
  return ops.sort();
}

/** The operations the page shows, as `METHOD path`. */
const renderedOperations = (page: Page) =>
  page.$$eval('.opblock', (blocks) =>
    blocks
      .map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`)
      .sort(),
  );

/** The values the X-Sandbox-Scenario drop-down of one operation offers, once the operation is opened. */
async function scenarioChoices(page: Page, method: string, pathname: string): Promise<string[]> {
  const block = `.opblock-${method}:has(.opblock-summary-path[data-path="${pathname}"])`;
  await page.click(`${block} .opblock-summary-control`);
  const select = `${block} tr[data-param-name="x-sandbox-scenario"] select`;
  await page.waitForSelector(select, { timeout: 20_000 });
  return page.$$eval(`${select} option`, (options) => options.map((o) => o.getAttribute('value') ?? '').filter((v) => v !== '' && v !== '--'));
}

/** A Swagger UI page: renders its document's title and every one of its operations, loading nothing from elsewhere. */
async function checkSwaggerPage(pathname: string, specUrl: string, name: string, sandboxOperation: [string, string]): Promise<void> {
  const doc = await documentAt(specUrl);
  const expected = operationsOf(doc);
  expect(expected.length).toBeGreaterThan(0);
  const visit = await open(pathname);
  // On a time-out, the comparison below says what is missing.
  await visit.page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${expected.length}`, { timeout: 30_000 }).catch(() => undefined);
  await screenshot(visit.page, name);
  expectLocalAndClean(visit);
  expect(await renderedOperations(visit.page)).toEqual(expected);
  expect(await visit.page.$eval('.information-container .title', (e) => e.textContent)).toContain(doc.info.title);
  // Swagger UI lists the errors it met reading the document here.
  expect(await visit.page.$('.errors-wrapper')).toBeNull();

  // The sandbox header shows as a drop-down of exactly the values the document lists.
  const [method, opPath] = sandboxOperation;
  const param = doc.paths[opPath]?.[method]?.parameters?.find((p) => p.name === 'x-sandbox-scenario');
  expect(param?.schema?.enum?.length).toBeGreaterThan(0);
  expect(await scenarioChoices(visit.page, method, opPath)).toEqual(param!.schema!.enum);
  await screenshot(visit.page, `${name}-sandbox-header`);
  expectLocalAndClean(visit);
}

describe('the docs pages in Chromium, offline', () => {
  it('/docs links both interfaces’ docs and OpenAPI documents, and its links lead there', async () => {
    const visit = await open('/docs');
    await screenshot(visit.page, 'docs');
    const links = await visit.page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(expect.arrayContaining(['/api/docs', '/api/openapi.json', '/v1/docs', '/v1/openapi.json']));
    for (const [href, title] of [
      ['/api/docs', 'partner API (Interface A)'],
      ['/v1/docs', 'agency API (Interface B)'],
    ]) {
      await Promise.all([visit.page.waitForNavigation({ waitUntil: 'networkidle0', timeout: 60_000 }), visit.page.click(`a[href="${href}"]`)]);
      expect(visit.page.url()).toBe(`${server.url}${href}`);
      await visit.page.waitForSelector('.information-container .title', { timeout: 30_000 });
      expect(await visit.page.$eval('.information-container .title', (e) => e.textContent)).toContain(title);
      await visit.page.goBack({ waitUntil: 'networkidle0' });
    }
    expectLocalAndClean(visit);
  });

  it('/api/docs renders every operation of Interface A', async () => {
    await checkSwaggerPage('/api/docs', '/api/openapi.json', 'api-docs', ['post', '/partners/pay/']);
  });

  it('/v1/docs renders every operation of Interface B', async () => {
    await checkSwaggerPage('/v1/docs', '/v1/openapi.json', 'v1-docs', ['post', '/hotels/bookings']);
  });
});
