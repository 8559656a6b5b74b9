/**
 * A worker's housekeeping loop: runs `round` after `firstMs`, then `everyMs` after each round
 * ends (rounds never overlap), on a timer that does not keep the process alive. `round`
 * handles and reports its own failures. `stop` ends the loop and waits for a round under way.
 */
export function repeat(opts: { firstMs: number; everyMs: number }, round: () => Promise<void>): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round();
      void running.finally(() => schedule(opts.everyMs));
    }, ms);
    timer.unref();
  };
  schedule(opts.firstMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
