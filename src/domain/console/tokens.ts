import { randomBytes } from 'node:crypto';
import { digest } from '../credentials';

/** A new random token (256 bits, base64url) and the SHA-256 it is stored as. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: digest(token) };
}

/** Whether a presented string can be one of these tokens at all (read nothing for anything else). */
export const isTokenShaped = (value: string | undefined): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
