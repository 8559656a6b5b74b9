import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer } from '../../src/temporal/dev-server';

/**
 * A dev server that dies while it starts is reported with what it wrote to stderr: the start
 * (a Go panic says why first, then a long stack) as well as the end; or, when it wrote
 * nothing there, the end of its stdout.
 */
async function exitOf(script: string): Promise<Error> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-server-exit-'));
  const cli = path.join(dir, 'temporal');
  fs.writeFileSync(cli, `#!/bin/sh\n${script}`);
  fs.chmodSync(cli, 0o755);
  try {
    return (await startDevServer({ cli, port: 0, uiPort: null, namespace: 'default', log: () => undefined }).then(
      () => null,
      (e: Error) => e,
    ))!;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

it("reports a dev server that exits while starting with its stderr's first lines and its last", async () => {
  const err = await exitOf(
    'echo "panic: listen tcp 127.0.0.1:7234: bind: address already in use" >&2\n' +
      'i=0; while [ $i -lt 300 ]; do echo "\tgo.uber.org/dig.paramList.BuildList frame $i" >&2; i=$((i+1)); done\necho "main.main() the end" >&2\nexit 2\n',
  );
  expect(err.message).toMatch(/^temporal dev server exited with 2: panic: listen tcp 127\.0\.0\.1:7234: bind: address already in use/);
  expect(err.message).toMatch(/…\n[\s\S]*main\.main\(\) the end$/);
  expect(err.message.length).toBeLessThan(7000);
}, 30_000);

it('reports one that exits saying nothing on stderr with the end of its stdout, or that it said nothing', async () => {
  expect((await exitOf('echo "CLI 1.5.1"\necho "shutting down: interrupted"\nexit 1\n')).message).toBe(
    'temporal dev server exited with 1: nothing on stderr; stdout ended: CLI 1.5.1\nshutting down: interrupted',
  );
  expect((await exitOf('exit 1\n')).message).toBe('temporal dev server exited with 1: nothing on stderr or stdout');
}, 30_000);
