import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Browser, Page } from 'puppeteer-core';
import { resolveTemporalCli } from '../../src/temporal/cli';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { OrderId, OrderStatus, PartnerId, Service, Stage } from '../../workflows/search-attributes';
import { launchBrowser, SCREENSHOT_DIR } from '../support/browser';
import { freePort } from '../support/global-setup';
import { waitFor } from '../support/wait';

/**
 * What docs/operations.md tells operators to type into Temporal Web ("Parked payments in
 * Temporal Web"), in a real browser: each of its List Filters, opened as the `?query=` URL it says to
 * bookmark, must list in the Workflows page exactly the workflows Temporal's own list API
 * answers for it, and fewer than all of them (a page that ignored the filter would show
 * all). Its example URL is opened as written, on this test's port. A filter saved as a
 * Saved View, and a `Stage` column added in "Configure Workflows Table", must both be there
 * again after a reload, as docs/operations.md says.
 *
 * The dev server here is `npm start`'s, with its UI (the suite's shared one is headless),
 * and the workflows are started on a task queue no worker polls, with the search attributes
 * the engine's workflows set: they stay as started (running, or closed by the test).
 * Chromium as in docs-browser.test.ts (test/support/browser.ts): Debian's, never
 * downloaded; without it the test fails.
 */

const OPERATIONS = fs.readFileSync(path.join(__dirname, '../../docs/operations.md'), 'utf8');

