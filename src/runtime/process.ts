import { Stack } from './stack';

/** Runs `body`; on SIGINT/SIGTERM or a start-up failure, stops everything it started. */
export function runProcess(name: string, body: (stack: Stack) => Promise<void>, log: { error: (msg: string, err: unknown) => void }): void {
  const stack = new Stack();
  const shutdown = (code: number) => void stack.stop((err) => log.error(`error while stopping ${name}`, err)).then(() => process.exit(code));
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));
  body(stack).catch((err) => {
    log.error(`${name} failed to start`, err);
    shutdown(1);
  });
}
