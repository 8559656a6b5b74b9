import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { processAlive as alive } from '../platform/process-alive';

export const processFile = (dataDir: string) => path.join(dataDir, 'processes.json');

/**
 * `npm start` writes DATA_DIR/processes.json: which process is which (the engine itself, the
 * Temporal dev server it started), so that tools such as `bench:pay` can read each one's CPU
 * time, and so that the next start can find a dev server an engine that died left behind
 * (stopLeftoverDevServer). Each process is recorded as soon as it exists; the file is
 * removed again on a clean stop, after the dev server has stopped.
 */
export function openProcessFile(dataDir: string): { record(name: string, pid: number | undefined): void; remove(): void } {
  const file = processFile(dataDir);
  const known: Record<string, number> = {};
  return {
    record(name, pid) {
      if (pid === undefined) return;
      known[name] = pid;
      fs.mkdirSync(dataDir, { recursive: true });
      // Whole or not at all: a reader (or the next start) never sees half a file.
      fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(known)}\n`);
      fs.renameSync(`${file}.tmp`, file);
    },
    remove: () => fs.rmSync(file, { force: true }),
  };
}

interface ProcessInfo {
  ppid: number;
  /** The command line, one element per argument (on Linux; elsewhere one string). */
  args: string[];
}

/** A live process's parent and command line, or undefined when there is no such process. */
function processInfo(pid: number): ProcessInfo | undefined {
  if (process.platform === 'linux') {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      return { ppid: Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0), args };
    } catch {
      return undefined;
    }
  }
  try {
    const line = execFileSync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    const m = /^(\d+)\s+(.*)$/s.exec(line);
    return m ? { ppid: Number(m[1]), args: [m[2]!] } : undefined;
  } catch {
    return undefined; // ps exits 1 when the process does not exist
  }
}

/** Whether a command line is a Temporal dev server on this DATA_DIR's database (its own, not somebody else's). */
function isDevServerOf(args: string[], dbFile: string): boolean {
  if (args.length === 1) return args[0]!.includes(' start-dev ') && args[0]!.includes(`--db-filename ${dbFile}`);
  const i = args.indexOf('--db-filename');
  return args.includes('start-dev') && i >= 0 && args[i + 1] === dbFile;
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile
  }
};

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !alive(pid);
}

/**
 * Before `npm start` starts its dev server: if DATA_DIR/processes.json names a dev server
 * that is still running, on this DATA_DIR's database, and whose engine is gone (it is no
 * longer that engine's child), it was left behind by an engine that died without stopping
 * it (killed where no parent-death signal exists): stop it (SIGTERM, SIGKILL after 10 s), so
 * that it frees its port and database. A process that is not such a server (its id reused)
 * is left alone; a server whose engine still runs means another engine uses this DATA_DIR,
 * which is refused.
 */
export async function stopLeftoverDevServer(dataDir: string, dbFile: string, log: (msg: string) => void): Promise<void> {
  let recorded: Record<string, unknown>;
  try {
    recorded = JSON.parse(fs.readFileSync(processFile(dataDir), 'utf8')) as Record<string, unknown>;
  } catch {
    return; // none (a clean stop removes it), or unreadable: nothing to go by
  }
  const { temporal: pid, engine } = recorded;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return;
  const server = processInfo(pid);
  if (!server || !isDevServerOf(server.args, dbFile)) return;
  if (server.ppid === engine && alive(server.ppid)) {
    throw new Error(
      `DATA_DIR ${dataDir} is in use by a running engine (pid ${engine}, with its Temporal dev server pid ${pid}): stop it first, or choose another DATA_DIR`,
    );
  }
  log(`stopping the Temporal dev server (pid ${pid}) that an earlier engine (pid ${String(engine)}) left running`);
  signal(pid, 'SIGTERM');
  if (!(await waitGone(pid, 10_000))) {
    signal(pid, 'SIGKILL');
    if (!(await waitGone(pid, 5_000))) throw new Error(`the Temporal dev server left running (pid ${pid}) did not stop`);
  }
}
