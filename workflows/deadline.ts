import { isCancellation, log, sleep } from '@temporalio/workflow';
import { isRefusal, stepFailure, setStage } from './steps';

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
 * A step that must happen later in a long-lived workflow (a hold's expiry, its release, a
 * stay's end, a visa application's review and decision, a webhook endpoint's read of what it
 * is owed) is ridden out when it fails through its own tries for any reason but an answer (a
 * domain refusal, a supplier's refusal): the database down past its step's five minutes, a
 * supplier down past its 15 s, or a failure a deploy fixes. The step is tried again after
 * 10 s, doubling up to 30 min, for a day; then the workflow fails. So an unpaid hold is
 * given back at its deadline even when the database was away then.
 */
const RIDE_OUT_FIRST_MS = 10_000;
const RIDE_OUT_MAX_MS = 30 * 60_000;
const RIDE_OUT_FOR_MS = 24 * 3600_000;

/** Runs `step`; a failure that is not an answer is tried again later, within a day. */
export async function ridingOut<T>(what: string, step: () => Promise<T>): Promise<T> {
  const since = Date.now();
  let waitMs = RIDE_OUT_FIRST_MS;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      const { message } = stepFailure(err);
      if (isCancellation(err) || isRefusal(err) || Date.now() - since + waitMs > RIDE_OUT_FOR_MS) throw err;
      log.warn(`${what} failed; trying again later`, { message, inMs: waitMs });
      await sleep(waitMs);
      waitMs = Math.min(waitMs * 2, RIDE_OUT_MAX_MS);
    }
  }
}

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
    const result = await ridingOut('the deadline check', check);
    if (!result.done) {
      deadline = result.expiresAt;
      continue;
    }
    if (result.release) {
      setStage('releasing', 'expired');
      const ref = result.release;
      await ridingOut('the release', () => release(ref));
    }
    setStage('done');
    return { expired: result.release !== null };
  }
}
