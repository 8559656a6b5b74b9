import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject } from 'node:crypto';
import { Nonces } from '../platform/nonces';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/**
 * Encrypts every payload the engine hands Temporal (workflow inputs and results, signals,
 * queries, updates, memos, activity inputs and results, failure details) with AES-256-GCM, so
 * that Temporal's histories, its database and anyone reading them (`temporal workflow show`,
 * Temporal Web without the codec endpoint) see ciphertext. Search attributes are not payloads
 * a codec sees: they carry no personal data (workflows/search-attributes.ts).
 *
 * An encrypted payload is the original payload, serialized as its protobuf message, sealed
 * under a fresh 96-bit nonce: `data` = nonce ‖ ciphertext ‖ tag, `metadata.encoding` =
 * `binary/encrypted`, `metadata.encryption-key-id` = the key's id (the first 8 hex digits of
 * its SHA-256). The encoding and key id are authenticated too. The newest key encrypts; every
 * key given decrypts, so a key is rotated by adding a new one and keeping the old as previous
 * until no history needs it.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const PAYLOAD_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const { Payload: PayloadMessage } = temporal.api.common.v1;
const ENCRYPTED = Buffer.from(ENCRYPTED_ENCODING);

/** A key's id as payloads name it: the first 8 hex digits of its SHA-256. */
export const payloadKeyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** Thrown when a payload cannot be decrypted: an unknown key id, or ciphertext that fails its tag. */
export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
}

interface PayloadKey {
  id: string;
  key: KeyObject;
  /** The encoding and key id, authenticated with each payload: a payload cannot be passed off as another key's. */
  aad: Buffer;
}

function payloadKey(key: Buffer): PayloadKey {
  if (key.length !== PAYLOAD_KEY_BYTES) throw new Error(`a payload key is ${PAYLOAD_KEY_BYTES} bytes, not ${key.length}`);
  const id = payloadKeyId(key);
  return { id, key: createSecretKey(key), aad: Buffer.from(`${ENCRYPTED_ENCODING}:${id}`) };
}

const metadataText = (payload: Payload, name: string) => {
  const value = payload.metadata?.[name];
  return value ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8') : undefined;
};

const isEncrypted = (payload: Payload) => {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && Buffer.from(encoding.buffer, encoding.byteOffset, encoding.byteLength).equals(ENCRYPTED);
};

/** The engine's payload codec: encrypts under `current`, decrypts under it or any of `previous`. */
export class EncryptionCodec implements PayloadCodec {
  readonly keyId: string;
  private readonly current: PayloadKey;
  private readonly keys: Map<string, PayloadKey>;
  private readonly nonces = new Nonces(NONCE_BYTES);

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.current = payloadKey(current);
    this.keyId = this.current.id;
    this.keys = new Map([...previous.map(payloadKey), this.current].map((k) => [k.id, k]));
  }

  /** Whether this codec decrypts what key `keyId` encrypted. */
  decrypts(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  encrypt(payload: Payload): Payload {
    const { id, key, aad } = this.current;
    const nonce = this.nonces.take();
    const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(aad);
    const sealed = Buffer.concat([nonce, cipher.update(PayloadMessage.encode(payload).finish()), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: ENCRYPTED, [KEY_ID_METADATA]: Buffer.from(id) }, data: sealed };
  }

  /**
   * The payload as it was before encryption. A payload without the codec's encoding (one
   * written before payloads were encrypted) is answered as it is; an encrypted one under a key
   * this codec does not hold, or one altered, throws.
   */
  decrypt(payload: Payload): Payload {
    if (!isEncrypted(payload)) return payload;
    const id = metadataText(payload, KEY_ID_METADATA) ?? '(none)';
    const key = this.keys.get(id);
    if (!key) {
      throw new PayloadDecryptionError(
        `a payload encrypted under key ${id}, but this process holds key ${this.keyId}${this.keys.size > 1 ? ` and ${this.keys.size - 1} previous` : ''}: ` +
          'every API and worker process needs the same TEMPORAL_PAYLOAD_KEY (and the old keys in TEMPORAL_PAYLOAD_PREVIOUS_KEYS while histories written under them are read)',
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new PayloadDecryptionError(`a payload under key ${id} too short to be encrypted`);
    const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, NONCE_BYTES)).setAAD(key.aad);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(`a payload encrypted under key ${id} failed its integrity check: it was altered or damaged`);
    }
    return PayloadMessage.decode(plain);
  }
}

/** Where the admin API serves the codec endpoint for Temporal Web and the CLI (src/http/admin/codec.ts). */
export const CODEC_ENDPOINT_PATH = '/admin/codec';

/** The data converter of every client and worker of the engine: the default payload converter, then the codec. */
export const engineDataConverter = (codec: PayloadCodec): DataConverter => ({ payloadCodecs: [codec] });
