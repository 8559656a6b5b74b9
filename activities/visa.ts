import type { Db } from '../src/db/client';
import { decideApplication, markUnderReview } from '../src/domain/visa/applications';
import { runActivityStep } from './failures';

/** The visa application's own steps once paid and submitted. */
export function visaActivities(db: Db) {
  return {
    markVisaUnderReview: (applicationId: number) => runActivityStep(() => markUnderReview(db, applicationId)),
    decideVisa: (input: Parameters<typeof decideApplication>[1]) => runActivityStep(() => decideApplication(db, input)),
  };
}
