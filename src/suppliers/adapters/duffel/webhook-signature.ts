import crypto from 'node:crypto';

/**
 * How far a signed event's time may be from ours, either way: an older one is a replay, and
 * refused. Duffel retries a failed delivery for 72 hours, each retry signed anew.
 */
export const DUFFEL_SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/** What a signature check found: the signed time, or why the event is refused. */
export type SignatureCheck = { ok: true; signedAt: Date } | { ok: false; reason: string };

/**
 * Checks Duffel's `X-Duffel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * (the webhook's secret is the key), comparing in constant time, and refuses a time outside
 * the tolerance (docs/decisions/schedule-changes.md).
 */
export function checkDuffelSignature(rawBody: string, header: string | undefined, secret: string, now: Date): SignatureCheck {
  if (!header) return { ok: false, reason: 'the X-Duffel-Signature header is missing' };
  const parts = new Map(
    header.split(',').map((p) => {
      const at = p.indexOf('=');
      return [p.slice(0, at).trim(), p.slice(at + 1).trim()] as const;
    }),
  );
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d{1,12}$/.test(t) || !v1 || !/^[0-9a-f]{64}$/i.test(v1))
    return { ok: false, reason: 'the X-Duffel-Signature header is not t=<seconds>,v1=<hex>' };
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  if (!crypto.timingSafeEqual(expected, Buffer.from(v1, 'hex'))) return { ok: false, reason: 'the signature does not match' };
  const signedAt = new Date(Number(t) * 1000);
  if (Math.abs(now.getTime() - signedAt.getTime()) > DUFFEL_SIGNATURE_TOLERANCE_MS) {
    return { ok: false, reason: `the signature's time (${signedAt.toISOString()}) is more than ${DUFFEL_SIGNATURE_TOLERANCE_MS / 60_000} minutes from ours` };
  }
  return { ok: true, signedAt };
}

/** Signs a body as Duffel does (the tests' stand-in, and anyone checking a receiver). */
export function duffelSignature(rawBody: string, secret: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex')}`;
}
