/**
 * npm run bench:console -- [--visits N]
 *
 * The agency console's first visit on `npm start`, in Debian's Chromium (CHROMIUM_PATH or
 * /usr/bin/chromium): starts the engine as `npm start` does (its own ports and a fresh
 * DATA_DIR), then opens /console/sign-in N times, each in a new browser context with an
 * empty cache, and times it from navigation to DOMContentLoaded (which fires once the
 * page's deferred scripts have run: the page answers input from then on). Also the
 * JavaScript the page loads: each script's bytes, and gzip-compressed. Prints one JSON line
 * with the targets (interactive under 1 s, JavaScript at most 250 KB compressed) and
 * whether each is met.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import puppeteer from 'puppeteer-core';
import { args, freePort, round } from './common';

const opts = args({ visits: { type: 'string', default: '5' } });
const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH || process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const TARGETS = { interactive_ms: 1000, javascript_gzip_kb: 250 };

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-console-'));
  const ports = { PORT: await freePort(), ADMIN_PORT: await freePort(), TEMPORAL_DEV_PORT: await freePort(), TEMPORAL_UI_PORT: await freePort() };
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    WORKER_METRICS_PORT: '0',
    TEMPORAL_CORE_METRICS_PORT: String(await freePort()),
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  };
  const engine = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-4000));
  engine.stdout!.on('data', keep);
  engine.stderr!.on('data', keep);
  const origin = `http://127.0.0.1:${ports.PORT}`;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run'] });
  try {
    const t0 = Date.now();
    while (
      !(await fetch(`${origin}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      ))
    ) {
      if (engine.exitCode !== null) throw new Error(`npm start exited with ${engine.exitCode}:\n${log}`);
      if (Date.now() - t0 > 300_000) throw new Error(`npm start not healthy within 300 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const visits: number[] = [];
    let scripts: Array<{ url: string; bytes: number; gzip_bytes: number }> = [];
    for (let i = 0; i < Number(opts.visits); i++) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setCacheEnabled(false);
      await page.goto(`${origin}/console/sign-in`, { waitUntil: 'load' });
      const timing = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        return {
          interactive: nav.domContentLoadedEventEnd,
          scripts: performance
            .getEntriesByType('resource')
            .filter((r) => (r as PerformanceResourceTiming).initiatorType === 'script')
            .map((r) => r.name),
        };
      });
      visits.push(timing.interactive);
      if (i === 0) {
        scripts = await Promise.all(
          timing.scripts.map(async (url) => {
            const body = Buffer.from(await (await fetch(url)).arrayBuffer());
            return { url: new URL(url).pathname, bytes: body.length, gzip_bytes: zlib.gzipSync(body, { level: 9 }).length };
          }),
        );
      }
      await context.close();
    }
    const sorted = [...visits].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const gzipKb = scripts.reduce((s, x) => s + x.gzip_bytes, 0) / 1024;
    console.log(
      JSON.stringify({
        bench: 'console',
        page: '/console/sign-in',
        visits: visits.length,
        first_visit_interactive_ms: round(visits[0]!),
        median_interactive_ms: round(median),
        max_interactive_ms: round(sorted[sorted.length - 1]!),
        javascript: scripts,
        javascript_gzip_kb: round(gzipKb),
        targets: TARGETS,
        met: { interactive: sorted[sorted.length - 1]! < TARGETS.interactive_ms, javascript: gzipKb <= TARGETS.javascript_gzip_kb },
      }),
    );
  } finally {
    await browser.close();
    if (engine.exitCode === null) {
      const exited = new Promise((resolve) => engine.once('exit', resolve));
      process.kill(-engine.pid!, 'SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
