import fs from 'node:fs';
import path from 'node:path';

export const processFile = (dataDir: string) => path.join(dataDir, 'processes.json');

/**
 * `npm start` writes DATA_DIR/processes.json: which process is which (the engine itself, the
 * Temporal dev server it started), so that tools such as `bench:pay` can read each one's CPU
 * time. Removed again on a clean stop.
 */
export function writeProcessFile(dataDir: string, processes: Record<string, number | undefined>): () => void {
  const file = processFile(dataDir);
  const known = Object.fromEntries(Object.entries(processes).filter(([, pid]) => pid !== undefined));
  fs.writeFileSync(file, `${JSON.stringify(known)}\n`);
  return () => fs.rmSync(file, { force: true });
}
