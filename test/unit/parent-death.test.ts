import { spawn } from 'node:child_process';
import { tiedToThisProcess } from '../../src/platform/parent-death';
import { processAlive as alive } from '../../src/platform/process-alive';

/**
 * A child started through tiedToThisProcess ends with the process that started it, even when
 * that process is killed outright (SIGKILL: no exit hook, no signal handler runs). The
 * benchmarks start their engines and simulators this way, `npm start` its dev server.
 */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** A parent process that starts a long sleep (tied or not), prints the sleep's pid, and waits. */
function parentOf(tied: boolean): Promise<{ parent: number; child: number }> {
  const tie = require.resolve('../../src/platform/parent-death');
  const script = [
    `const { spawn } = require('node:child_process');`,
    `const { tiedToThisProcess } = require(${JSON.stringify(tie)});`,
    `const c = ${tied} ? tiedToThisProcess('sleep', ['30']) : { command: 'sleep', args: ['30'] };`,
    `const child = spawn(c.command, c.args, { stdio: 'ignore', detached: true });`,
    `child.unref();`,
    `setTimeout(() => console.log(child.pid), 200);`,
    `setInterval(() => {}, 1000);`,
  ].join('\n');
  const parent = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    parent.stdout.once('data', (d: Buffer) => resolve({ parent: parent.pid!, child: Number(d.toString().trim()) }));
    parent.once('exit', (code) => reject(new Error(`the parent exited with ${code} before starting its child`)));
  });
}

const linux = process.platform === 'linux' ? describe : describe.skip;

linux('tiedToThisProcess', () => {
  it('runs the command through setpriv with a parent-death signal, as the command itself', () => {
    const { command, args } = tiedToThisProcess('sleep', ['1']);
    expect(command).toMatch(/\/setpriv$/);
    expect(args).toEqual(['--pdeathsig', 'TERM', '--', 'sleep', '1']);
  });

  it('ends the child when its parent is killed outright, which an untied child outlives', async () => {
    const tied = await parentOf(true);
    const untied = await parentOf(false);
    try {
      expect(alive(tied.child) && alive(untied.child)).toBe(true);
      process.kill(tied.parent, 'SIGKILL');
      process.kill(untied.parent, 'SIGKILL');
      expect(await until(() => !alive(tied.child), 5_000)).toBe(true);
      expect(alive(untied.child)).toBe(true);
    } finally {
      for (const pid of [tied.child, untied.child]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 30_000);
});
