/**
 * `npm run build`: the engine compiled to JavaScript in dist/ (tsconfig.build.json), as
 * production runs it (`npm run api`, `npm run worker`, `npm run simulator`, the Dockerfile):
 *
 * - src/, workflows/, activities/ and worker/ compiled by tsc, with source maps;
 * - the database migrations copied beside the compiled database client, which reads them
 *   from its own directory at start-up;
 * - the workflows bundled once, from the compiled workflows/ and the workflow interceptors
 *   the worker names, into dist/workflow-bundle.js, which a compiled worker loads instead of
 *   bundling with webpack at start-up (worker/worker.ts, PREBUILT_WORKFLOW_BUNDLE).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

async function main() {
  const started = Date.now();
  fs.rmSync(DIST, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error(`tsc exited with ${tsc.status ?? tsc.signal}`);
  fs.cpSync(path.join(ROOT, 'src/db/migrations'), path.join(DIST, 'src/db/migrations'), { recursive: true });
  // The consoles' stylesheet and page script, served from beside the compiled code (htmx is read from node_modules).
  fs.cpSync(path.join(ROOT, 'src/console/assets'), path.join(DIST, 'src/console/assets'), { recursive: true });
  // The compiled worker names what to bundle and where the bundle goes: the same paths it runs with.
  const worker = (await import(path.join(DIST, 'worker/worker.js'))) as typeof import('../worker/worker');
  const { code } = await bundleWorkflowCode({
    ...worker.WORKFLOW_BUNDLE_OPTIONS,
    logger: { info() {}, warn: console.warn, error: console.error, debug() {}, trace() {}, log() {} },
  });
  fs.writeFileSync(worker.PREBUILT_WORKFLOW_BUNDLE, code);
  console.log(`built dist/ in ${Math.round((Date.now() - started) / 1000)} s (workflow bundle ${Math.round(code.length / 1024)} KiB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
