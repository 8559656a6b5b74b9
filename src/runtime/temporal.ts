import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Config } from '../config';
import { resolveTemporalCli } from '../temporal/cli';
import { startDevServer } from '../temporal/dev-server';
import { ensureSearchAttributes } from '../temporal/search-attributes';

export interface TemporalEndpoint {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/**
 * TEMPORAL_ADDRESS set: use that cluster (registering the search attributes if missing).
 * Unset: start the Temporal CLI dev server, persisted under DATA_DIR.
 */
export async function ensureTemporal(config: Config, log: (msg: string) => void): Promise<TemporalEndpoint> {
  if (config.TEMPORAL_ADDRESS) {
    const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
    try {
      await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
    } finally {
      await connection.close();
    }
    return { address: config.TEMPORAL_ADDRESS, uiUrl: null, stop: async () => undefined };
  }
  const cli = await resolveTemporalCli(config.TEMPORAL_CLI_PATH, log);
  log(`starting the Temporal dev server (${cli})`);
  return startDevServer({
    cli,
    port: config.TEMPORAL_DEV_PORT,
    uiPort: config.TEMPORAL_UI_PORT,
    dbFile: path.join(config.DATA_DIR, 'temporal.db'),
    namespace: config.TEMPORAL_NAMESPACE,
    log,
    sqlitePragmas: config.TEMPORAL_DEV_SQLITE_PRAGMAS,
    dynamicConfig: config.EAGER_WORKFLOW_START ? ['system.enableEagerWorkflowStart=true'] : [],
  });
}
