import fs from 'node:fs';
import path from 'node:path';
import { newAdminToken } from '../domain/credentials';

export const adminTokenFile = (dataDir: string) => path.join(dataDir, 'admin-token');

/**
 * ADMIN_TOKEN when set; otherwise the token in DATA_DIR/admin-token, written (mode 0600)
 * with a random value on the first start.
 */
export function ensureAdminToken(configured: string | undefined, dataDir: string): { token: string; file: string | null } {
  if (configured) return { token: configured, file: null };
  const file = adminTokenFile(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${newAdminToken()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return { token: fs.readFileSync(file, 'utf8').trim(), file };
}
