import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isExecutable } from '../../src/platform/executables';
import { goBin, goInstall, resolveTemporalCli } from '../../src/temporal/cli';
import { TEMPORAL_SERVER_MODULE, TEMPORAL_SERVER_VERSION, TEMPORAL_SQL_TOOL_MODULE, TEMPORAL_UI_SERVER_MODULE, TEMPORAL_UI_VERSION } from './versions';

export interface TemporalBinaries {
  /** The Temporal server (`go install …/cmd/server` names it `server`). */
  server: string;
  /** Its SQL schema tool (`temporal-sql-tool` in Temporal's images, `sql` from `go install`). */
  sqlTool: string;
  /** The Temporal CLI, for the namespace and for operators. */
  cli: string;
  /** Temporal Web's server. */
  ui: string;
}

function printsVersion(file: string, version: string): boolean {
  try {
    return execFileSync(file, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes(version);
  } catch {
    return false;
  }
}

/**
 * An explicit path (env), else the Go-built binary in $(go env GOPATH)/bin if it is this
 * release, else builds it from the Go module proxy (4–5 minutes the first time).
 */
async function resolve(
  what: string,
  explicit: string | undefined,
  goName: string,
  module: string,
  version: string,
  log: (msg: string) => void,
  /** A directory of its own under $(go env GOPATH)/bin, for a binary whose name another one has. */
  subdir?: string,
): Promise<string> {
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`${what}: ${explicit} is not an executable file`);
    return explicit;
  }
  const bin = goBin();
  if (!bin) throw new Error(`${what} not found and Go is not installed to build it (go install ${module}); set its path in the environment`);
  const dir = subdir ? path.join(bin, subdir) : bin;
  const file = path.join(dir, goName);
  if (fs.existsSync(file) && printsVersion(file, version)) return file;
  log(`building ${what} with 'go install ${module}' (minutes, once)...`);
  await goInstall(module, subdir ? dir : undefined);
  if (!printsVersion(file, version)) throw new Error(`${file} does not report version ${version} after go install`);
  return file;
}

/** TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH, TEMPORAL_UI_SERVER_PATH and TEMPORAL_CLI_PATH override the look-up. */
export async function resolveTemporalBinaries(log: (msg: string) => void): Promise<TemporalBinaries> {
  const v = TEMPORAL_SERVER_VERSION;
  const server = await resolve('the Temporal server', process.env.TEMPORAL_SERVER_PATH, 'server', TEMPORAL_SERVER_MODULE, v, log);
  const sqlTool = await resolve('the Temporal SQL schema tool', process.env.TEMPORAL_SQL_TOOL_PATH, 'sql', TEMPORAL_SQL_TOOL_MODULE, v, log);
  // The ui-server's binary is called `server` too: it gets a directory of its own.
  const ui = await resolve(
    'Temporal Web (ui-server)',
    process.env.TEMPORAL_UI_SERVER_PATH,
    'server',
    TEMPORAL_UI_SERVER_MODULE,
    TEMPORAL_UI_VERSION,
    log,
    `temporal-ui-v${TEMPORAL_UI_VERSION}`,
  );
  const cli = await resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, log);
  return { server, sqlTool, cli, ui };
}
