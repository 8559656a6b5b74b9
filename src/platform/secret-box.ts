import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes } from 'node:crypto';
import { Nonces } from './nonces';

/**
 * Seals the secrets the engine must read back to use (webhook signing secrets) with
 * AES-256-GCM under one key, so that a copy of the database (a backup, a replica, a dump
 * handed to support) does not carry them readable. Secrets the engine only compares
 * (partner secrets, agency keys) are stored as digests instead and never come here.
 *
 * A sealed value is `sealed:v1:<key id>:<base64url of nonce, tag, ciphertext>`. The key id
 * (the first 8 hex digits of the key's SHA-256) says which key sealed it, so that a process
 * given another key says so instead of failing the tag check with no reason. A value sealed
 * for an owner (a webhook secret for its endpoint) is `sealed:v2:…`: the owner is
 * authenticated with it, so a value copied to another owner's row does not open there.
 */
export interface SecretBox {
  /** Which key this box seals under. */
  readonly keyId: string;
  /** Seals `plain`; for `owner` (e.g. `webhook-endpoint:7`), to be opened for that owner only. */
  seal(plain: string, owner?: string): string;
  /**
   * The secret: `owner` must be the one it was sealed for (none for a value sealed for none).
   * A value that is not sealed is refused.
   */
  open(stored: string, owner?: string): string;
  /** Whether this box can open a value sealed under key `keyId` (its own, or a previous one it was given). */
  opens(keyId: string): boolean;
}

export const SECRET_KEY_BYTES = 32;
/** Sealed for no owner, and for an owner: the prefixes have the same length. */
const UNBOUND = 'sealed:v1:';
const BOUND = 'sealed:v2:';
const PREFIX_LENGTH = UNBOUND.length;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Whether a stored value is sealed (not a value in the clear). */
export const isSealed = (stored: string) => stored.startsWith(UNBOUND) || stored.startsWith(BOUND);

/** Whether a sealed value was sealed for an owner. */
export const isBound = (stored: string) => stored.startsWith(BOUND);

/** How every value sealed under key `keyId` (for an owner when `bound`) begins (letters, digits and colons: no LIKE wildcard). */
export const sealedPrefix = (keyId: string, bound = false) => `${bound ? BOUND : UNBOUND}${keyId}:`;

/** The id of the key a sealed value was sealed under. */
export const sealedKeyId = (stored: string) => (isSealed(stored) ? stored.slice(PREFIX_LENGTH, stored.indexOf(':', PREFIX_LENGTH)) : null);

/** One key: its id, and what it seals and opens. */
function keyOf(key: Buffer) {
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`a secret key is ${SECRET_KEY_BYTES} bytes, not ${key.length}`);
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  // The prefix, the key id and the owner are authenticated too: a value cannot be passed off as another key's or another owner's.
  const aad = (owner: string | undefined) => Buffer.from(owner === undefined ? `${UNBOUND}${keyId}` : `${BOUND}${keyId}\n${owner}`);
  const unbound = aad(undefined);
  const secret = createSecretKey(key);
  const nonces = new Nonces(NONCE_BYTES);
  return {
    keyId,
    seal(plain: string, owner?: string) {
      const nonce = nonces.take();
      const cipher = createCipheriv('aes-256-gcm', secret, nonce).setAAD(owner === undefined ? unbound : aad(owner));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${sealedPrefix(keyId, owner !== undefined)}${Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url')}`;
    },
    open(stored: string, owner?: string) {
      const raw = Buffer.from(stored.slice(sealedPrefix(keyId).length), 'base64url');
      if (raw.length < NONCE_BYTES + TAG_BYTES) throw new Error('a sealed secret too short to be one');
      const decipher = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, NONCE_BYTES)).setAAD(aad(owner));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error(
          `a secret sealed under key ${keyId} failed its integrity check: it was altered or damaged${owner === undefined ? '' : `, or sealed for another owner than ${owner}`}`,
        );
      }
    },
  };
}

/**
 * A box that seals under `key` and opens what it or any of `previous` sealed: while a key is
 * being changed, the old one is given as previous, and start-up seals every secret again
 * under the new one (sealStoredSecrets).
 */
export function secretBox(key: Buffer, previous: readonly Buffer[] = []): SecretBox {
  const current = keyOf(key);
  const openers = new Map([...previous.map(keyOf), current].map((k) => [k.keyId, k]));
  return {
    keyId: current.keyId,
    seal: current.seal,
    opens: (keyId) => openers.has(keyId),
    open(stored, owner) {
      if (!isSealed(stored)) throw new Error('a secret stored in the clear is refused: only a sealed one is opened');
      if (isBound(stored) !== (owner !== undefined)) {
        throw new Error(owner === undefined ? 'a secret sealed for an owner is opened only for it' : `a secret sealed for no owner is refused for ${owner}`);
      }
      const id = sealedKeyId(stored)!;
      const opener = openers.get(id);
      if (!opener) {
        throw new Error(
          `sealed under key ${id}, but this process has key ${current.keyId}: every API and worker process needs the same WEBHOOK_SECRETS_KEY ` +
            '(while the key is being changed, the old one in WEBHOOK_SECRETS_PREVIOUS_KEYS)',
        );
      }
      return opener.open(stored, owner);
    },
  };
}

/** A new random key, as WEBHOOK_SECRETS_KEY takes it (base64). */
export const newSecretKey = () => randomBytes(SECRET_KEY_BYTES).toString('base64');

/** Keys as WEBHOOK_SECRETS_PREVIOUS_KEYS gives them (comma-separated); null when one is not a key. */
export function parseSecretKeys(text: string): Buffer[] | null {
  const keys = text
    .split(',')
    .filter((part) => part.trim() !== '')
    .map(parseSecretKey);
  return keys.every((k) => k !== null) ? (keys as Buffer[]) : null;
}

/** A key as WEBHOOK_SECRETS_KEY gives it: base64 (or base64url) of 32 bytes; null when it is not one. */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64');
  return key.length === SECRET_KEY_BYTES ? key : null;
}
