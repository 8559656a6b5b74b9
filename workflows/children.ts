import { ParentClosePolicy, startChild, type Workflow } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Workflows, WorkflowType } from './registry.types';

/**
 * Starts a workflow that must outlive this one (a hold's timer, a visa's review) as an
 * abandoned child. Already started — a retried run, or guests added to a prebook — is fine.
 * The workflow is a function, or the type name of a registered one (a follow-up an activity
 * returned); either way its arguments are checked.
 */
export async function startAbandoned<T extends Workflow>(workflow: T, workflowId: string, args: Parameters<T>): Promise<void>;
export async function startAbandoned<K extends WorkflowType>(workflowType: K, workflowId: string, args: Parameters<Workflows[K]>): Promise<void>;
export async function startAbandoned(workflow: Workflow | WorkflowType, workflowId: string, args: unknown[]): Promise<void> {
  // By type name, as the SDK itself does for a workflow function.
  const workflowType = typeof workflow === 'string' ? workflow : workflow.name;
  try {
    await startChild(workflowType, { workflowId, args, parentClosePolicy: ParentClosePolicy.ABANDON });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
