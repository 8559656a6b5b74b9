import type { Browser, Page } from 'puppeteer-core';
import { listen, type RunningServer } from '../../src/platform/listen';
import { launchBrowser } from '../support/browser';
import { call, newPartner } from '../support/clients';
import { bothDirections, fill, press, screenshot, seriousAsDrawnBothWays, watchedPage } from '../support/console';
import { day } from '../support/fixtures';
import { untilParked } from '../support/parked';
import { ADMIN_TOKEN, type TestStack, useStack } from '../support/stack';
import { payLeftOpen } from '../support/unanswered';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

/**
 * The operator console in Debian's Chromium, on the admin port: an operator signs in with
 * their token, decides a parked payment with a reason the audit log shows, and sets a markup
 * the next search is priced with; every page passes axe in both reading directions and
 * nothing leaves the engine.
 */

/**
 * The bars of the page's charts whose name, figure and bar cross (the name must end before
 * the figure begins, both above the bar, all inside the chart and the bar inside its track),
 * and the sizes their text is drawn at on the screen.
 */
async function chartsAsDrawn(page: Page): Promise<{ crossing: string[]; textSizes: number[] }> {
  return page.$$eval('svg.chart', (charts) => {
    const crossing: string[] = [];
    const sizes = new Set<number>();
    for (const chart of charts) {
      const box = chart.getBoundingClientRect();
      for (const g of chart.querySelectorAll('g')) {
        // (A bar of nothing has no box of its own: its track, the bar's whole length, is where it is drawn.)
        const [label, figure, track] = ['.chart-label', '.chart-figure', '.chart-track'].map((c) => g.querySelector(c)!.getBoundingClientRect());
        const bar = (g.querySelector('.chart-bar') as SVGGraphicsElement).getBBox();
        const fits = label!.right <= figure!.left && Math.max(label!.bottom, figure!.bottom) <= track!.top + 0.5 && bar.x + bar.width <= track!.width + 0.5;
        // (A glyph may stand a pixel beyond the point its text is placed at.)
        const inside = [label!, figure!, track!].every((r) => r.left >= box.left - 1.5 && r.right <= box.right + 1.5);
        if (!fits || !inside) crossing.push(g.textContent ?? '');
      }
      for (const t of chart.querySelectorAll('text')) sizes.add(Math.round(parseFloat(getComputedStyle(t).fontSize) * (chart.getScreenCTM()?.a ?? 1)));
    }
    return { crossing, textSizes: [...sizes] };
  });
}

let stack: TestStack;
// The payment that parks is left unanswered on purpose (payLeftOpen).
useStack((s) => (stack = s), { payWaitMs: 15_000 });

const TEMPORAL_WEB = 'http://127.0.0.1:8233';
let server: RunningServer;
let browser: Browser;
let token: string;

