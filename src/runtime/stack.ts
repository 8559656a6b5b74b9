type Stop = () => Promise<unknown>;

/** Collects what a process started, to stop it in reverse order. */
export class Stack {
  private readonly stops: Stop[] = [];
  add(stop: Stop): void {
    this.stops.push(stop);
  }
  async stop(onError: (err: unknown) => void): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(onError);
  }
}
