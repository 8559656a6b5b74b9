/**
 * `npm run api`: the public and admin HTTP APIs only, for production next to separate
 * workers. Connects to PostgreSQL (DATABASE_URL) and a Temporal cluster (TEMPORAL_ADDRESS).
 */
import { loadConfig } from './config';
import { logError, logInfo } from './platform/log';
import { ensureAdminToken } from './runtime/admin-token';
import { seedCatalog } from './db/seed/seed';
import { startApiHealth } from './runtime/api-health';
import { openMigratedDatabase } from './runtime/database';
import { runProcess } from './runtime/process';
import { serveHttp } from './runtime/serve-http';
import { requireSupplierUrl } from './runtime/supplier-url';
import { temporalPayloadCodec } from './runtime/payload-key';
import { ensureTemporal, temporalClient, temporalConnection } from './temporal/connection';
import { temporalTls } from './temporal/tls';

runProcess(
  'the API',
  async (stack) => {
    const config = loadConfig();
    const admin = ensureAdminToken(config.ADMIN_TOKEN, config.DATA_DIR);
    const temporal = await ensureTemporal(config, (msg) => logInfo(msg), stack);
    const database = await openMigratedDatabase(config, stack);
    await seedCatalog(database.db);
    // No worker in this process: readiness reads the worker processes' heartbeats.
    const health = await startApiHealth(config, { database, temporalAddress: temporal.address }, stack);
    const connection = await temporalConnection(temporal.address, stack, undefined, temporalTls(config));
    const client = temporalClient(config, connection, health, temporalPayloadCodec(config));
    const { api, admin: adminServer } = await serveHttp(
      config,
      { database, temporal: client, health, adminToken: admin.token, supplierUrl: requireSupplierUrl(config), metrics: { role: 'api' } },
      stack,
    );
    logInfo('API listening', { api: `http://0.0.0.0:${api.port}`, admin: adminServer.url, temporal: temporal.address, database: database.kind });
  },
  { error: logError },
);
