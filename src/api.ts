/**
 * `npm run api`: the public and admin HTTP APIs only, for production next to separate
 * workers. Connects to PostgreSQL (DATABASE_URL) and a Temporal cluster (TEMPORAL_ADDRESS);
 * started as src/runtime/start.ts says (startApi).
 */
import { loadConfig } from './config';
import { logError, logInfo } from './platform/log';
import { runProcess } from './runtime/process';
import { startApi } from './runtime/start';

runProcess(
  'the API',
  async (shutdown) => {
    const { api, admin, temporal, database } = await startApi(loadConfig(), shutdown);
    logInfo('API listening', { api: `http://0.0.0.0:${api.port}`, admin: admin.url, temporal: temporal.address, database: database.kind });
  },
  { error: logError },
);
