/**
 * `npm start`: the whole engine in one process, for a laptop or a demo: Temporal dev
 * server (unless TEMPORAL_ADDRESS is set), database migrations, supplier simulator,
 * worker, the public API and the admin API (src/runtime/start.ts). Production runs
 * `npm run api` and `npm run worker` as separate processes instead.
 */
import { loadConfig } from './config';
import { logError } from './platform/log';
import { startEngine } from './runtime/start';
import { runProcess } from './runtime/process';

runProcess(
  'the engine',
  async (shutdown) => {
    const config = loadConfig(process.env, { sandbox: true });
    const { api, admin, adminTokenFile, temporal, supplier } = await startEngine(config, shutdown);
    console.log(
      [
        'travel booking engine is up',
        `  API (Interface A):  http://127.0.0.1:${api.port}/api/   docs: http://127.0.0.1:${api.port}/api/docs`,
        `  health:             http://127.0.0.1:${api.port}/healthz`,
        `  admin API:          ${admin.url}  (token in ${adminTokenFile ?? 'ADMIN_TOKEN'}; metrics at ${admin.url}/metrics)`,
        `  Temporal:           ${temporal.address}${temporal.uiUrl ? `   Web UI: ${temporal.uiUrl}` : ''}`,
        `  supplier:           ${supplier.url}${supplier.builtIn ? ' (built-in simulator)' : ''}`,
        `  sandbox scenarios:  ${config.SANDBOX ? 'on' : 'off'}`,
      ].join('\n'),
    );
  },
  { error: logError },
);
