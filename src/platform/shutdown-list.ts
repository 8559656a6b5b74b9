type Stop = () => Promise<unknown>;

/** What a process started, each with how to stop it: stopped in reverse order when the process shuts down. */
export class ShutdownList {
  private readonly stops: Stop[] = [];
  private readonly late: Promise<unknown>[] = [];
  private onError: ((err: unknown) => void) | undefined;

  /** True once stop() was called: start-up that is still under way should give up. */
  get stopping(): boolean {
    return this.onError !== undefined;
  }

  /** Registers how to stop something just started; once the list is stopping, stops it at once. */
  add(stop: Stop): void {
    if (this.onError) this.late.push(stop().catch(this.onError));
    else this.stops.push(stop);
  }

  async stop(onError: (err: unknown) => void): Promise<void> {
    this.onError ??= onError;
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(onError);
    await Promise.all(this.late.splice(0));
  }
}
