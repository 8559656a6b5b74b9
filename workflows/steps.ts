import { ActivityFailure, ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import { OrderStatus, Stage, type StageName } from './search-attributes';

/**
 * What every workflow's steps share: the Stage a workflow shows an operator (and, when it
 * changes, the order's status), and what a failed step failed with.
 */
export function setStage(name: StageName, status?: string): void {
  upsertSearchAttributes([{ key: Stage, value: name }, ...(status ? [{ key: OrderStatus, value: status }] : [])]);
}

/**
 * What a step failed with: an activity's failure arrives wrapped in an ActivityFailure; a
 * local activity's (the ledger steps by default) and the workflow's own arrive bare.
 */
export const failureOf = (err: unknown): { type?: string; message: string } => {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { type: cause.type ?? undefined, message: cause.message };
  return { message: cause instanceof Error ? cause.message : String(cause) };
};
