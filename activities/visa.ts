import type { Db } from '../src/db/client';
import { decideApplication, markUnderReview } from '../src/domain/visa/applications';
import { businessErrors } from './failures';

/** The visa application's own steps once paid and submitted. */
export function visaActivities(db: Db) {
  return {
    markVisaUnderReview: (applicationId: number) => businessErrors(() => markUnderReview(db, applicationId)),
    decideVisa: (input: Parameters<typeof decideApplication>[1]) => businessErrors(() => decideApplication(db, input)),
  };
}
