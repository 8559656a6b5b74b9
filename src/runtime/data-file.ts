import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

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
