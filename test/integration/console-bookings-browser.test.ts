import type { Browser, Page } from 'puppeteer-core';
import { listen, type RunningServer } from '../../src/platform/listen';
import { launchBrowser } from '../support/browser';
import { adminClient, call, type PartnerCredentials } from '../support/clients';
import { bothDirections, fill, press, screenshot, seriousViolations, watchedPage } from '../support/console';
import { contact, day, roomGuests } from '../support/fixtures';
import { type TestStack, useStack } from '../support/stack';

/**
 * The agency console's bookings pages in Debian's Chromium: an agent searches a hotel, checks
 * the rate, books it with the guest's names, pays once however often the form is sent, and
 * downloads the voucher; then cancels after seeing the quote and sees the refund. A flight is
 * searched, fare-checked, booked and paid the same way. The bookings
 * list's tabs, filters and CSV export; every page passes axe in both reading directions.
 */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });

let server: RunningServer;
let browser: Browser;
let agency: PartnerCredentials;
const PASSWORD = 'a long passphrase for the console';
const TEHRAN = '1';

beforeAll(async () => {
  server = await listen(stack.app.fetch, 0, '127.0.0.1');
  browser = await launchBrowser('the agency console bookings journeys');
  agency = await adminClient(stack).createPartner({ name: 'Alborz Travel', credit_limit: '0', topup: '500000000' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const owner = () => ({ 'x-api-key': agency.api_key, 'x-api-secret': agency.api_secret });
const wallet = async () => (await call(stack.app, 'GET', '/api/partners/wallet/', owner())).body.data as { balance: string };

/** An agent of the agency, signed in on a fresh page of the browser. */
async function signedInAgent(name: string, width = 1280): Promise<{ page: Page; problems: string[] }> {
  const email = `${name.toLowerCase()}@alborz.example`;
  const user = await call(stack.app, 'POST', '/api/partners/users/', owner(), { name, email, role: 'agent' });
  const link = await call(stack.app, 'POST', `/api/partners/users/${user.body.data.id}/invitation/`, owner(), {});
  const token = new URL(`http://x${link.body.data.url}`).hash.replace('#token=', '');
  expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: PASSWORD })).status).toBe(200);
  const watched = await watchedPage(browser, server.url, width);
  await watched.page.goto(`${server.url}/console/sign-in?lang=en`, { waitUntil: 'networkidle0' });
  await fill(watched.page, 'E-mail', email);
  await fill(watched.page, 'Password', PASSWORD);
  await press(watched.page, 'Sign in');
  expect(new URL(watched.page.url()).pathname).toBe('/console/');
  return watched;
}

const textOf = (page: Page, selector: string) => page.$eval(selector, (e) => (e.textContent ?? '').trim());
const searchPath = (extra = '') => `/console/hotels?city_id=${TEHRAN}&check_in=${day(30)}&check_out=${day(32)}&rooms=1&adults=1&nationality=IR${extra}`;

/** From a page of search results, checks the rate of the first refundable room of the first hotel. */
async function checkFirstRefundableRate(page: Page): Promise<void> {
  const row = await page.waitForSelector('::-p-xpath((//tr[td[2][normalize-space(.)="Yes"]])[1]//button)');
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), row!.click()]);
}

/** The check button of the first refundable rate, in either language. */
const FIRST_REFUNDABLE_RATE = '::-p-xpath((//tr[td[2][normalize-space(.)="بله" or normalize-space(.)="Yes"]])[1]//button)';

/**
 * A page only a form's post reaches, right to left: the form's page opened in Persian, its
 * button (found by `button`, whatever its words) pressed, and axe run on what it answers.
 */
async function rtlAfterPost(page: Page, formPage: string, button: string): Promise<string[]> {
  await page.goto(`${server.url}${formPage}${formPage.includes('?') ? '&' : '?'}lang=fa`, { waitUntil: 'networkidle0' });
  const pressed = await page.waitForSelector(button);
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), pressed!.click()]);
  expect(await page.$eval('html', (h) => h.getAttribute('dir'))).toBe('rtl');
  const found = await seriousViolations(page);
  await page.goto(`${server.url}/console/?lang=en`, { waitUntil: 'networkidle0' });
  return found;
}