beforeAll(async () => {
  server = await listen(stack.adminWith({ temporalUiOrigin: TEMPORAL_WEB }).fetch, 0, '127.0.0.1');
  browser = await launchBrowser('the operator console journeys');
  const added = await call(stack.admin, 'POST', '/admin/operators', { authorization: `Bearer ${ADMIN_TOKEN}` }, { name: 'roya' });
  token = added.body.token;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A new partner's product order whose payment the supplier never answers, parked for an operator. */
async function parkedPayment() {
  const { api, creds } = await newPartner(stack, '0', '10000000');
  const order = await api.productOrder();
  await payLeftOpen(stack, creds, { productOrderId: order.id, scenario: 'supplier_down' });
  const parked = await untilParked(stack, order.id, { workflow: 'payment', boundMs: 60_000 });
  return { creds, order, parked };
}

async function signedInPage() {
  const watched = await watchedPage(browser, server.url);
  await watched.page.goto(`${server.url}/console/sign-in`, { waitUntil: 'networkidle0' });
  await fill(watched.page, 'Operator token', token);
  await press(watched.page, 'Sign in');
  expect(new URL(watched.page.url()).pathname).toBe('/console/');
  return watched;
}

describe('the operator console', () => {
  it('decides a parked payment with a reason, linked to Temporal Web, and the audit log shows it', async () => {
    const { order, parked } = await parkedPayment();

    const { page, problems } = await watchedPage(browser, server.url);
    expect(await bothDirections(page, server.url, '/console/sign-in', 'operator-sign-in')).toEqual({ ltr: [], rtl: [] });
    await fill(page, 'Operator token', `tbo_${'x'.repeat(43)}`);
    await press(page, 'Sign in');
    expect(await page.$eval('[role=alert]', (e) => e.textContent)).toMatch(/unknown or revoked/);
    await fill(page, 'Operator token', token);
    await press(page, 'Sign in');
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect((await page.cookies()).find((c) => c.name === 'tbe_operator_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Needs attention');
    const link = await page.$eval(`a[href="/console/queue/${order.id}"]`, (a) => a.closest('tr')!.querySelector('a[data-temporal-web]')!.getAttribute('href'));
    expect(link).toBe(
      `${TEMPORAL_WEB}/namespaces/${stack.client.options.namespace}/workflows?query=${encodeURIComponent(`WorkflowId="${parked.payment.workflow_id}"`)}`,
    );
    expect(await bothDirections(page, server.url, '/console/', 'operator-queue')).toEqual({ ltr: [], rtl: [] });

    await page.goto(`${server.url}/console/queue/${order.id}`, { waitUntil: 'networkidle0' });
    expect(await bothDirections(page, server.url, `/console/queue/${order.id}`, 'operator-decide')).toEqual({ ltr: [], rtl: [] });
    // No reason: the browser asks for one before anything is sent.
    await page.click('button[value=compensate]');
    expect(await page.$eval('input[name=reason]', (i) => (i as HTMLInputElement).validity.valueMissing)).toBe(true);
    await fill(page, 'Reason', 'the supplier says nothing was issued');
    await press(page, 'Compensate');
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(await page.$eval('[role=status]', (e) => e.textContent)).toMatch(new RegExp(`Order ${order.id}: Compensate`));
    await screenshot(page, 'operator-queue-decided');
    const after = (await call(stack.admin, 'GET', `/admin/orders/${order.id}`, { authorization: `Bearer ${ADMIN_TOKEN}` })).body;
    // Decided as the signed-in operator, not as the console or the bootstrap token.
    expect(after.payment.failure).toMatch(/compensated by operator roya: the supplier says nothing was issued/);
    expect(after.order.status).toBe('pending');

    await page.goto(`${server.url}/console/audit`, { waitUntil: 'networkidle0' });
    await fill(page, 'Target', `orders/${order.id}`);
    await press(page, 'Filter');
    const rows = await page.$$eval('tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(rows).toEqual([['roya', 'orders/:id/compensate', `orders/${order.id}/compensate`, 'the supplier says nothing was issued']]);
    expect(await bothDirections(page, server.url, `/console/audit?target=orders/${order.id}`, 'operator-audit')).toEqual({ ltr: [], rtl: [] });
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('sets a markup, and the next search through the API is priced with it', async () => {
    const plain = await newPartner(stack, '0', '1000000000');
    const marked = await newPartner(stack, '0', '1000000000');
    // A partner that bought on credit: the reports draw its exposure as a bar.
    const lent = await newPartner(stack, '50000000', '0');
    const bought = await lent.api.productOrder();
    const paid = await lent.api.post('/api/partners/pay/', { product_order_id: bought.id, idempotency_key: `lent-${bought.id}` });
    expect(paid.status).toBe(200);
    const { page, problems } = await signedInPage();

    await page.goto(`${server.url}/console/markups`, { waitUntil: 'networkidle0' });
    await page.select('select[name=service]', 'hotels');
    await fill(page, 'Partner number', String(marked.creds.partner_id));
    await fill(page, 'Percent', '10');
    await fill(page, 'Fixed amount', '5');
    await press(page, 'Set a markup');
    expect(await page.$eval('[role=status]', (e) => e.textContent)).toBe('Saved.');
    const shown = await page.$$eval('tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].slice(0, 6).map((c) => c.textContent)));
    expect(shown).toContainEqual([expect.any(String), 'hotels', String(marked.creds.partner_id), 'any', '10', '5.00']);
    expect(await bothDirections(page, server.url, '/console/markups', 'operator-markups')).toEqual({ ltr: [], rtl: [] });

    const body = { check_in: day(45), check_out: day(47), nationality_id: 'IR', rooms: [{ adult_count: 2 }], city_id: 1 };
    const [a, b] = [await plain.api.post('/api/hotel/search_hotels/', body), await marked.api.post('/api/hotel/search_hotels/', body)];
    const minor = (decimal: string) => Math.round(Number(decimal) * 100);
    const net = minor(a.body.data.results[0].rates[0].total_price);
    expect(minor(b.body.data.results[0].rates[0].total_price)).toBe(net + Math.round(net / 10) + 500);

    // The other pages, each accessible both ways.
    expect(await bothDirections(page, server.url, '/console/rates', 'operator-rates')).toEqual({ ltr: [], rtl: [] });
    expect(await bothDirections(page, server.url, '/console/partners', 'operator-partners')).toEqual({ ltr: [], rtl: [] });
    // A partner created here: its keys are drawn once, on the answer to the form.
    await page.type('form[method=post][action="/console/partners"] input[name=name]', 'Alborz Tours');
    await press(page, 'Create a partner');
    expect(await page.$eval('#created-heading', (h) => h.textContent)).toBe('Partner created');
    expect(await seriousAsDrawnBothWays(page)).toEqual({ ltr: [], rtl: [] });
    expect(await bothDirections(page, server.url, `/console/partners/${marked.creds.partner_id}`, 'operator-partner')).toEqual({ ltr: [], rtl: [] });

    expect(await bothDirections(page, server.url, '/console/reports', 'operator-reports')).toEqual({ ltr: [], rtl: [] });
    // Exposure by partner: a bar per partner in the chart, the same figures in the table.
    const names = await page.$$eval('#exposure-heading ~ svg text.chart-label', (ts) => ts.map((x) => x.textContent));
    const rowsShown = await page.$$eval('#exposure-heading ~ .table-wrap tbody th', (ths) => ths.map((x) => x.textContent));
    expect(names).toEqual(rowsShown);
    expect(rowsShown.length).toBeGreaterThanOrEqual(2);
    // Its bar is the longest drawn (the others used no credit), and the only one with length.
    const lengths = await page.$$eval('#exposure-heading ~ svg .chart-bar', (rs) => rs.map((r) => (r as SVGGraphicsElement).getBBox().width));
    expect(lengths.filter((w) => w > 0)).toEqual([Math.max(...lengths)]);
    expect(lengths[names.indexOf(`Test Agency (${lent.creds.partner_id})`)]).toBe(Math.max(...lengths));
    // Each bar's name and figure share a line without crossing, over the bar, in either direction.
    // (English last: the language chosen stays with the session.)
    for (const lang of ['fa', 'en']) {
      await page.goto(`${server.url}/console/reports?lang=${lang}`, { waitUntil: 'networkidle0' });
      expect({ lang, ...(await chartsAsDrawn(page)) }).toEqual({ lang, crossing: [], textSizes: [14] });
    }

    // A top-up from the partner's page, sent twice with the key its form carries, is made once.
    await page.goto(`${server.url}/console/partners/${marked.creds.partner_id}`, { waitUntil: 'networkidle0' });
    await fill(page, 'Amount', '250');
    const form = await page.$eval('form[action$="/topup"]', (f) => Object.fromEntries(new FormData(f as HTMLFormElement)) as Record<string, string>);
    await press(page, 'Top up');
    expect(await page.$eval('[data-figure=balance]', (e) => e.textContent)).toBe('1000000250.00 IRT');
    const again = await page.evaluate(async (f) => (await fetch(location.pathname + '/topup', { method: 'POST', body: new URLSearchParams(f) })).status, form);
    expect(again).toBe(200);
    await page.goto(`${server.url}/console/partners/${marked.creds.partner_id}`, { waitUntil: 'networkidle0' });
    expect(await page.$eval('[data-figure=balance]', (e) => e.textContent)).toBe('1000000250.00 IRT');

    // Credit alerts: set, and a threshold out of range refused with the API's reason.
    await fill(page, 'Thresholds', '50, 25');
    await press(page, 'Set alerts');
    expect(await page.$eval('input[name=thresholds]', (i) => (i as HTMLInputElement).value)).toBe('50, 25');
    await fill(page, 'Thresholds', '150');
    await press(page, 'Set alerts');
    expect(await page.$eval('[role=alert]', (e) => e.textContent)).toMatch(/thresholds: each must be a whole percent/);

    // Disabled and enabled again from its page.
    await press(page, 'Disable');
    expect(await page.$eval('[data-figure=status]', (e) => e.textContent)).toBe('disabled');
    expect((await marked.api.post('/api/hotel/search_hotels/', body)).status).toBe(401);
    await press(page, 'Enable');
    expect(await page.$eval('[data-figure=status]', (e) => e.textContent)).toBe('active');

    await press(page, 'Sign out');
    expect(page.url()).toContain('/console/sign-in');
    await page.goto(`${server.url}/console/markups`, { waitUntil: 'networkidle0' });
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows any partner’s webhooks and deliveries, and sends an event again, audited', async () => {
    const partner = await newPartner(stack, '0', '10000000');
    const key = { 'x-api-key': partner.creds.api_key, 'x-api-secret': partner.creds.api_secret };
    const receiver = await startReceiver();
    try {
      const made = await call(stack.app, 'POST', '/api/partners/webhooks/', key, { url: receiver.url });
      expect(made.status).toBe(201);
      receiver.setSecret(made.body.data.secret);
      await call(stack.app, 'POST', '/api/products/basket/items/', key, { product: 1, quantity: 1, variant: 1 });
      const order = await call(stack.app, 'POST', '/api/products/checkout/', key, { payment_method: 'PARTNER_CREDIT' });
      await call(stack.app, 'POST', '/api/partners/pay/', key, { product_order_id: order.body.data.id, idempotency_key: `op-hook-${order.body.data.id}` });
      await waitFor(() => receiver.accepted().length >= 1, 'the first delivery');
      const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
      await waitFor(
        async () =>
          (await call(stack.admin, 'GET', `/admin/partners/${partner.creds.partner_id}/webhooks/deliveries`, bearer)).body.deliveries.some(
            (d: { state: string }) => d.state === 'delivered',
          ),
        'a delivery recorded as delivered',
      );
      const { page, problems } = await signedInPage();
      await page.goto(`${server.url}/console/partners/${partner.creds.partner_id}`, { waitUntil: 'networkidle0' });
      await Promise.all([
        page.waitForNavigation({ waitUntil: 'networkidle0' }),
        page.click(`a[href="/console/partners/${partner.creds.partner_id}/webhooks"]`),
      ]);
      expect(await page.$$eval('tr[data-endpoint] bdi', (b) => b.map((x) => x.textContent))).toEqual([receiver.url]);
      expect(await page.$$eval('tr[data-delivery] [data-state]', (tds) => tds.map((td) => td.textContent))).toContain('delivered');
      await screenshot(page, 'operator-webhooks');
      const first = receiver.accepted().length;
      await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('tr[data-delivery] button')]);
      expect(await page.$eval('[role=status]', (e) => e.textContent)).toBe('Saved.');
      await waitFor(() => receiver.accepted().length > first, 'the redelivery');
      const audit = (await call(stack.admin, 'GET', '/admin/audit?operator=roya', bearer)).body.results;
      expect(audit.map((a: { target: string }) => a.target)).toEqual(expect.arrayContaining([expect.stringMatching(/^events\/\d+\/redeliver$/)]));
      expect(await bothDirections(page, server.url, `/console/partners/${partner.creds.partner_id}/webhooks`, 'operator-webhooks')).toEqual({
        ltr: [],
        rtl: [],
      });
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await receiver.close();
    }
  });

  it('works at phone width, in both reading directions', async () => {
    const { page, problems } = await signedInPage();
    // A partner with a parked payment: its page and the payment's have something in them.
    const { creds, order } = await parkedPayment();
    await page.setViewport({ width: 375, height: 800 });
    const pages = ['/console/sign-in', '/console/', '/console/partners', '/console/rates', '/console/markups', '/console/reports', '/console/audit'];
    pages.push(`/console/queue/${order.id}`, `/console/partners/${creds.partner_id}`, `/console/partners/${creds.partner_id}/webhooks`);
    for (const path of pages) {
      // (English last: the language chosen stays with the session.)
      for (const lang of ['fa', 'en']) {
        await page.goto(`${server.url}${path}?lang=${lang}`, { waitUntil: 'networkidle0' });
        expect({ path, lang, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ path, lang, width: 375 });
        // The reports' charts are not shrunk to fit: their text is as large as on a desk, and still uncrossed.
        if (path === '/console/reports') expect({ lang, ...(await chartsAsDrawn(page)) }).toEqual({ lang, crossing: [], textSizes: [14] });
      }
    }
    // The pictures for the guide and a look: markups and reports, right to left, at phone width.
    for (const [path, name] of [
      ['/console/markups', 'operator-markups-phone'],
      ['/console/reports', 'operator-reports-phone'],
    ]) {
      await page.goto(`${server.url}${path}?lang=fa`, { waitUntil: 'networkidle0' });
      await screenshot(page, name!);
    }
    await page.goto(`${server.url}/console/?lang=en`, { waitUntil: 'networkidle0' });
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
