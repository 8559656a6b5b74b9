/**
 * npm run --silent bench:profile -- <file.cpuprofile> [--from µs --to µs] [--top N]
 *
 * The top of a V8 CPU profile (`node --cpu-prof`), by self time and by where the time is
 * spent (the engine's code, PGlite, Temporal's SDK, HTTP, validation, …), optionally cut to
 * a window of the monotonic clock (bench:pay --window prints the payments' window). Prints
 * JSON: what docs/performance.md quotes.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { round } from './common';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: opts, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { from: { type: 'string' }, to: { type: 'string' }, top: { type: 'string', default: '25' } },
  allowPositionals: true,
});
const file = positionals[0];
if (!file) throw new Error('usage: bench:profile <file.cpuprofile> [--from µs --to µs] [--top N]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const from = opts.from ? Number(opts.from) : -Infinity;
const to = opts.to ? Number(opts.to) : Infinity;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));

/** Where a frame's code lives, in a few words. */
function area(url: string, name: string): string {
  if (!url) return name === '(garbage collector)' ? 'gc' : name === '(program)' || name === '(idle)' ? name : 'native';
  if (url.includes('@electric-sql/pglite')) return 'pglite';
  if (url.includes('@temporalio')) return 'temporal-sdk';
  if (url.includes('/zod') || url.includes('@hono/zod')) return 'zod';
  if (url.includes('/hono/') || url.includes('@hono/node-server')) return 'hono';
  if (url.includes('drizzle-orm')) return 'drizzle';
  if (url.includes('pino')) return 'pino';
  if (url.includes('prom-client')) return 'prom-client';
  if (url.includes('undici') || url.startsWith('node:internal/deps/undici')) return 'undici';
  if (url.includes('node_modules')) return `other: ${url.split('node_modules/')[1]?.split('/')[0] ?? url}`;
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/workflows/')) return 'engine: workflows';
  if (url.includes('/activities/')) return 'engine: activities';
  if (url.includes('/src/suppliers/simulator/')) return 'engine: simulator';
  if (url.includes('/src/')) return `engine: ${url.split('/src/')[1]?.split('/')[0]}`;
  return url;
}

const self = new Map<number, number>();
let t = profile.startTime;
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i]!;
  if (t < from || t > to) continue;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + dt);
  total += dt;
}
const busy = [...self.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName !== '(idle)').reduce((a, [, v]) => a + v, 0);

const byFunction = new Map<string, number>();
const byArea = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|workflows|activities|worker)\//, '$1/')}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const a = area(url, functionName);
  byArea.set(a, (byArea.get(a) ?? 0) + us);
}
const top = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => ({ what: k, ms: round(us / 1000), share: round((us / busy) * 100, 1) }));

console.log(
  JSON.stringify(
    { window_ms: round(total / 1000), busy_ms: round(busy / 1000), by_area: top(byArea, 20), by_function: top(byFunction, Number(opts.top)) },
    null,
    1,
  ),
);
