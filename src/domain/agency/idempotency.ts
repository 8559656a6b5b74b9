import crypto from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { validation } from '../errors';

/**
 * What a request an Idempotency-Key names looked like: the SHA-256 of its validated body in
 * a canonical form (keys sorted), so the same request again matches whatever order its
 * fields came in.
 */
export const requestFingerprint = (body: unknown): string =>
  crypto
    .createHash('sha256')
    .update(stringify(body) ?? '')
    .digest('hex');

/**
 * The key names the request it was first used with: the same one again joins its result,
 * another one is refused (422), as a payment API refuses a key reused for a different
 * charge. A row written before requests were recorded (null) matches any.
 */
export function sameRequest(key: string, recorded: string | null, fingerprint: string): void {
  if (recorded !== null && recorded !== fingerprint) {
    throw validation('idempotency-key', `${JSON.stringify(key)} was used with a different request; send that request again, or this one with a new key`);
  }
}
