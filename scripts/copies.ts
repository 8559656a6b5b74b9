/**
 * `npm run copies`: the copy detector (jscpd, configured in .jscpd.json: the engine's code
 * without tests, seed data, migrations and the generated client) lists every run of six or
 * more lines found alike, and this fails when there are more than MAX_COPIES of them
 * (docs/decisions/code-structure.md).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const MAX_COPIES = 3;
const REPORT = path.resolve('.tmp/jscpd/jscpd-report.json');

fs.rmSync(REPORT, { force: true });
execFileSync(path.resolve('node_modules/.bin/jscpd'), ['--config', '.jscpd.json', '--no-colors'], { stdio: 'inherit' });
const { duplicates } = JSON.parse(fs.readFileSync(REPORT, 'utf8')) as { duplicates: unknown[] };
if (duplicates.length > MAX_COPIES) {
  console.error(`${duplicates.length} runs of code alike, at most ${MAX_COPIES} allowed: factor the copies listed above into one place`);
  process.exit(1);
}
console.log(`${duplicates.length} runs of code alike (at most ${MAX_COPIES})`);
