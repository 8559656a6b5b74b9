/** Interface B settles at creation: each new booking or order starts its saga once and waits for it. */
import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { awaitWorkflow, startOrJoin, inProcessOutcome } from '../../temporal/workflows';
import type { Workflows } from '../../../workflows/registry.types';

type AgencySaga = 'agencyHotelBooking' | 'agencyProductOrder';

/**
 * Starts the saga of a new booking or order under its own id, never re-run (a retry with the
 * same key joins it, or gets its first outcome again), and waits for it up to `waitMs`:
 * whether it has settled. `refusal` turns its business failures into the agency's answer.
 */
export async function settle<K extends AgencySaga>(
  deps: { temporal: Client; taskQueue: string; waitMs: number; outcomes?: WorkflowOutcomes | undefined },
  workflowType: K,
  run: { workflowId: string; args: Parameters<Workflows[K]>; attributes: SearchAttributePair[] },
  refusal: (f: { type: string; message: string }) => Error | null,
): Promise<boolean> {
  const started = await startOrJoin(
    deps.temporal,
    workflowType,
    { workflowId: run.workflowId, taskQueue: deps.taskQueue, args: run.args, typedSearchAttributes: run.attributes } as Parameters<typeof startOrJoin<K>>[2],
    'keep_outcome',
  );
  return (await awaitWorkflow(started.handle, deps.waitMs, refusal, { inProcess: inProcessOutcome(deps.outcomes, started) })) !== null;
}
