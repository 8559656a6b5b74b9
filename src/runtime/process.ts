import { logInfo, onLogOutputError } from '../platform/log';
import { ShutdownList } from '../platform/shutdown-list';

/**
 * Runs `body`, the process's start-up, which puts on `shutdown` how to stop whatever it starts
 * (a child process the moment it is spawned). Everything on that list is stopped, in
 * reverse order, before the process exits, on every way out the process can see:
 *
 * - SIGINT, SIGTERM or SIGHUP, also while it is still starting (exit 0); a second signal
 *   while stopping exits at once (1), leaving the children to the exit hooks and the
 *   parent-death signal (src/temporal/dev-server.ts);
 * - its stdout or stderr closed (EPIPE: `npm start | head`, a terminal or supervisor gone)
 *   (exit 0);
 * - start-up failing (exit 1), or an error nobody catches, thrown or rejected (exit 1; once
 *   stopping, the stop under way goes on).
 *
 * Once stopping, a start-up still under way is abandoned quietly: what it starts after that
 * is stopped as soon as it is registered (ShutdownList.add), and its failure is no news.
 */
export function runProcess(name: string, body: (shutdown: ShutdownList) => Promise<void>, log: { error: (msg: string, err: unknown) => void }): void {
  const shutdown = new ShutdownList();
  let stopping = false;
  const stopAndExit = (code: number, why: string) => {
    if (stopping) return;
    stopping = true;
    logInfo(`stopping ${name}: ${why}`);
    void shutdown.stop((err) => log.error(`error while stopping ${name}`, err)).then(() => process.exit(code));
  };

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!stopping) return stopAndExit(0, signal);
      log.error(`${signal} while stopping ${name}: exiting now`, null);
      process.exit(1);
    });
  }
  // Writing to a closed pipe is EPIPE, an 'error' event on the stream that would otherwise
  // crash the process past its shutdown list; pino's own stdout swallows it (onLogOutputError).
  const outputClosed = (err: Error) => stopAndExit(0, `its output is closed (${(err as NodeJS.ErrnoException).code ?? err.message})`);
  process.stdout.on('error', outputClosed);
  process.stderr.on('error', outputClosed);
  onLogOutputError(outputClosed);
  const uncaught = (err: unknown) => {
    log.error(`uncaught error ${stopping ? 'while stopping' : 'in'} ${name}`, err);
    stopAndExit(1, 'uncaught error'); // while stopping, the stop under way goes on
  };
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', uncaught);

  body(shutdown).catch((err) => {
    if (stopping) return; // stopped while starting: that start-up was given up on purpose
    log.error(`${name} failed to start`, err);
    stopAndExit(1, 'start-up failed');
  });
}
