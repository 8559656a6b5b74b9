import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { resolveTemporalCli } from '../../src/temporal/cli';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { WORKFLOW_BUNDLE_OPTIONS } from '../../worker/worker';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts the real Temporal dev server (unless TEMPORAL_ADDRESS points at one) and bundles
 * the workflows once; test files connect to it with their own task queues.
 */
export default async function globalSetup(): Promise<void> {
  // Request logs of hundreds of test requests drown the test output; warnings and errors stay.
  process.env.LOG_LEVEL ??= 'warn';
  const log = (msg: string) => process.stderr.write(`[test setup] ${msg}\n`);
  if (!process.env.TEMPORAL_ADDRESS) {
    const cli = await resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, log);
    const server: DevServer = await startDevServer({
      cli,
      port: await freePort(),
      uiPort: null,
      namespace: 'default',
      log,
      // As `npm start`'s dev server has them (a stack with eagerStart starts workflows eagerly; every worker gets its activities eagerly).
      dynamicConfig: ['system.enableEagerWorkflowStart=true', 'system.enableActivityEagerExecution=true'],
    });
    (globalThis as { __temporalDevServer?: DevServer }).__temporalDevServer = server;
    process.env.TEST_TEMPORAL_ADDRESS = server.address;
  } else {
    process.env.TEST_TEMPORAL_ADDRESS = process.env.TEMPORAL_ADDRESS;
  }
  const { code } = await bundleWorkflowCode({
    ...WORKFLOW_BUNDLE_OPTIONS,
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-engine-test-'));
  const bundle = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundle, code);
  process.env.TEST_WORKFLOW_BUNDLE = bundle;
}
