import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { processAlive as alive } from '../../src/platform/process-alive';
import { healthy, recorded, removeDataDirs, scratchDir, startEngine, stopEngines, until, type Engine } from '../support/engine-process';

/**
 * `npm start` in a child process (test/support/engine-process.ts): however the engine ends,
 * its dev server never outlives it, and the next start is never refused the port.
 */
const strays: number[] = []; // process ids a test started outside an engine, or must not leave behind

/** The dev server's pid, as the engine records it the moment it spawns it. */
const devServerPid = (engine: Engine) => until('the dev server spawned', engine, () => recorded(engine.dataDir).temporal);

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/** A process whose command line is that of a dev server on `dataDir`'s database (it only sleeps). */
function fakeDevServer(dataDir: string): ChildProcess {
  const child = spawn(
    process.execPath,
    ['-e', 'setInterval(() => {}, 1000)', '--', 'server', 'start-dev', '--db-filename', path.join(dataDir, 'temporal.db')],
    {
      stdio: 'ignore',
      detached: true,
    },
  );
  strays.push(child.pid!);
  return child;
}

afterEach(async () => {
  strays.push(...(await stopEngines()));
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

afterAll(removeDataDirs);

describe('npm start never leaves its Temporal dev server behind', () => {
  it('stops the dev server it is still starting on SIGTERM, and exits 0 with its port free', async () => {
    const engine = await startEngine();
    const server = await devServerPid(engine);
    engine.child.kill('SIGTERM'); // the server is still booting: nothing answers yet
    expect(await engine.exited).toEqual({ code: 0, signal: null });
    expect(alive(server)).toBe(false);
    expect(await portFree(engine.ports.TEMPORAL_DEV_PORT!)).toBe(true);
    expect(fs.existsSync(path.join(engine.dataDir, 'processes.json'))).toBe(false);
    expect(engine.output()).not.toContain('failed to start');
  });

  it('stops everything when its stdout is closed (EPIPE on the next line it writes)', async () => {
    const engine = await startEngine();
    await healthy(engine);
    const server = recorded(engine.dataDir).temporal!;
    engine.child.stdout!.destroy();
    // The request's log line is the first write to the closed pipe.
    await fetch(`http://127.0.0.1:${engine.ports.PORT}/healthz`).catch(() => undefined);
    expect(await engine.exited).toEqual({ code: 0, signal: null });
    expect(alive(server)).toBe(false);
    expect(await portFree(engine.ports.TEMPORAL_DEV_PORT!)).toBe(true);
    expect(await portFree(engine.ports.PORT!)).toBe(true);
  });

  if (process.platform === 'linux' && fs.existsSync('/usr/bin/setpriv')) {
    it('takes the dev server down with it even when the engine is killed with SIGKILL (Linux: parent-death signal)', async () => {
      const engine = await startEngine();
      const server = await devServerPid(engine);
      await until('the dev server to exec', engine, () => fs.readFileSync(`/proc/${server}/cmdline`, 'utf8').startsWith('setpriv') === false || undefined);
      engine.child.kill('SIGKILL');
      await engine.exited;
      await until('the dev server to die with its engine', undefined, () => !alive(server) || undefined, 30_000);
      await until('the dev server port to be free', undefined, () => portFree(engine.ports.TEMPORAL_DEV_PORT!).then((free) => free || undefined), 10_000);
    });
  }

  it('stops a dev server an earlier engine of its DATA_DIR left running, then starts its own', async () => {
    const dataDir = scratchDir();
    const leftover = fakeDevServer(dataDir);
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
    strays.push(unrelated.pid!);
    // Its engine is gone (a pid that is not its parent); the dev server it recorded is the fake.
    fs.writeFileSync(path.join(dataDir, 'processes.json'), JSON.stringify({ engine: unrelated.pid, temporal: leftover.pid }));
    const engine = await startEngine({ dataDir });
    const server = await until('its own dev server spawned', engine, () => {
      const pid = recorded(dataDir).temporal;
      return pid && pid !== leftover.pid ? pid : undefined;
    });
    expect(alive(leftover.pid!)).toBe(false);
    expect(alive(unrelated.pid!)).toBe(true);
    expect(engine.output()).toContain(`stopping the Temporal dev server (pid ${leftover.pid}) that an earlier engine`);
    engine.child.kill('SIGTERM');
    expect(await engine.exited).toEqual({ code: 0, signal: null });
    expect(alive(server)).toBe(false);
  });

  it('leaves alone a dev server whose engine still runs on the DATA_DIR, and refuses to start', async () => {
    const dataDir = scratchDir();
    const running = fakeDevServer(dataDir); // its parent, this test process, plays the live engine
    fs.writeFileSync(path.join(dataDir, 'processes.json'), JSON.stringify({ engine: process.pid, temporal: running.pid }));
    const engine = await startEngine({ dataDir });
    expect((await engine.exited).code).toBe(1);
    expect(engine.output()).toContain(`is in use by a running engine (pid ${process.pid}`);
    expect(alive(running.pid!)).toBe(true);
  });
});
