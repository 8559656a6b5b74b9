import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { EnginePGlite } from '../../src/db/pglite';

/**
 * What the embedded database survives (docs/operations.md): every commit is written to the
 * operating system as it commits, so a process killed outright (SIGKILL, no shutdown) loses
 * nothing it had committed, and the next process to open the directory recovers it. A power
 * cut is another matter (PGlite never flushes to disk) that no test on one machine can show.
 */
const ROOT = path.resolve(__dirname, '../..');

/** A process that commits one row at a time in `dataDir` and prints each row's id once its commit returned. */
function committer(dataDir: string) {
  const script = `
    const { EnginePGlite } = require('./src/db/pglite');
    // Gone with the test: its stdout closed, the process ends.
    process.stdout.on('error', () => process.exit(1));
    (async () => {
      const pg = new EnginePGlite(${JSON.stringify(dataDir)});
      await pg.exec('create table if not exists rows (id int primary key)');
      for (let id = 1; ; id++) {
        await pg.query('insert into rows (id) values ($1)', [id]);
        process.stdout.write(id + '\\n');
        // A turn of the event loop, where a closed pipe's error can arrive.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();`;
  return spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
}

let dataDir: string;
let child: ChildProcess | undefined;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-killed-'));
});
afterAll(() => {
  // A test that failed before its kill leaves no committer behind.
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('keeps every commit of a process killed outright in the middle of its writes', async () => {
  const committing = committer(dataDir);
  child = committing;
  const exited = new Promise((resolve) => committing.once('exit', resolve));
  let lastCommitted = 0;
  for await (const line of readline.createInterface({ input: committing.stdout! })) {
    lastCommitted = Number(line);
    // Killed while it is writing the next rows, some of them half done.
    if (lastCommitted >= 300) {
      committing.kill('SIGKILL');
      break;
    }
  }
  await exited;
  expect(committing.signalCode).toBe('SIGKILL');

  const pg = new EnginePGlite(dataDir);
  try {
    const { rows } = await pg.query<{ n: number; top: number }>('select count(*)::int as n, max(id) as top from rows');
    // Every row whose commit was told, and nothing but whole commits after it (ids 1..top, no gap).
    expect(rows[0]!.top).toBeGreaterThanOrEqual(lastCommitted);
    expect(rows[0]!.n).toBe(rows[0]!.top);
  } finally {
    await pg.close();
  }
}, 60_000);
