import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { isExecutable, onPath } from '../platform/executables';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/** `$(go env GOPATH)/bin`, where `go install` puts what it builds; undefined without Go. */
export function goBin(): string | undefined {
  if (!onPath('go')) return undefined;
  try {
    return path.join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim(), 'bin');
  } catch {
    return undefined;
  }
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, then `temporal` on PATH, then
 * $(go env GOPATH)/bin/temporal; failing all three, builds it with Go (minutes, once).
 */
export async function resolveTemporalCli(explicit: string | undefined, log: (msg: string) => void): Promise<string> {
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  const bin = goBin();
  if (bin && isExecutable(path.join(bin, 'temporal'))) return path.join(bin, 'temporal');
  if (!bin) {
    throw new Error(
      'the Temporal CLI was not found (TEMPORAL_CLI_PATH, PATH, $(go env GOPATH)/bin) and Go is not installed to build it; ' +
        'install the Temporal CLI, or set TEMPORAL_ADDRESS to use a running Temporal server',
    );
  }
  log(`building the Temporal CLI with 'go install ${TEMPORAL_CLI_MODULE}' (takes a few minutes, once)...`);
  await goInstall(TEMPORAL_CLI_MODULE);
  return path.join(bin, 'temporal');
}

/** `go install <module>` (into `gobin` if given), its output on this process's stderr. */
export function goInstall(module: string, gobin?: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const env = gobin ? { ...process.env, GOBIN: gobin } : process.env;
    const child = spawn('go', ['install', module], { stdio: ['ignore', process.stderr, process.stderr], env });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${module} exited with ${code}`))));
  });
}
