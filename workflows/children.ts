import { ParentClosePolicy, startChild, type Workflow } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';

/**
 * Starts a workflow that must outlive this one (a hold's timer, a visa's review) as an
 * abandoned child. Already started — a retried run, or guests added to a prebook — is fine.
 */
export async function startAbandoned<T extends Workflow>(workflow: T | string, workflowId: string, args: Parameters<T> | unknown[]): Promise<void> {
  // By type name, as the SDK itself does for a workflow function.
  const workflowType = typeof workflow === 'string' ? workflow : workflow.name;
  try {
    await startChild(workflowType, { workflowId, args: args as unknown[], parentClosePolicy: ParentClosePolicy.ABANDON });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
