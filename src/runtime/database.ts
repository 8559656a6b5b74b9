import type { Config } from '../config';
import { openDatabase, type Database } from '../db/client';
import { logger } from '../platform/log';
import type { Stack } from './stack';

/** Opens the database (PostgreSQL or the embedded one) with its migrations applied; closed when the process stops. */
export async function openMigratedDatabase(config: Config, stack: Stack): Promise<Database> {
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    onIdleError: (err) => logger.warn({ err }, 'an idle database connection was closed by the server; the next query opens a new one'),
  });
  stack.add(() => database.close());
  return database;
}