/** Fills the booking form's one guest and the contact. */
async function fillGuest(page: Page): Promise<void> {
  await fill(page, 'First name', roomGuests[0]![0]!.first_name);
  await fill(page, 'Last name', roomGuests[0]![0]!.last_name);
  await fill(page, 'National id', roomGuests[0]![0]!.national_id);
  await fill(page, 'Phone number', contact.phone_number);
  await fill(page, 'E-mail', contact.email);
}

/** What a link of the page answers when fetched by the page itself: status, type, disposition and the first bytes. */
const download = (page: Page, href: string) =>
  page.evaluate(async (url) => {
    const res = await fetch(url);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      disposition: res.headers.get('content-disposition'),
      head: String.fromCharCode(...bytes.slice(0, 5)),
      text: new TextDecoder().decode(bytes),
    };
  }, href);

let bookingPath = '';

describe('the agency console’s bookings', () => {
  it('searches, checks, books and pays a hotel once however often the form is sent, then downloads its voucher', async () => {
    const { page, problems } = await signedInAgent('Dariush');
    expect(await page.$$eval('nav a', (as) => as.map((a) => a.textContent))).toEqual(expect.arrayContaining(['Hotels', 'Bookings']));

    await page.goto(`${server.url}/console/hotels`, { waitUntil: 'networkidle0' });
    await page.select('select[name=city_id]', TEHRAN);
    await page.select('select[name=adults]', '1');
    await press(page, 'Search');
    expect(await page.$$('article.hotel')).not.toHaveLength(0);
    await screenshot(page, 'agency-hotels');

    await checkFirstRefundableRate(page);
    expect(await textOf(page, 'h1')).toBe('Book a room');
    const price = await textOf(page, '[data-figure=rate-price]');
    expect(price).toMatch(/^\d+\.\d\d IRT$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'agency-hotel-rate');
    const checked = page.url();
    expect(await rtlAfterPost(page, searchPath(), FIRST_REFUNDABLE_RATE)).toEqual([]);
    // Back on the rate's page, in English, to book it.
    await page.goto(`${server.url}${searchPath()}`, { waitUntil: 'networkidle0' });
    await checkFirstRefundableRate(page);
    expect(page.url()).toBe(checked);
    await fillGuest(page);
    await press(page, 'Book');

    expect(new URL(page.url()).pathname).toMatch(/^\/console\/bookings\/hotel\/\d+$/);
    bookingPath = new URL(page.url()).pathname;
    expect(await textOf(page, '[role=status]')).toMatch(/order is made/);
    expect(await textOf(page, '[data-figure=status]')).toBe('Pending payment');

    // The form sent twice at once (a double click): both carry its idempotency key, the wallet pays once.
    const before = await wallet();
    const statuses = await page.evaluate(async () => {
      const form = document.querySelector<HTMLFormElement>('form[action$="/pay"]')!;
      const body = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
      return Promise.all([1, 2].map(() => fetch(form.action, { method: 'POST', body }).then((r) => r.status)));
    });
    expect(statuses).toEqual([200, 200]);
    const after = await wallet();
    expect(Number(before.balance) - Number(after.balance)).toBeCloseTo(Number(price.split(' ')[0]), 2);

    await page.goto(`${server.url}${bookingPath}`, { waitUntil: 'networkidle0' });
    expect(await textOf(page, '[data-figure=status]')).toBe('Confirmed');
    expect(await page.$$eval('.timeline li', (lis) => lis.map((li) => li.getAttribute('data-event')))).toEqual(['order.processing', 'order.completed']);

    const voucher = await page.$eval('a[href*="/documents/voucher"]', (a) => a.getAttribute('href')!);
    const file = await download(page, voucher);
    expect(file).toMatchObject({ status: 200, type: 'application/pdf', head: '%PDF-' });
    expect(file.disposition).toMatch(/voucher/);
    await screenshot(page, 'agency-booking');

    expect(await bothDirections(page, server.url, bookingPath, 'agency-booking')).toEqual({ ltr: [], rtl: [] });
    expect(await bothDirections(page, server.url, searchPath(), 'agency-hotels')).toEqual({ ltr: [], rtl: [] });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('cancels after showing the quote, then shows the refund', async () => {
    const { page, problems } = await signedInAgent('Mina');
    // Mina is an agent of the same agency: she may act on Dariush's booking unless her role says own bookings only.
    await page.goto(`${server.url}${bookingPath}`, { waitUntil: 'networkidle0' });
    const before = await wallet();
    await press(page, 'See the cancellation terms');
    expect(await textOf(page, 'h1')).toMatch(/^Cancel booking \d+\?$/);
    const refund = (await textOf(page, '[data-figure=quote-refund]')).split(' ')[0]!;
    expect(Number(refund)).toBeGreaterThan(0);
    // Seeing the quote changes nothing.
    expect(await wallet()).toEqual(before);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'agency-cancel-quote');
    expect(await rtlAfterPost(page, bookingPath, 'form[action$="/cancel-quote"] button')).toEqual([]);
    await page.goto(`${server.url}${bookingPath}`, { waitUntil: 'networkidle0' });
    await press(page, 'See the cancellation terms');

    await press(page, 'Confirm the cancellation');
    expect(new URL(page.url()).pathname).toBe(bookingPath);
    expect(await textOf(page, '[data-figure=status]')).toBe('Cancelled');
    expect(await textOf(page, '[data-figure=refund]')).toContain(`Cancelled. ${refund} IRT was credited back to the wallet`);
    expect(Number((await wallet()).balance) - Number(before.balance)).toBeCloseTo(Number(refund), 2);
    expect(await page.$$eval('.timeline li', (lis) => lis.map((li) => li.getAttribute('data-event')))).toContain('order.cancelled');
    // Nothing left to cancel or pay.
    expect(await page.$('form[action$="/cancel-quote"]')).toBeNull();
    expect(await page.$('form[action$="/pay"]')).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a changed price and asks to accept it, and says when a room can no longer be booked', async () => {
    const { page, problems } = await signedInAgent('Kaveh');
    await page.goto(`${server.url}${searchPath('&scenario=price_changed')}`, { waitUntil: 'networkidle0' });
    await checkFirstRefundableRate(page);
    expect(await textOf(page, '[role=alert]')).toMatch(/^The price changed: it was \d+\.\d\d IRT, it is now \d+\.\d\d IRT\./);
    expect(await page.$eval('input[name=accept]', (i) => (i as HTMLInputElement).required)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await rtlAfterPost(page, searchPath('&scenario=price_changed'), FIRST_REFUNDABLE_RATE)).toEqual([]);

    // The rate's room taken by someone else before the agent books it.
    await page.goto(`${server.url}${searchPath()}`, { waitUntil: 'networkidle0' });
    const rateKey = await page.$eval('form[action="/console/hotels/rate"] input[name=rate_key]', (i) => (i as HTMLInputElement).value);
    const hotelId = Number(await page.$eval('article.hotel h3', (h) => h.id.replace('hotel-', '')));
    for (const room_code of ['STD', 'DLX', 'FAM', 'STE']) {
      await fetch(`${stack.simulatorUrl}/_control/hotels/allotment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hotel_id: hotelId, room_code, count: 0 }),
      });
    }
    await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('form[action="/console/hotels/rate"] button')]);
    if ((await textOf(page, 'h1')) === 'Book a room' && !(await page.$('[role=alert]'))) {
      await fillGuest(page);
      await press(page, 'Book');
    }
    expect(await textOf(page, '[role=alert]')).toMatch(/can no longer be booked/);
    expect(rateKey).not.toBe('');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('searches, checks the fare, books and pays a flight', async () => {
    const { page, problems } = await signedInAgent('Babak');
    await page.goto(`${server.url}/console/flights?origin=THR&destination=MHD&date=${day(30)}&adults=1&cabin=economy`, { waitUntil: 'networkidle0' });
    expect(await page.$$('table.flights tbody tr')).not.toHaveLength(0);
    await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('form[action="/console/flights/fare"] button')]);
    expect(await textOf(page, 'h1')).toBe('Book a flight');
    expect(await seriousViolations(page)).toEqual([]);
    const fareChecked = page.url();
    const flightSearch = `/console/flights?origin=THR&destination=MHD&date=${day(30)}&adults=1&cabin=economy`;
    expect(await rtlAfterPost(page, flightSearch, 'form[action="/console/flights/fare"] button')).toEqual([]);
    await page.goto(`${server.url}${flightSearch}`, { waitUntil: 'networkidle0' });
    await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('form[action="/console/flights/fare"] button')]);
    expect(page.url()).toBe(fareChecked);
    const price = await textOf(page, '[data-figure=fare-price]');
    await fill(page, 'First name', 'Reza');
    await fill(page, 'Last name', 'Karimi');
    await page.$eval('input[name=t0_birth]', (i) => ((i as HTMLInputElement).value = '1985-04-12'));
    await fill(page, 'National id', '0012345679');
    await fill(page, 'Phone number', contact.phone_number);
    await fill(page, 'E-mail', contact.email);
    await press(page, 'Book');
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/bookings\/flight\/\d+$/);
    const flightPath = new URL(page.url()).pathname;
    expect(await textOf(page, '[data-figure=status]')).toBe('Pending payment');
    await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('form[action$="/pay"] button')]);
    expect(await textOf(page, '[role=status]')).toMatch(/^Paid/);
    expect(await textOf(page, '[data-figure=status]')).toBe('Confirmed');
    expect(await page.$eval('dl.facts', (d) => d.textContent)).toContain(price);
    expect(await bothDirections(page, server.url, `/console/flights?origin=THR&destination=MHD&date=${day(30)}`, 'agency-flights')).toEqual({
      ltr: [],
      rtl: [],
    });
    expect(await bothDirections(page, server.url, flightPath, 'agency-flight-booking')).toEqual({ ltr: [], rtl: [] });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists bookings in tabs with filters, exports what they select, and fits a phone', async () => {
    const { page, problems } = await signedInAgent('Parisa');
    await page.goto(`${server.url}/console/bookings`, { waitUntil: 'networkidle0' });
    expect(await textOf(page, '.tabs a[aria-current=page]')).toBe('All');
    expect(await page.$$('table.bookings tbody tr')).toHaveLength(2);

    await Promise.all([
      page.waitForNavigation({ waitUntil: 'networkidle0' }),
      page.click('::-p-xpath(//nav[@class="tabs"]//a[normalize-space(.)="Cancelled"])'),
    ]);
    expect(await textOf(page, '.tabs a[aria-current=page]')).toBe('Cancelled');
    expect(await page.$$eval('table.bookings tbody th a', (as) => as.map((a) => a.getAttribute('href')))).toEqual([bookingPath]);
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'networkidle0' }),
      page.click('::-p-xpath(//nav[@class="tabs"]//a[normalize-space(.)="Upcoming"])'),
    ]);
    expect(await page.$$eval('table.bookings tbody td:nth-of-type(1)', (tds) => tds.map((td) => td.textContent))).toEqual(['Flight']);

    await page.goto(`${server.url}/console/bookings?status=cancelled&from=${day(29)}&to=${day(31)}`, { waitUntil: 'networkidle0' });
    expect(await page.$$('table.bookings tbody tr')).toHaveLength(1);
    const csv = await download(page, await page.$eval('a[href^="/console/bookings/export"]', (a) => a.getAttribute('href')!));
    expect(csv).toMatchObject({ status: 200, type: 'text/csv; charset=utf-8' });
    const lines = csv.text.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${bookingPath.split('/').pop()},hotel,cancelled,`));

    expect(await bothDirections(page, server.url, '/console/bookings', 'agency-bookings')).toEqual({ ltr: [], rtl: [] });
    expect(await bothDirections(page, server.url, '/console/bookings?tab=cancelled', 'agency-bookings-cancelled')).toEqual({ ltr: [], rtl: [] });
    expect(problems).toEqual([]);
    const cookies = await page.cookies();
    await page.close();

    const phone = await watchedPage(browser, server.url, 375);
    await phone.page.setCookie(...cookies);
    // Every page an agent works in, and a booking's, at phone width in both reading directions.
    for (const path of ['/console/', '/console/hotels', '/console/flights', '/console/security', bookingPath, '/console/bookings'])
      for (const lang of ['en', 'fa']) {
        await phone.page.goto(`${server.url}${path}?lang=${lang}`, { waitUntil: 'networkidle0' });
        expect(new URL(phone.page.url()).pathname).toBe(path);
        expect({ path, lang, width: await phone.page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ path, lang, width: 375 });
      }
    await screenshot(phone.page, 'agency-bookings-phone');
    expect(phone.problems).toEqual([]);
    await phone.page.close();
  });
});
