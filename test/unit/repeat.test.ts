import { repeat } from '../../worker/repeat';

/** The worker's housekeeping loop (webhook relay, event retention): when rounds run, that they never overlap, and stopping. */
describe('repeat', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A round that records when it started and ends when the test says so. */
  function rounds() {
    const started: number[] = [];
    const ends: Array<() => void> = [];
    const round = () => {
      started.push(Date.now());
      return new Promise<void>((resolve) => ends.push(resolve));
    };
    return { started, round, end: (i: number) => ends[i]!() };
  }

  it('runs the first round after firstMs, then everyMs after each round ends, never two at once', async () => {
    const t0 = Date.now();
    const r = rounds();
    const loop = repeat({ firstMs: 1_000, everyMs: 5_000 }, r.round);
    await jest.advanceTimersByTimeAsync(999);
    expect(r.started).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(r.started).toEqual([t0 + 1_000]);
    // A round that takes 20 s: no second round starts meanwhile.
    await jest.advanceTimersByTimeAsync(20_000);
    expect(r.started).toHaveLength(1);
    r.end(0);
    await jest.advanceTimersByTimeAsync(4_999);
    expect(r.started).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(r.started).toEqual([t0 + 1_000, t0 + 26_000]);
    r.end(1);
    await loop.stop();
  });

  it('stop waits for the round under way, and no round starts after it', async () => {
    const r = rounds();
    const loop = repeat({ firstMs: 10, everyMs: 10 }, r.round);
    await jest.advanceTimersByTimeAsync(10);
    expect(r.started).toHaveLength(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    r.end(0);
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(r.started).toHaveLength(1);
  });

  it('a stop before the first round means no round at all', async () => {
    const r = rounds();
    await repeat({ firstMs: 1_000, everyMs: 1_000 }, r.round).stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(r.started).toEqual([]);
  });
});
