import crypto from 'node:crypto';

/**
 * Credentials are random with 256 bits of entropy, so a plain SHA-256 digest is a safe
 * way to store them (no password stretching is needed for secrets nobody chose).
 */
export const newApiKey = () => crypto.randomBytes(32).toString('hex'); // 64 hex characters, per spec §5
export const newApiSecret = () => crypto.randomBytes(32).toString('base64url');
export const newAgencyKey = () => `agk_${crypto.randomBytes(32).toString('base64url')}`;
export const newAdminToken = () => crypto.randomBytes(32).toString('base64url');

export const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

/** Compares a presented secret with a stored digest in constant time. */
export function matchesDigest(presented: string, storedDigest: string): boolean {
  const a = Buffer.from(digest(presented), 'hex');
  const b = Buffer.from(storedDigest, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export const API_KEY_PATTERN = /^[0-9a-f]{64}$/i;
