import { sleep } from '@temporalio/workflow';
import { setStage } from './steps';

/** Past a deadline by this much before acting, so that the worker's and the database's clocks agree it is over. */
const GRACE_MS = 250;

export type DeadlineCheck = { done: true; release: string | null } | { done: false; expiresAt: number };

/** What a hold's check answers: done, naming what to give back under `key` (its hold id, its PNR), or held until later. */
export type HoldCheck<K extends string> = ({ done: true } & { [k in K]: string | null }) | { done: false; expiresAt: number };

/** A hold's check as a deadline's: what it names under `key` is what to release. */
export const releasing =
  <K extends string>(key: K, check: () => Promise<HoldCheck<K>>) =>
  async (): Promise<DeadlineCheck> => {
    const result = await check();
    return result.done ? { done: true, release: (result as { [k in K]: string | null })[key] } : result;
  };

/**
 * A durable deadline: sleeps until it, asks `check` whether the thing held (a hotel hold,
 * an unticketed PNR) is now expired, and if so gives it back with `release`. A deadline
 * moved later is slept again; something paid or cancelled meanwhile ends it quietly.
 */
export async function expireAtDeadline(
  deadline: number,
  check: () => Promise<DeadlineCheck>,
  release: (ref: string) => Promise<unknown>,
): Promise<{ expired: boolean }> {
  setStage('waiting');
  for (;;) {
    await sleep(Math.max(0, deadline - Date.now()) + GRACE_MS);
    const result = await check();
    if (!result.done) {
      deadline = result.expiresAt;
      continue;
    }
    if (result.release) {
      setStage('releasing', 'expired');
      await release(result.release);
    }
    setStage('done');
    return { expired: result.release !== null };
  }
}
