import path from 'node:path';
import { newAdminToken } from '../domain/credentials';
import { ensureDataFile } from './data-file';

const ADMIN_TOKEN_FILE = 'admin-token';
export const adminTokenFile = (dataDir: string) => path.join(dataDir, ADMIN_TOKEN_FILE);

/**
 * ADMIN_TOKEN when set; otherwise the token in DATA_DIR/admin-token, written (mode 0600)
 * with a random value on the first start.
 */
export function ensureAdminToken(configured: string | undefined, dataDir: string): { token: string; file: string | null } {
  if (configured) return { token: configured, file: null };
  const { value, file } = ensureDataFile(dataDir, ADMIN_TOKEN_FILE, newAdminToken);
  return { token: value, file };
}
