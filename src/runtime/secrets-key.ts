import type { Config } from '../config';
import { newSecretKey, parseSecretKey, parseSecretKeys, secretBox, type SecretBox } from '../platform/secret-box';
import { ensureDataFile } from './data-file';

export const SECRETS_KEY_FILE = 'webhook-secrets-key';

/**
 * The key webhook signing secrets are sealed under: WEBHOOK_SECRETS_KEY when set (every API
 * and worker process of a deployment needs the same one); otherwise the key in
 * DATA_DIR/webhook-secrets-key, written (mode 0600) with a random key on the first start,
 * which serves the processes that share that directory (`npm start`).
 */
export function webhookSecrets(config: Pick<Config, 'WEBHOOK_SECRETS_KEY' | 'WEBHOOK_SECRETS_PREVIOUS_KEYS' | 'DATA_DIR'>): SecretBox {
  const previous = config.WEBHOOK_SECRETS_PREVIOUS_KEYS ? parseSecretKeys(config.WEBHOOK_SECRETS_PREVIOUS_KEYS)! : [];
  if (config.WEBHOOK_SECRETS_KEY) return secretBox(parseSecretKey(config.WEBHOOK_SECRETS_KEY)!, previous);
  const { value, file } = ensureDataFile(config.DATA_DIR, SECRETS_KEY_FILE, newSecretKey);
  const key = parseSecretKey(value);
  if (!key) throw new Error(`${file} does not hold a key (base64 of 32 bytes); restore it, or set WEBHOOK_SECRETS_KEY`);
  return secretBox(key, previous);
}
