import type { Config } from '../config';
import { EncryptionCodec } from '../temporal/payload-codec';
import { keysFromSettings } from './data-file';

export const PAYLOAD_KEY_FILE = 'temporal-payload-key';

/**
 * The codec every Temporal client and worker of this process encrypts payloads with:
 * TEMPORAL_PAYLOAD_KEY when set (every API and worker process of a deployment needs the same
 * one); otherwise the key in DATA_DIR/temporal-payload-key, written (mode 0600) with a random
 * key on the first start, which serves the processes that share that directory (`npm start`)
 * and keeps its histories readable across restarts.
 */
export function temporalPayloadCodec(config: Pick<Config, 'TEMPORAL_PAYLOAD_KEY' | 'TEMPORAL_PAYLOAD_PREVIOUS_KEYS' | 'DATA_DIR'>): EncryptionCodec {
  const { key, previous } = keysFromSettings({
    key: config.TEMPORAL_PAYLOAD_KEY,
    previous: config.TEMPORAL_PAYLOAD_PREVIOUS_KEYS,
    dataDir: config.DATA_DIR,
    file: PAYLOAD_KEY_FILE,
    setting: 'TEMPORAL_PAYLOAD_KEY',
  });
  return new EncryptionCodec(key, previous);
}
