import type { Config } from '../config';
import { secretBox, type SecretBox } from '../platform/secret-box';
import { keysFromSettings } from './data-file';

export const PERSONAL_DATA_KEY_FILE = 'personal-data-key';

/**
 * The key travellers' personal data is sealed under in the database (src/db/personal-data.ts):
 * PERSONAL_DATA_KEY when set (every API and worker process of a deployment needs the same
 * one); otherwise the key in DATA_DIR/personal-data-key, written (mode 0600) with a random key
 * on the first start, which serves the processes that share that directory (`npm start`).
 */
export function personalDataBox(config: Pick<Config, 'PERSONAL_DATA_KEY' | 'PERSONAL_DATA_PREVIOUS_KEYS' | 'DATA_DIR'>): SecretBox {
  const { key, previous } = keysFromSettings({
    key: config.PERSONAL_DATA_KEY,
    previous: config.PERSONAL_DATA_PREVIOUS_KEYS,
    dataDir: config.DATA_DIR,
    file: PERSONAL_DATA_KEY_FILE,
    setting: 'PERSONAL_DATA_KEY',
  });
  return secretBox(key, previous);
}