/** docs/operations.md's List Filters (the code block of "Parked payments in Temporal Web", comments cut) and its example URL. */
function documentedFilters(): { filters: string[]; exampleUrl: URL } {
  const at = OPERATIONS.indexOf('## Parked payments in Temporal Web');
  if (at < 0) throw new Error('docs/operations.md has no section "Parked payments in Temporal Web"');
  const section = OPERATIONS.slice(at);
  const block = /```\n([\s\S]*?)```/.exec(section)![1]!;
  const filters = block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  const example = /`(http:\/\/127\.0\.0\.1:8233\/namespaces\/default\/workflows\?query=[^`]+)`/.exec(section)![1]!;
  return { filters, exampleUrl: new URL(example) };
}

let server: DevServer;
let client: Client;
let connection: Connection;
let browser: Browser;
const run = crypto.randomBytes(3).toString('hex');
const ids: string[] = [];

/** A workflow as the engine's are found: its type, its id, its search attributes; closed unless `running`. */
async function workflow(name: string, attributes: SearchAttributePair[], { running = true, type = 'payOrder' } = {}) {
  const workflowId = `tw-${name}-${run}`;
  const handle = await client.workflow.start(type, { taskQueue: `nobody-polls-${run}`, workflowId, args: [], typedSearchAttributes: attributes });
  if (!running) await handle.terminate('closed by the test, as a run that ended');
  ids.push(workflowId);
}

beforeAll(async () => {
  browser = await launchBrowser('the Temporal Web browser test');
  server = await startDevServer({
    cli: await resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, () => undefined),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
    log: () => undefined,
  });
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: 'default' });
  const order = (id: number) => [
    { key: PartnerId, value: 7 },
    { key: OrderId, value: id },
  ];
  await workflow('parked-flight', [
    ...order(42),
    { key: Service, value: 'flight' },
    { key: Stage, value: 'needs_attention' },
    { key: OrderStatus, value: 'processing' },
  ]);
  await workflow('parked-hotel', [
    ...order(43),
    { key: Service, value: 'hotel' },
    { key: Stage, value: 'needs_attention' },
    { key: OrderStatus, value: 'processing' },
  ]);
  await workflow('parked-then-closed', [...order(44), { key: Service, value: 'flight' }, { key: Stage, value: 'needs_attention' }], { running: false });
  await workflow('failed-payable', [...order(42), { key: Service, value: 'flight' }, { key: Stage, value: 'failed' }, { key: OrderStatus, value: 'pending' }], {
    running: false,
  });
  await workflow('failed-for-good', [...order(45), { key: Service, value: 'hotel' }, { key: Stage, value: 'failed' }, { key: OrderStatus, value: 'failed' }], {
    running: false,
  });
  await workflow('done', [...order(46), { key: Service, value: 'tour' }, { key: Stage, value: 'done' }, { key: OrderStatus, value: 'completed' }], {
    running: false,
  });
  await workflow('schedule-change', [...order(47), { key: Service, value: 'flight' }, { key: Stage, value: 'waiting' }], { type: 'scheduleChange' });
  // Visibility is written after the start: wait until the list API sees every one.
  await waitFor(async () => (await listed('ExecutionStatus = "Running" OR ExecutionStatus = "Terminated"')).length === ids.length, 'every workflow visible');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await connection?.close();
  await server?.stop();
});

/** This test's workflows the list API answers for a List Filter, sorted. */
async function listed(query: string): Promise<string[]> {
  const found: string[] = [];
  for await (const w of client.workflow.list({ query })) if (ids.includes(w.workflowId)) found.push(w.workflowId);
  return found.sort();
}

/** This test's workflows the Workflows page lists, once it lists `expected` (or the wait ends). Expressions run in the page (the project's types have no DOM). */
async function shown(page: Page, expected: string[]): Promise<string[]> {
  await page.waitForFunction(`${JSON.stringify(expected)}.every((id) => document.body.innerText.includes(id))`, { timeout: 30_000 }).catch(() => undefined);
  const text = (await page.evaluate('document.body.innerText')) as string;
  return ids.filter((id) => text.includes(id)).sort();
}

describe('Temporal Web, as docs/operations.md tells operators to use it', () => {
  const { filters, exampleUrl } = documentedFilters();

  it('docs/operations.md gives List Filters and an example URL to check', () => {
    expect(filters.length).toBeGreaterThanOrEqual(5);
    expect(filters).toContain('OrderId = 42');
    expect(exampleUrl.searchParams.get('query')).toBeTruthy();
  });

  it.each(filters)(
    'the Workflows page for `%s` lists what Temporal lists for it, and not every workflow',
    async (filter) => {
      const expected = await listed(filter);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(ids.length);
      const page = await browser.newPage();
      try {
        await page.setViewport({ width: 1400, height: 900 });
        const url = `${server.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(filter)}`;
        const res = await page.goto(url, { waitUntil: 'networkidle0', timeout: 60_000 });
        expect(res?.status()).toBe(200);
        expect(await shown(page, expected)).toEqual(expected);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `temporal-web-${filters.indexOf(filter) + 1}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    },
    90_000,
  );

  it('a filter saved as a Saved View is kept in the browser: after a reload, one click lists its workflows again', async () => {
    const filter = filters[0]!;
    const expected = await listed(filter);
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1400, height: 900 });
      await page.goto(`${server.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(filter)}`, { waitUntil: 'networkidle0', timeout: 60_000 });
      expect(await shown(page, expected)).toEqual(expected);
      await page.locator('::-p-text(Save as New)').click();
      await page.locator('input[placeholder="Name of view"]').fill('Parked payments');
      await page.locator('::-p-xpath(//button[normalize-space(.)="Save"])').click();
      await page.waitForFunction(`/Custom Views\\s*1 \\/ 20/.test(document.body.innerText)`, { timeout: 30_000 });

      // Another visit, without the filter in the URL: every workflow, until the saved view is clicked.
      await page.goto(`${server.uiUrl}/namespaces/default/workflows`, { waitUntil: 'networkidle0', timeout: 60_000 });
      await page.locator('::-p-text(All Workflows)').click();
      expect(await shown(page, ids)).toEqual([...ids].sort());
      await page.locator('::-p-text(Parked payments)').click();
      await page.waitForFunction(`!document.body.innerText.includes(${JSON.stringify(ids.find((id) => !expected.includes(id)))})`, { timeout: 30_000 });
      expect(await shown(page, expected)).toEqual(expected);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'temporal-web-saved-view.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 90_000);

  it("Configure Workflows Table offers the engine's search attributes; a column added shows each workflow's value, and stays after a reload", async () => {
    const url = `${server.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent('OrderId = 42')}`;
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1400, height: 900 });
      await page.goto(url, { waitUntil: 'networkidle0', timeout: 60_000 });
      const expected = await listed('OrderId = 42');
      expect(await shown(page, expected)).toEqual(expected);
      const text = () => page.evaluate('document.body.innerText') as Promise<string>;
      expect(await text()).not.toContain('needs_attention');
      // The cog under the table, left of its page arrows.
      await page.locator('::-p-xpath(//button[@aria-label="Previous"]/preceding::button[1])').click();
      await page.locator('::-p-text(Custom Search Attributes)').wait();
      const offered = (await text()).split('Custom Search Attributes')[1]!;
      for (const name of ['Stage', 'OrderStatus', 'Service', 'PartnerId', 'OrderId']) expect(offered).toContain(name);
      await page.locator('button[aria-label="Add Stage column"]').click();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'temporal-web-columns.png'), fullPage: true });

      await page.goto(url, { waitUntil: 'networkidle0', timeout: 60_000 });
      await page.waitForFunction(`document.body.innerText.includes('needs_attention')`, { timeout: 30_000 });
      expect(await shown(page, expected)).toEqual(expected);
    } finally {
      await page.close();
    }
  }, 90_000);

  it("docs/operations.md's example URL, opened as written on this server's UI port, lists the parked workflows", async () => {
    const expected = await listed(exampleUrl.searchParams.get('query')!);
    expect(expected).toEqual(expect.arrayContaining([`tw-parked-flight-${run}`, `tw-parked-hotel-${run}`]));
    const page = await browser.newPage();
    try {
      const res = await page.goto(`${server.uiUrl}${exampleUrl.pathname}${exampleUrl.search}`, { waitUntil: 'networkidle0', timeout: 60_000 });
      expect(res?.status()).toBe(200);
      expect(await shown(page, expected)).toEqual(expected);
    } finally {
      await page.close();
    }
  }, 90_000);
});
