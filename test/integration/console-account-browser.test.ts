import type { Browser, Page } from 'puppeteer-core';
import { listen, type RunningServer } from '../../src/platform/listen';
import { launchBrowser } from '../support/browser';
import { adminClient, call, type PartnerCredentials } from '../support/clients';
import { bothDirections, fill, press, screenshot, seriousAsDrawnBothWays, watchedPage } from '../support/console';
import { startReceiver } from '../support/receiver';
import { type TestStack, useStack } from '../support/stack';
import { waitFor } from '../support/wait';

/**
 * The agency console's account pages in Debian's Chromium: an owner invites a finance user
 * through the console, who sees only what finance may and downloads the statement and an
 * invoice; the owner grants a sub-agency credit and manages connections and webhooks. Every
 * page passes axe in both reading directions and nothing leaves the engine.
 */

let stack: TestStack;
useStack((s) => (stack = s));

let server: RunningServer;
let browser: Browser;
let agency: PartnerCredentials;
const PASSWORD = 'a long passphrase for the console';
const month = () => new Date().toISOString().slice(0, 7);

beforeAll(async () => {
  server = await listen(stack.app.fetch, 0, '127.0.0.1');
  browser = await launchBrowser('the agency console account journeys');
  agency = await adminClient(stack).createPartner({ name: 'Zagros Travel', credit_limit: '500000', topup: '2000000' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const key = () => ({ 'x-api-key': agency.api_key, 'x-api-secret': agency.api_secret });

/** Opens a one-time link, sets the password and signs in with it. */
async function enter(page: Page, link: string, email: string): Promise<void> {
  await page.goto(link.startsWith('http') ? link : `${server.url}${link}`, { waitUntil: 'networkidle0' });
  await fill(page, 'New password', PASSWORD);
  await press(page, 'Set password');
  await fill(page, 'E-mail', email);
  await fill(page, 'Password', PASSWORD);
  await press(page, 'Sign in');
  expect(new URL(page.url()).pathname).toBe('/console/');
}

/** What the browser gets for a link of the page, with its session: status, type, file name and the body's first bytes. */
async function download(page: Page, selector: string) {
  const href = await page.$eval(selector, (a) => (a as HTMLAnchorElement).href);
  return page.evaluate(async (url) => {
    const res = await fetch(url);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      disposition: res.headers.get('content-disposition') ?? '',
      head: new TextDecoder().decode(bytes.slice(0, 200)),
    };
  }, href);
}

const navLabels = (page: Page) => page.$$eval('nav a', (as) => as.map((a) => a.textContent));

let owner: Watched['page'];
type Watched = Awaited<ReturnType<typeof watchedPage>>;
let ownerProblems: string[];
let financeLink = '';

describe('the agency console’s account pages', () => {
  it('lets an owner invite a user with a role, who signs in and sees only what the role allows', async () => {
    // The agency's first owner, invited through the API with the agency's key.
    const made = await call(stack.app, 'POST', '/api/partners/users/', key(), { name: 'Parisa', email: 'parisa@zagros.example', role: 'owner' });
    const link = await call(stack.app, 'POST', `/api/partners/users/${made.body.data.id}/invitation/`, key(), {});
    const watched = await watchedPage(browser, server.url);
    owner = watched.page;
    ownerProblems = watched.problems;
    await enter(owner, link.body.data.url, 'parisa@zagros.example');
    expect(await navLabels(owner)).toEqual(
      expect.arrayContaining(['Wallet and statement', 'Invoices', 'Users and roles', 'API connections and webhooks', 'Webhooks', 'Sub-agencies']),
    );

    await owner.goto(`${server.url}/console/users`, { waitUntil: 'networkidle0' });
    await fill(owner, 'Name', 'Dariush');
    await fill(owner, 'E-mail', 'dariush@zagros.example');
    await owner.select('#new-role', 'finance');
    await press(owner, 'Add and invite');
    expect(await owner.$eval('[role=status]', (e) => e.textContent)).toMatch(/shown only now/);
    financeLink = await owner.$eval('input[data-link=invitation]', (i) => (i as HTMLInputElement).value);
    expect(financeLink).toMatch(new RegExp(`^${server.url}/console/set-password#token=`));
    expect(await owner.$$eval('tbody th', (ths) => ths.map((t) => t.textContent))).toEqual(expect.arrayContaining(['Parisa', 'Dariush']));
    await screenshot(owner, 'agency-users-invited');
    expect(await seriousAsDrawnBothWays(owner)).toEqual({ ltr: [], rtl: [] });
    // The link is shown once: the list again does not carry it.
    expect(await bothDirections(owner, server.url, '/console/users', 'agency-users')).toEqual({ ltr: [], rtl: [] });
    expect(await owner.$('input[data-link]')).toBeNull();

    await owner.goto(`${server.url}/console/`, { waitUntil: 'networkidle0' });
    await press(owner, 'Sign out');
    // The new user, in a page of their own.
    const { page, problems } = await watchedPage(browser, server.url);
    await enter(page, financeLink, 'dariush@zagros.example');
    const labels = await navLabels(page);
    expect(labels).toEqual(expect.arrayContaining(['Dashboard', 'Wallet and statement', 'Invoices']));
    for (const lacking of ['Users and roles', 'API connections and webhooks', 'Webhooks', 'Sub-agencies']) expect(labels).not.toContain(lacking);
    for (const path of ['/console/users', '/console/connections', '/console/webhooks', '/console/agencies']) {
      const res = await page.goto(`${server.url}${path}`, { waitUntil: 'networkidle0' });
      expect({ path, status: res?.status() }).toEqual({ path, status: 403 });
      expect(await page.$eval('[role=alert]', (e) => e.textContent)).toBe('Your role does not allow this.');
    }
    expect(await bothDirections(page, server.url, '/console/users', 'agency-forbidden')).toEqual({ ltr: [], rtl: [] });
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('lets finance download the statement for a period as CSV and PDF, and the month’s invoice', async () => {
    // A paid order, made with the agency's key, so the month has an invoice.
    const basket = await call(stack.app, 'POST', '/api/products/basket/items/', key(), { product: 1, quantity: 1, variant: 1 });
    expect(basket.status).toBe(201);
    const order = await call(stack.app, 'POST', '/api/products/checkout/', key(), { payment_method: 'PARTNER_CREDIT' });
    const paid = await call(stack.app, 'POST', '/api/partners/pay/', key(), {
      product_order_id: order.body.data.id,
      idempotency_key: `console-${order.body.data.id}`,
    });
    expect(paid.status).toBe(200);

    const { page, problems } = await watchedPage(browser, server.url);
    await page.goto(`${server.url}/console/sign-in`, { waitUntil: 'networkidle0' });
    await fill(page, 'E-mail', 'dariush@zagros.example');
    await fill(page, 'Password', PASSWORD);
    await press(page, 'Sign in');
    await page.goto(`${server.url}/console/wallet`, { waitUntil: 'networkidle0' });
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Wallet and statement');
    expect(await page.$eval('[data-figure=credit]', (e) => e.textContent)).toBe('500000.00 IRT');
    // The period's movements: the top-up and the payment.
    expect(await page.$$eval('tbody tr', (rows) => rows.length)).toBeGreaterThanOrEqual(2);
    const csv = await download(page, 'a[href^="/console/wallet/statement.csv"]');
    expect(csv).toMatchObject({ status: 200, type: expect.stringContaining('text/csv'), disposition: expect.stringContaining('attachment') });
    expect(csv.head).toMatch(/^date,entry_id,type,description/);
    expect(csv.head).toContain('opening_balance');
    const pdf = await download(page, 'a[href^="/console/wallet/statement.pdf"]');
    expect(pdf).toMatchObject({ status: 200, type: 'application/pdf', disposition: expect.stringContaining('attachment') });
    expect(pdf.head.startsWith('%PDF-')).toBe(true);
    expect(await bothDirections(page, server.url, '/console/wallet', 'agency-wallet')).toEqual({ ltr: [], rtl: [] });

    await page.goto(`${server.url}/console/invoices?month=${month()}`, { waitUntil: 'networkidle0' });
    const invoice = await download(page, `a[href^="/console/invoices/${order.body.data.id}/invoice"]`);
    expect(invoice).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(invoice.head.startsWith('%PDF-')).toBe(true);
    const summary = await download(page, 'a[href^="/console/invoices/summary.pdf"]');
    expect(summary).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(await bothDirections(page, server.url, `/console/invoices?month=${month()}`, 'agency-invoices')).toEqual({ ltr: [], rtl: [] });
    // A statement asked for a period the API refuses says why, as the API's 400.
    const bad = await page.goto(`${server.url}/console/wallet/statement.csv?from=2026-01-01&to=2025-01-01`, { waitUntil: 'networkidle0' });
    expect(bad?.status()).toBe(400);
    expect(await page.$eval('[role=alert]', (e) => e.textContent)).toMatch(/to|from/);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('lets an owner grant a sub-agency credit, set its markups, and manage connections and webhooks', async () => {
    const child = await call(stack.app, 'POST', '/api/partners/agencies/', key(), { name: 'Shiraz Travel' });
    expect(child.status).toBe(201);
    await owner.bringToFront();
    await owner.goto(`${server.url}/console/sign-in`, { waitUntil: 'networkidle0' });
    await fill(owner, 'E-mail', 'parisa@zagros.example');
    await fill(owner, 'Password', PASSWORD);
    await press(owner, 'Sign in');

    await owner.goto(`${server.url}/console/agencies`, { waitUntil: 'networkidle0' });
    await fill(owner, 'Credit limit of Shiraz Travel', '150000');
    await press(owner, 'Set credit limit');
    expect(new URL(owner.url()).pathname).toBe('/console/agencies');
    expect(await owner.$eval('[data-figure=available]', (e) => e.textContent)).toBe('150000.00 IRT');
    const childWallet = await call(stack.app, 'GET', '/api/partners/wallet/', {
      'x-api-key': child.body.data.api_key,
      'x-api-secret': child.body.data.api_secret,
    });
    expect(childWallet.body.data).toMatchObject({ credit_limit: '150000.00', available: '150000.00' });
    // Taking some back gives it back to the parent.
    await fill(owner, 'Credit limit of Shiraz Travel', '100000');
    await press(owner, 'Set credit limit');
    expect(await owner.$eval('[data-figure=available]', (e) => e.textContent)).toBe('100000.00 IRT');
    expect(await bothDirections(owner, server.url, '/console/agencies', 'agency-sub-agencies')).toEqual({ ltr: [], rtl: [] });

    await owner.goto(`${server.url}/console/agencies/${child.body.data.partner_id}`, { waitUntil: 'networkidle0' });
    await fill(owner, 'Hotels: Percent', '5');
    await press(owner, 'Save markups');
    const markups = await call(stack.app, 'GET', `/api/partners/agencies/${child.body.data.partner_id}/markups/`, key());
    expect(markups.body.data).toEqual([expect.objectContaining({ service: 'hotels', percent: '5' })]);
    // Bad input: the API's message, with its status.
    await fill(owner, 'Flights: Percent', 'lots');
    await press(owner, 'Save markups');
    expect(await owner.$eval('[role=alert]', (e) => e.textContent)).toMatch(/percent/);
    expect(await bothDirections(owner, server.url, `/console/agencies/${child.body.data.partner_id}`, 'agency-markups')).toEqual({ ltr: [], rtl: [] });

    await owner.goto(`${server.url}/console/connections`, { waitUntil: 'networkidle0' });
    await fill(owner, 'Connection name', 'Booking website');
    await owner.click('input[name=rights][value=search]');
    await press(owner, 'Create connection');
    const secret = await owner.$eval('input[data-secret=api_secret]', (i) => (i as HTMLInputElement).value);
    const apiKey = await owner.$eval('input[data-secret=api_key]', (i) => (i as HTMLInputElement).value);
    expect(await seriousAsDrawnBothWays(owner)).toEqual({ ltr: [], rtl: [] });
    expect((await call(stack.app, 'GET', '/api/hotel/cities/', { 'x-api-key': apiKey, 'x-api-secret': secret })).status).toBe(200);
    await Promise.all([owner.waitForNavigation({ waitUntil: 'networkidle0' }), owner.click('button[aria-label="Revoke Booking website"]')]);
    expect((await call(stack.app, 'GET', '/api/hotel/cities/', { 'x-api-key': apiKey, 'x-api-secret': secret })).status).toBe(401);
    expect(await bothDirections(owner, server.url, '/console/connections', 'agency-connections')).toEqual({ ltr: [], rtl: [] });

    const receiver = await startReceiver();
    try {
      await owner.goto(`${server.url}/console/webhooks`, { waitUntil: 'networkidle0' });
      await fill(owner, 'Endpoint URL', receiver.url);
      await press(owner, 'Add endpoint');
      const signing = await owner.$eval('input[data-secret=secret]', (i) => (i as HTMLInputElement).value);
      expect(signing).toMatch(/^whsec_/);
      expect(await seriousAsDrawnBothWays(owner)).toEqual({ ltr: [], rtl: [] });
      receiver.setSecret(signing);
      // An order paid now is delivered to it; the page lists the delivery and sends it again.
      await call(stack.app, 'POST', '/api/products/basket/items/', key(), { product: 1, quantity: 1, variant: 1 });
      const order = await call(stack.app, 'POST', '/api/products/checkout/', key(), { payment_method: 'PARTNER_CREDIT' });
      await call(stack.app, 'POST', '/api/partners/pay/', key(), { product_order_id: order.body.data.id, idempotency_key: `hook-${order.body.data.id}` });
      await waitFor(() => receiver.accepted().length >= 1, 'the first delivery');
      const first = receiver.accepted().length;
      await waitFor(
        async () =>
          (await call(stack.app, 'GET', '/api/partners/webhooks/deliveries/', key())).body.data.results.some((d: { state: string }) => d.state === 'delivered'),
        'a delivery recorded as delivered',
      );
      await owner.goto(`${server.url}/console/webhooks`, { waitUntil: 'networkidle0' });
      expect(await owner.$$eval('tr[data-delivery] td:nth-of-type(2)', (tds) => tds.map((td) => td.textContent))).toContain('Delivered');
      await Promise.all([owner.waitForNavigation({ waitUntil: 'networkidle0' }), owner.click('tr[data-delivery] button')]);
      expect(await owner.$eval('[role=status] [data-redelivered]', (e) => e.textContent)).toMatch(/being sent again to 1 endpoint/);
      await waitFor(() => receiver.accepted().length > first, 'the redelivery');
      expect(new Set(receiver.received.map((x) => x.verified))).toEqual(new Set([true]));
    } finally {
      await receiver.close();
    }
    expect(await bothDirections(owner, server.url, '/console/webhooks', 'agency-webhooks')).toEqual({ ltr: [], rtl: [] });

    // At phone width, in both reading directions, nothing is wider than the screen (wide tables scroll in their own box).
    await owner.setViewport({ width: 375, height: 800 });
    for (const path of ['/console/wallet', '/console/invoices', '/console/users', '/console/connections', '/console/webhooks', '/console/agencies'])
      for (const lang of ['en', 'fa']) {
        await owner.goto(`${server.url}${path}?lang=${lang}`, { waitUntil: 'networkidle0' });
        expect({ path, lang, width: await owner.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ path, lang, width: 375 });
      }
    await screenshot(owner, 'agency-users-phone');
    expect(ownerProblems).toEqual([]);
  }, 150_000);
});
