import { Secret, TOTP } from 'otpauth';
import type { Browser } from 'puppeteer-core';
import { listen, type RunningServer } from '../../src/platform/listen';
import { launchBrowser } from '../support/browser';
import { adminClient, call, type PartnerCredentials } from '../support/clients';
import { bothDirections, fill, press, screenshot, seriousAsDrawnBothWays, watchedPage } from '../support/console';
import { type TestStack, useStack } from '../support/stack';

/**
 * The agency console in Debian's Chromium: a new user opens their invitation, sets a
 * password, signs in and sees what their role allows; every page passes axe in both reading
 * directions and nothing leaves the engine.
 */

let stack: TestStack;
useStack((s) => (stack = s));

let server: RunningServer;
let browser: Browser;
let agency: PartnerCredentials;
const PASSWORD = 'a long passphrase for the console';

beforeAll(async () => {
  server = await listen(stack.app.fetch, 0, '127.0.0.1');
  browser = await launchBrowser('the agency console journeys');
  agency = await adminClient(stack).createPartner({ name: 'Caspian Travel', credit_limit: '500000', topup: '2000000' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const owner = () => ({ 'x-api-key': agency.api_key, 'x-api-secret': agency.api_secret });

/** A user of the agency with their invitation link. */
async function invited(name: string, role: string): Promise<{ email: string; link: string }> {
  const email = `${name.toLowerCase()}@caspian.example`;
  const user = await call(stack.app, 'POST', '/api/partners/users/', owner(), { name, email, role });
  const link = await call(stack.app, 'POST', `/api/partners/users/${user.body.data.id}/invitation/`, owner(), {});
  return { email, link: link.body.data.url };
}

describe('the agency console', () => {
  it('takes an invited user from their link to the dashboard their role allows, accessible both ways', async () => {
    const { email, link } = await invited('Shirin', 'finance');
    const { page, problems } = await watchedPage(browser, server.url);

    await page.goto(`${server.url}${link}`, { waitUntil: 'networkidle0' });
    // The token left the address bar once the page read it.
    expect(page.url()).toBe(`${server.url}/console/set-password`);
    await fill(page, 'New password', PASSWORD);
    await press(page, 'Set password');
    expect(page.url()).toContain('/console/sign-in');
    expect(await page.$eval('[role=status]', (e) => e.textContent)).toMatch(/password is set/);

    await fill(page, 'E-mail', email);
    await fill(page, 'Password', 'not the right one at all');
    await press(page, 'Sign in');
    expect(await page.$eval('[role=alert]', (e) => e.textContent)).toMatch(/Wrong e-mail or password/);
    await fill(page, 'Password', PASSWORD);
    await press(page, 'Sign in');
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Dashboard');
    expect(await page.$eval('[data-figure=balance]', (e) => e.textContent)).toBe('2000000.00 IRT');
    // Finance sees the wallet, not the bookings list (that needs `view`, which finance also has) — and never users.
    expect(await page.$$eval('nav a', (as) => as.map((a) => a.textContent))).not.toContain('Users and roles');
    await screenshot(page, 'agency-dashboard');

    const cookies = await page.cookies();
    expect(cookies.find((c) => c.name === 'tbe_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    expect(await bothDirections(page, server.url, '/console/', 'agency-dashboard')).toEqual({ ltr: [], rtl: [] });
    await press(page, 'Sign out');
    expect(page.url()).toContain('/console/sign-in');
    expect(await bothDirections(page, server.url, '/console/sign-in', 'agency-sign-in')).toEqual({ ltr: [], rtl: [] });
    expect(await bothDirections(page, server.url, '/console/set-password', 'agency-set-password')).toEqual({ ltr: [], rtl: [] });
    // An address that names no page says so, as a page.
    const missing = await page.goto(`${server.url}/console/no-such-page`, { waitUntil: 'networkidle0' });
    expect(missing?.status()).toBe(404);
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('There is no such page');
    // Signed out, the dashboard sends the browser to sign in.
    await page.goto(`${server.url}/console/`, { waitUntil: 'networkidle0' });
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lets a user turn two-factor sign-in on with an app, and then asks for its code', async () => {
    const { email, link } = await invited('Dara', 'agent');
    const token = link.split('#token=')[1];
    expect((await call(stack.app, 'POST', '/api/partners/password/', {}, { token, password: PASSWORD })).status).toBe(200);
    const { page, problems } = await watchedPage(browser, server.url);
    await page.goto(`${server.url}/console/sign-in`, { waitUntil: 'networkidle0' });
    await fill(page, 'E-mail', email);
    await fill(page, 'Password', PASSWORD);
    await press(page, 'Sign in');
    await page.goto(`${server.url}/console/security`, { waitUntil: 'networkidle0' });
    expect(await page.$eval('[data-two-factor]', (e) => e.getAttribute('data-two-factor'))).toBe('off');
    await press(page, 'Set up two-factor sign-in');
    const key = await page.$eval('[data-two-factor-key]', (e) => e.textContent!);
    expect(await page.$('figure.qr svg')).not.toBeNull();
    await screenshot(page, 'agency-two-factor-setup');
    expect(await seriousAsDrawnBothWays(page)).toEqual({ ltr: [], rtl: [] });
    const app = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    await fill(page, 'Six-digit code', app.generate({ timestamp: Date.now() - 30_000 }));
    await press(page, 'Turn on');
    expect(await page.$eval('[data-two-factor]', (e) => e.getAttribute('data-two-factor'))).toBe('on');
    expect(await bothDirections(page, server.url, '/console/security', 'agency-two-factor')).toEqual({ ltr: [], rtl: [] });

    await press(page, 'Sign out');
    await fill(page, 'E-mail', email);
    await fill(page, 'Password', PASSWORD);
    await press(page, 'Sign in');
    expect(await page.$eval('[role=alert]', (e) => e.textContent)).toMatch(/six-digit code/);
    await fill(page, 'Password', PASSWORD);
    await fill(page, 'Code from your authenticator app', app.generate());
    await press(page, 'Sign in');
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('works at phone width, in both reading directions', async () => {
    const { page, problems } = await watchedPage(browser, server.url, 375);
    for (const lang of ['en', 'fa']) {
      await page.goto(`${server.url}/console/sign-in?lang=${lang}`, { waitUntil: 'networkidle0' });
      // Nothing wider than the screen, on either side.
      expect({ lang, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ lang, width: 375 });
    }
    await screenshot(page, 'agency-sign-in-phone');
    expect(problems).toEqual([]);
    await page.close();
  });
});
