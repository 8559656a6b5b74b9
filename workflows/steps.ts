import { ActivityFailure, ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import { isRefusalType } from './failure-types';
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
 * local activity's (a payment's database steps) and the workflow's own arrive bare.
 */
export const stepFailure = (err: unknown): { type?: string; message: string } => {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { type: cause.type ?? undefined, message: cause.message };
  return { message: cause instanceof Error ? cause.message : String(cause) };
};

/** Whether a step failed with a refusal of the domain or a supplier, not an outcome left open or a part down. */
export const isRefusal = (err: unknown): boolean => isRefusalType(stepFailure(err).type);

/** A refusal that is an answer: the failure type a step raises (and the workflow fails with), and what it says. */
export interface Refusal {
  type: string;
  message?: (supplierMessage: string) => string;
}

/**
 * A step whose refusal is an answer (a hold or a cancellation the supplier refused): when
 * it fails the workflow ends at Stage `failed`; its refusal is raised as the workflow's own
 * failure of the same type, anything else as it came.
 */
export async function refusable<T>(step: () => Promise<T>, refusal: Refusal): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const f = stepFailure(err);
    setStage('failed');
    if (f.type === refusal.type) throw ApplicationFailure.nonRetryable(refusal.message ? refusal.message(f.message) : f.message, refusal.type);
    throw err;
  }
}
