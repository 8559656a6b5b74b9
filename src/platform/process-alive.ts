import fs from 'node:fs';

/**
 * Whether a process exists: one that is someone else's (EPERM) counts; a zombie, dead but not
 * yet reaped by whoever adopted it, holds no port and counts as gone (Linux's /proc says so).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    return !/^State:\s*Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
