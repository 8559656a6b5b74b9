import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newSecretKey, parseSecretKey, parseSecretKeys } from '../platform/secret-box';

/**
 * The value kept in DATA_DIR/<name>, written (mode 0600) with `make()` on the first start.
 * Processes sharing a DATA_DIR that start together all read the one value written first:
 * it is written whole to a file of its own, then linked into place, which fails if another
 * process got there first, so none ever reads a file half written.
 */
export function ensureDataFile(dataDir: string, name: string, make: () => string): { value: string; file: string } {
  const file = path.join(dataDir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    const draft = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(draft, `${make()}\n`, { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(draft, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  return { value: fs.readFileSync(file, 'utf8').trim(), file };
}

/**
 * A key and the previous ones (while it is being changed) as the settings give them: `key`
 * when set (every API and worker process of a deployment needs the same one), otherwise the
 * key in DATA_DIR/`file`, made with a random key on the first start, which serves the
 * processes that share that directory (`npm start`). `setting` names the key's setting in
 * the error a damaged file gives.
 */
export function keysFromSettings(s: { key?: string; previous?: string; dataDir: string; file: string; setting: string }): { key: Buffer; previous: Buffer[] } {
  const previous = s.previous ? parseSecretKeys(s.previous)! : [];
  if (s.key) return { key: parseSecretKey(s.key)!, previous };
  const { value, file } = ensureDataFile(s.dataDir, s.file, newSecretKey);
  const key = parseSecretKey(value);
  if (!key) throw new Error(`${file} does not hold a key (base64 of 32 bytes); restore it, or set ${s.setting}`);
  return { key, previous };
}
