import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * Chromium for the browser tests: $PUPPETEER_EXECUTABLE_PATH, else $CHROMIUM_PATH, else
 * Debian's /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). Without
 * it a test fails, saying so; it never skips, and no browser is downloaded. Screenshots
 * (PNG) go to $SCREENSHOT_DIR, default <os tmpdir>/booking-engine-docs-screenshots.
 */
export const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH || process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR || path.join(os.tmpdir(), 'booking-engine-docs-screenshots');

/** Launches headless Chromium (and makes the screenshot directory). */
export async function launchBrowser(what: string): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: ${what} needs Debian's chromium package (apt-get install -y chromium; .ci/run installs it), ` +
        'or PUPPETEER_EXECUTABLE_PATH / CHROMIUM_PATH pointing at a Chromium binary. No browser is downloaded.',
    );
  }
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 60_000,
    // Root in CI needs --no-sandbox; a small /dev/shm in containers needs the other.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
}
