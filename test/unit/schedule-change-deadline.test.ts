import { decisionDeadline } from '../../src/domain/flights/schedule-changes';
import { checkDuffelSignature, duffelSignature } from '../../src/suppliers/adapters/duffel/webhook-signature';

const HOUR = 3_600_000;
const now = new Date('2026-11-29T12:00:00Z');
const departing = (hours: number) => new Date(now.getTime() + hours * HOUR);

describe('the deadline of a schedule change', () => {
  it('is SCHEDULE_CHANGE_DECISION_HOURS before departure, with the reminder SCHEDULE_CHANGE_REMINDER_HOURS before it', () => {
    const d = decisionDeadline(departing(240), now, { decisionHours: 48, reminderHours: 24 });
    expect(d.decideBy.toISOString()).toBe(departing(192).toISOString());
    expect(d.remindAt?.toISOString()).toBe(departing(168).toISOString());
  });

  it('sends no reminder when its time has passed as the change is told: the first notice is the last', () => {
    const d = decisionDeadline(departing(60), now, { decisionHours: 48, reminderHours: 24 });
    expect(d.decideBy.toISOString()).toBe(departing(12).toISOString());
    expect(d.remindAt).toBeNull();
  });

  it('is now when the departure is nearer than the decision hours: the default applies at once', () => {
    const d = decisionDeadline(departing(10), now, { decisionHours: 48, reminderHours: 24 });
    expect(d.decideBy.toISOString()).toBe(now.toISOString());
    expect(d.remindAt).toBeNull();
  });
});

describe("Duffel's webhook signature", () => {
  const secret = 'whsec_0123456789abcdef';
  const body = '{"id":"wev_1","type":"order.airline_initiated_change_detected"}';

  it('accepts what Duffel signs (t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">) within five minutes either way', () => {
    expect(checkDuffelSignature(body, duffelSignature(body, secret, now), secret, now)).toEqual({
      ok: true,
      signedAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
    });
    expect(checkDuffelSignature(body, duffelSignature(body, secret, new Date(now.getTime() - 299_000)), secret, now).ok).toBe(true);
  });

  it.each([
    ['another body', duffelSignature(`${body} `, secret, now), 'the signature does not match'],
    ['another secret', duffelSignature(body, `${secret}x`, now), 'the signature does not match'],
    ['no header', undefined, 'the X-Duffel-Signature header is missing'],
    ['a header of another shape', 'sha256=abc', 'the X-Duffel-Signature header is not t=<seconds>,v1=<hex>'],
    ['a short digest', 't=1,v1=abcd', 'the X-Duffel-Signature header is not t=<seconds>,v1=<hex>'],
  ])('refuses %s', (_what, header, reason) => {
    expect(checkDuffelSignature(body, header, secret, now)).toEqual({ ok: false, reason });
  });

  it('refuses a replay: a signature more than five minutes old, or as far ahead', () => {
    for (const at of [new Date(now.getTime() - 301_000), new Date(now.getTime() + 301_000)]) {
      expect(checkDuffelSignature(body, duffelSignature(body, secret, at), secret, now)).toEqual({
        ok: false,
        reason: expect.stringMatching(/more than 5 minutes from ours/),
      });
    }
  });
});
