import type { Config } from '../config';
import { newSecretKey, parseSecretKey, parseSecretKeys } from '../platform/secret-box';
import { EncryptionCodec } from '../temporal/payload-codec';
import { ensureDataFile } from './data-file';

export const PAYLOAD_KEY_FILE = 'temporal-payload-key';

/**
 * The codec every Temporal client and worker of this process encrypts payloads with:
 * TEMPORAL_PAYLOAD_KEY when set (every API and worker process of a deployment needs the same
 * one); otherwise the key in DATA_DIR/temporal-payload-key, written (mode 0600) with a random
 * key on the first start, which serves the processes that share that directory (`npm start`)
 * and keeps its histories readable across restarts.
 */
export function temporalPayloadCodec(config: Pick<Config, 'TEMPORAL_PAYLOAD_KEY' | 'TEMPORAL_PAYLOAD_PREVIOUS_KEYS' | 'DATA_DIR'>): EncryptionCodec {
  const previous = config.TEMPORAL_PAYLOAD_PREVIOUS_KEYS ? parseSecretKeys(config.TEMPORAL_PAYLOAD_PREVIOUS_KEYS)! : [];
  if (config.TEMPORAL_PAYLOAD_KEY) return new EncryptionCodec(parseSecretKey(config.TEMPORAL_PAYLOAD_KEY)!, previous);
  const { value, file } = ensureDataFile(config.DATA_DIR, PAYLOAD_KEY_FILE, newSecretKey);
  const key = parseSecretKey(value);
  if (!key) throw new Error(`${file} does not hold a key (base64 of 32 bytes); restore it, or set TEMPORAL_PAYLOAD_KEY`);
  return new EncryptionCodec(key, previous);
}
