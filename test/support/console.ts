import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { SCREENSHOT_DIR } from './browser';

/**
 * What the consoles' browser journeys share: a watched page (a request to any other origin
 * is aborted and fails the journey; so do page errors), axe-core on a page in both reading
 * directions, and screenshots. SCREENSHOT_DIR=docs/images/console keeps them for the guides.
 */
export interface Watched {
  page: Page;
  /** Requests to another origin (never sent) and errors on the page. */
  problems: string[];
}

export async function watchedPage(browser: Browser, origin: string, width = 1280): Promise<Watched> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900 });
  const problems: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.origin === origin) return void req.continue();
    problems.push(`left the engine: ${req.method()} ${req.url()}`);
    void req.abort('blockedbyclient');
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err instanceof Error ? err.message : String(err)}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(`console error: ${msg.text()}`);
  });
  return { page, problems };
}

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** What axe found serious or critical on the page as it is: `rule: where` lines (WCAG 2.1 A and AA rules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, where: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  })) as Array<{ id: string; impact: string; where: string[] }>;
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.where.join(', ')}`);
}

/**
 * For a page only a form's post draws (what is shown once: credentials, a link, a key): axe on
 * it as drawn, then with the document turned right to left (`dir="rtl"`, `lang="fa"`) in
 * place, since drawing it again would post again. Restores the page's own direction.
 */
export async function seriousAsDrawnBothWays(page: Page): Promise<Record<'ltr' | 'rtl', string[]>> {
  const ltr = await seriousViolations(page);
  const before = await page.evaluate(() => ({ dir: document.documentElement.dir, lang: document.documentElement.lang }));
  await page.evaluate(() => {
    document.documentElement.dir = 'rtl';
    document.documentElement.lang = 'fa';
  });
  const rtl = await seriousViolations(page);
  await page.evaluate((b) => {
    document.documentElement.dir = b.dir;
    document.documentElement.lang = b.lang;
  }, before);
  return { ltr, rtl };
}

/**
 * Opens `pathname` left to right and right to left (Persian), checks axe finds nothing serious
 * in either, and takes a screenshot of each: `<name>.png` and `<name>-rtl.png`.
 */
export async function bothDirections(page: Page, origin: string, pathname: string, name: string): Promise<Record<'ltr' | 'rtl', string[]>> {
  const out = { ltr: [] as string[], rtl: [] as string[] };
  for (const [dir, lang] of [
    ['ltr', 'en'],
    ['rtl', 'fa'],
  ] as const) {
    const sep = pathname.includes('?') ? '&' : '?';
    await page.goto(`${origin}${pathname}${sep}lang=${lang}`, { waitUntil: 'networkidle0' });
    expect(await page.$eval('html', (h) => h.getAttribute('dir'))).toBe(dir);
    out[dir] = await seriousViolations(page);
    await screenshot(page, dir === 'ltr' ? name : `${name}-rtl`);
  }
  await page.goto(`${origin}${pathname}${pathname.includes('?') ? '&' : '?'}lang=en`, { waitUntil: 'networkidle0' });
  return out;
}

/** The viewport as the person sees it (a full-page capture of a right-to-left page is drawn shifted by Chromium). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

/** Fills a form field found by its label's text and types `value`. */
export async function fill(page: Page, label: string, value: string): Promise<void> {
  const field = await page.waitForSelector(
    `::-p-xpath(//label[contains(normalize-space(.), ${JSON.stringify(label)})]//input | //label[contains(normalize-space(.), ${JSON.stringify(label)})]//select)`,
  );
  if (!field) throw new Error(`no field labelled ${label}`);
  await field.click({ count: 3 });
  await field.type(value);
}

/** Clicks the button whose text is `text` and waits for the page it leads to. */
export async function press(page: Page, text: string): Promise<void> {
  const button = await page.waitForSelector(`::-p-xpath(//button[normalize-space(.)=${JSON.stringify(text)}])`);
  if (!button) throw new Error(`no button ${text}`);
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), button.click()]);
}
