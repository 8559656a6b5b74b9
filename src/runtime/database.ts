import type { Config } from '../config';
import { openDatabase, type Database } from '../db/client';
import { usePersonalDataKeys } from '../db/personal-data';
import { sealStoredSecrets } from '../domain/webhooks';
import { logger } from '../platform/log';
import type { SecretBox } from '../platform/secret-box';
import { personalDataBox } from './personal-data-key';
import { webhookSecrets } from './secrets-key';
import type { ShutdownList } from '../platform/shutdown-list';

/** Opens the database (PostgreSQL or the embedded one) with its migrations applied; closed when the process stops. */
export async function openMigratedDatabase(config: Config, shutdown: ShutdownList): Promise<Database> {
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    onIdleError: (err) => logger.warn({ err }, 'an idle database connection was closed by the server; the next query opens a new one'),
    maintenance: {
      intervalMs: config.PGLITE_MAINTENANCE_INTERVAL_S * 1000,
      onRound: (done) => {
        for (const { table, action, ms } of done) logger.info({ table, action, ms: Math.round(ms) }, 'embedded database maintenance');
      },
      onError: (err) => logger.warn({ err }, 'embedded database maintenance failed; the next round tries again'),
    },
  });
  shutdown.add(() => database.close());
  usePersonalDataKeys(personalDataBox(config));
  await sealSecrets(database, webhookSecrets(config));
  return database;
}

/**
 * Seals every webhook signing secret for its endpoint under the current key (one in the
 * clear, one sealed for no endpoint, one under a previous key), and says loudly at start-up
 * when some were sealed under another key or do not open: their deliveries fail until this
 * process has that key, or the endpoint is registered again (docs/operations.md).
 */
async function sealSecrets(database: Database, secrets: SecretBox): Promise<void> {
  const { sealed, resealed, underOtherKeys, unopenable } = await sealStoredSecrets(database.db, secrets);
  if (sealed > 0) logger.info({ sealed, key_id: secrets.keyId }, 'sealed webhook signing secrets stored in the clear');
  if (resealed > 0)
    logger.info(
      { resealed, key_id: secrets.keyId },
      'sealed webhook signing secrets again under the current key, each for its endpoint (they were under a previous key, or sealed for no endpoint)',
    );
  if (unopenable > 0) {
    logger.error(
      { endpoints: unopenable, key_id: secrets.keyId },
      'webhook signing secrets that do not open (altered, or sealed for another endpoint): their deliveries fail until the endpoint is registered again',
    );
  }
  if (underOtherKeys > 0) {
    logger.error(
      { endpoints: underOtherKeys, key_id: secrets.keyId },
      'webhook signing secrets sealed under another key: their deliveries fail until this process has that key (WEBHOOK_SECRETS_KEY, the same in every API and worker process)',
    );
  }
}
