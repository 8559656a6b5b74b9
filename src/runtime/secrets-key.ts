import type { Config } from '../config';
import { secretBox, type SecretBox } from '../platform/secret-box';
import { keysFromSettings } from './data-file';

export const SECRETS_KEY_FILE = 'webhook-secrets-key';

/**
 * The key webhook signing secrets are sealed under: WEBHOOK_SECRETS_KEY when set (every API
 * and worker process of a deployment needs the same one); otherwise the key in
 * DATA_DIR/webhook-secrets-key, written (mode 0600) with a random key on the first start,
 * which serves the processes that share that directory (`npm start`).
 */
export function webhookSecrets(config: Pick<Config, 'WEBHOOK_SECRETS_KEY' | 'WEBHOOK_SECRETS_PREVIOUS_KEYS' | 'DATA_DIR'>): SecretBox {
  const { key, previous } = keysFromSettings({
    key: config.WEBHOOK_SECRETS_KEY,
    previous: config.WEBHOOK_SECRETS_PREVIOUS_KEYS,
    dataDir: config.DATA_DIR,
    file: SECRETS_KEY_FILE,
    setting: 'WEBHOOK_SECRETS_KEY',
  });
  return secretBox(key, previous);
}
