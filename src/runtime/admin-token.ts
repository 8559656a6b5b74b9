import path from 'node:path';
import { newAdminToken } from '../domain/credentials';
import { MIN_BOOTSTRAP_TOKEN_LENGTH } from '../domain/operator-tokens';
import { ensureDataFile } from './data-file';

const ADMIN_TOKEN_FILE = 'admin-token';
export const adminTokenFile = (dataDir: string) => path.join(dataDir, ADMIN_TOKEN_FILE);

/**
 * The bootstrap operator's token (docs/decisions/operators.md): ADMIN_TOKEN when set;
 * otherwise the token in DATA_DIR/admin-token, written (mode 0600) with a random value on the
 * first start. One shorter than 32 characters stops the start.
 */
export function ensureAdminToken(configured: string | undefined, dataDir: string): { token: string; file: string | null } {
  const { value, file } = configured ? { value: configured, file: null } : ensureDataFile(dataDir, ADMIN_TOKEN_FILE, newAdminToken);
  if (value.length < MIN_BOOTSTRAP_TOKEN_LENGTH) {
    throw new Error(`${file ?? 'ADMIN_TOKEN'}: the admin token must be at least ${MIN_BOOTSTRAP_TOKEN_LENGTH} characters (openssl rand -base64 32)`);
  }
  return { token: value, file };
}
