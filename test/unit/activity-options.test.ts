import { msToNumber } from '@temporalio/common/lib/time';
import type { RetryPolicy } from '@temporalio/common';
import { DATABASE_STEP, LOCAL_DATABASE_STEP } from '../../workflows/activity-options';

/** The waits between the attempts of a retry policy, as Temporal computes them. */
function backoffMs(retry: RetryPolicy): number[] {
  const waits: number[] = [];
  let next = msToNumber(retry.initialInterval!);
  for (let attempt = 1; attempt < retry.maximumAttempts!; attempt++) {
    waits.push(Math.min(next, msToNumber(retry.maximumInterval!)));
    next *= retry.backoffCoefficient ?? 2;
  }
  return waits;
}

describe('database steps are bounded', () => {
  it.each([
    ['DATABASE_STEP', DATABASE_STEP.retry!],
    ['LOCAL_DATABASE_STEP', LOCAL_DATABASE_STEP.retry!],
  ])('%s retries for about four minutes of backoff, then gives up', (_name, retry) => {
    expect(retry.maximumAttempts).toBeGreaterThan(1);
    const total = backoffMs(retry).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(3 * 60_000);
    expect(total).toBeLessThan(6 * 60_000);
  });

  it('never retries a deterministic database failure or a business refusal', () => {
    expect(DATABASE_STEP.retry!.nonRetryableErrorTypes).toEqual(expect.arrayContaining(['invalid_data', 'database_error', 'conflict', 'not_payable']));
    expect(DATABASE_STEP.retry!.nonRetryableErrorTypes).not.toContain('database_unavailable');
  });
});
