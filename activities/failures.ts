import { ApplicationFailure, Context } from '@temporalio/activity';
import { databaseFailure } from '../src/platform/database-errors';
import { DomainError } from '../src/domain/errors';
import { SupplierRejectedError } from '../src/suppliers/errors';
import { DatabaseFailureType, FailureType } from '../workflows/failure-types';

/**
 * Runs one activity's step: heartbeating while it runs (an ordinary activity), and failing
 * it the way Temporal should treat the failure, with a failure type of
 * workflows/failure-types.ts. Business refusals (a DomainError, a supplier's refusal) become
 * non-retryable failures whose type the workflow and the API understand. Database errors are
 * classified (src/platform/database-errors.ts): data and integrity errors (SQLSTATE classes
 * 22, 23) and other deterministic ones fail for good at once, since the same input fails the
 * same way; a lost connection, a restart, a serialization or deadlock loss is retried. Either way the failure carries a message without the query's values,
 * because it is logged and stored in the workflow's history. Everything else stays
 * retryable (Temporal retries it with backoff).
 */
export async function runActivityStep<T>(step: () => Promise<T>, supplierType: (err: SupplierRejectedError) => string = defaultSupplierType): Promise<T> {
  // Heartbeats while the step runs: if this worker dies mid-call, Temporal notices within
  // the step's heartbeat timeout and retries elsewhere, instead of waiting out startToClose.
  // (Local activities have no heartbeat: they run inside the workflow task.)
  const beat = Context.current().info.isLocal ? undefined : setInterval(() => Context.current().heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await step();
  } catch (err) {
    if (err instanceof DomainError) throw ApplicationFailure.nonRetryable(err.message, err.code);
    if (err instanceof SupplierRejectedError) throw ApplicationFailure.nonRetryable(err.message, supplierType(err));
    const db = databaseFailure(err);
    if (db?.type === DatabaseFailureType.unavailable) throw ApplicationFailure.retryable(db.message, db.type);
    if (db) throw ApplicationFailure.nonRetryable(db.message, db.type);
    throw err;
  } finally {
    clearInterval(beat);
  }
}

export const HEARTBEAT_EVERY_MS = 1000;

const defaultSupplierType = (err: SupplierRejectedError) => (err.status === 410 ? FailureType.supplierGone : FailureType.supplierRejected);
