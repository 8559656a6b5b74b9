import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities } from '../activities';
import type { VisaDecisionResult } from './visa.types';
import { DATABASE_STEP } from './activity-options';
import { ridingOut } from './deadline';
import { setStage } from './steps';
import { visaDecisionSignal, visaStateQuery, type VisaApplicationInput, type VisaDecision } from './visa.types';

const database = proxyActivities<BookingActivities>(DATABASE_STEP);

/**
 * A paid, submitted visa application under review: it waits, for as long as the embassy
 * takes, for the decision an operator relays (or, in the sandbox, decides by itself after
 * a delay). A rejection refunds the product's share of the service fee.
 */
export async function visaApplication(input: VisaApplicationInput): Promise<VisaDecisionResult> {
  const { workflowId, runId } = workflowInfo();
  let decision: VisaDecision | null = null;
  setHandler(visaDecisionSignal, (d) => {
    decision ??= d;
  });
  setHandler(visaStateQuery, () => ({ state: decision ? 'decided' : 'under_review', decision }));

  // Both writes must happen, however long the database is away: the embassy's decision is not asked again.
  await ridingOut('marking the application under review', () => database.markVisaUnderReview(input.applicationId));
  setStage('waiting', 'under_review');
  if (input.sandbox) await condition(() => decision !== null, input.sandbox.afterMs);
  else await condition(() => decision !== null);
  const d: VisaDecision = decision ?? {
    approve: input.sandbox!.approve,
    reason: input.sandbox!.approve ? 'approved (sandbox)' : 'rejected (sandbox)',
    operator: 'sandbox',
  };
  const result = await ridingOut('writing the decision', () =>
    database.decideVisa({
      workflowId,
      runId,
      applicationId: input.applicationId,
      approve: d.approve,
      reason: d.reason,
      decidedBy: d.operator,
    }),
  );
  setStage('done', result.status);
  return result;
}
