import { ApplicationFailure, Context } from '@temporalio/activity';
import { DomainError } from '../src/domain/errors';
import { SupplierRejectedError } from '../src/suppliers/errors';
import { FailureType } from '../workflows/failure-types';

export { FailureType };

/**
 * Business refusals become non-retryable failures whose type the workflow and the API
 * understand; everything else stays retryable (Temporal retries it with backoff).
 */
export async function businessErrors<T>(step: () => Promise<T>, supplierType: (err: SupplierRejectedError) => string = defaultSupplierType): Promise<T> {
  // Heartbeats while the step runs: if this worker dies mid-call, Temporal notices within
  // the step's heartbeat timeout and retries elsewhere, instead of waiting out startToClose.
  // (Local activities have no heartbeat: they run inside the workflow task.)
  const beat = Context.current().info.isLocal ? undefined : setInterval(() => Context.current().heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await step();
  } catch (err) {
    if (err instanceof DomainError) throw ApplicationFailure.nonRetryable(err.message, err.code);
    if (err instanceof SupplierRejectedError) throw ApplicationFailure.nonRetryable(err.message, supplierType(err));
    throw err;
  } finally {
    clearInterval(beat);
  }
}

export const HEARTBEAT_EVERY_MS = 1000;

const defaultSupplierType = (err: SupplierRejectedError) => (err.status === 410 ? FailureType.supplierGone : FailureType.supplierRejected);
