import { ActivityFailure, ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { PartUnavailableError } from '../../src/health/model';
import { DomainError } from '../../src/domain/errors';
import { updateFailure } from '../../src/domain/residence/service';
import { ResidenceFailure } from '../../workflows/failure-types';

/** How a failed residence update (a stay change, a cancellation request) is told to the partner. */
const failed = (activityType: string, cause: Error) =>
  new WorkflowUpdateFailedError('update failed', new ActivityFailure('activity failed', activityType, '7', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', cause));
const said = (err: unknown) => (err instanceof DomainError ? { code: err.code, message: err.message } : err);

describe('a failed residence update, as the partner is told', () => {
  it('a host refusal of any kind is the host refusing; a host that ran out of tries could not be reached', () => {
    for (const type of ['supplier_rejected', 'supplier_gone']) {
      expect(said(updateFailure(failed('amendAtHost', ApplicationFailure.nonRetryable('it is cancelled', type))))).toEqual({
        code: 'supplier_failed',
        message: 'the host refused the change (it is cancelled); it was undone: the stay and the wallet are as they were',
      });
    }
    expect(said(updateFailure(failed('amendAtHost', ApplicationFailure.retryable('supplier error 503', 'SupplierUnavailableError'))))).toMatchObject({
      code: 'supplier_failed',
      message: expect.stringMatching(/^the host could not be reached \(supplier error 503\); the change was undone/),
    });
    const unanswered = new WorkflowUpdateFailedError(
      'update failed',
      ApplicationFailure.nonRetryable('the host did not answer the change (x); the host does not hold it', ResidenceFailure.hostUnanswered),
    );
    expect(said(updateFailure(unanswered))).toMatchObject({
      code: 'supplier_failed',
      message: expect.stringMatching(/^the host did not answer the change \(x\); the host does not hold it; the change was undone/),
    });
  });

  it('the database down through a step is 503, a database failure of ours is not the request’s fault', () => {
    const down = updateFailure(failed('modifyResidenceStay', ApplicationFailure.retryable('connection refused', 'database_unavailable')));
    expect(down).toBeInstanceOf(PartUnavailableError);
    expect((down as PartUnavailableError).part).toBe('database');
    const ours = failed('modifyResidenceStay', ApplicationFailure.nonRetryable('relation missing', 'database_error'));
    expect(updateFailure(ours)).toBe(ours);
  });

  it('the request’s own refusals keep their codes', () => {
    expect(said(updateFailure(failed('modifyResidenceStay', ApplicationFailure.nonRetryable('not enough credit', 'insufficient_credit'))))).toEqual({
      code: 'insufficient_credit',
      message: 'not enough credit',
    });
    expect(said(updateFailure(failed('modifyResidenceStay', ApplicationFailure.nonRetryable('check_in: the property is booked', 'validation'))))).toEqual({
      code: 'validation',
      message: 'check_in: the property is booked',
    });
    expect(said(updateFailure(failed('modifyResidenceStay', ApplicationFailure.nonRetryable('the reservation is not paid yet', 'validation'))))).toEqual({
      code: 'validation',
      message: 'reservation_id: the reservation is not paid yet',
    });
  });
});
