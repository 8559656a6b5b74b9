import { DomainError, updateAnswer, workflowAnswer } from '../../src/domain/errors';

// The Temporal client side (awaitWorkflow) is handed the whole answer to a workflow's failure:
// what every workflow answers comes with each operation's own.
describe('what a workflow failure answers', () => {
  const refused = { type: 'invalid_data', message: 'value too long for type character varying(64)' };

  it("answers a value the database refused as the request's fault, for every awaited operation", () => {
    for (const answer of [workflowAnswer('pay'), workflowAnswer('hotelHold', 'rate_key'), workflowAnswer('everyWorkflow')]) {
      const error = answer(refused);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'validation', message: `a value in the request cannot be stored: ${refused.message}` });
    }
  });

  it("keeps an operation's own answer first, and names its field", () => {
    expect(workflowAnswer('pay')({ type: 'insufficient_credit', message: 'short' })).toMatchObject({ code: 'insufficient_credit' });
    expect(workflowAnswer('hotelHold', 'rate_key')({ type: 'hold_refused', message: 'gone' })).toMatchObject({ code: 'validation', field: 'rate_key' });
    expect(workflowAnswer('pay')({ type: 'no_such_type', message: '' })).toBeNull();
  });

  it("leaves an update's failure it does not list to its caller", () => {
    expect(updateAnswer('residenceChange')(refused)).toBeNull();
    expect(updateAnswer('residenceChange')({ type: 'not_found', message: 'no stay' })).toMatchObject({ code: 'not_found' });
  });
});
