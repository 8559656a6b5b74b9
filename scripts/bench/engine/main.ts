/**
 * `npm run bench:engine`: the engine as `npm start` runs it (src/runtime/start.ts), plus the
 * benchmarks' yardsticks (yardsticks.ts): the floor workflow on a worker of its own, the bare
 * and floor routes on 127.0.0.1:BENCH_BARE_PORT, and the bare answer behind Interface A on
 * the public API. `bench:pay --floor` and `bench:read` need this engine and the same
 * BENCH_BARE_PORT; `npm start`, `npm run api` and `npm run worker` serve none of it.
 */
import { loadConfig } from '../../../src/config';
import { listen } from '../../../src/platform/listen';
import { logError } from '../../../src/platform/log';
import { startEngine } from '../../../src/runtime/start';
import { runProcess } from '../../../src/runtime/process';
import { bareAuthenticated, createBareApp, floorDeployment, floorTaskQueue, runFloorWorker } from './yardsticks';

runProcess(
  'the benchmark engine',
  async (shutdown) => {
    const barePort = Number(process.env.BENCH_BARE_PORT);
    if (!Number.isInteger(barePort) || barePort < 1 || barePort > 65535)
      throw new Error('set BENCH_BARE_PORT: the yardsticks port, the same for the benchmark');
    const config = loadConfig(process.env, { sandbox: true });
    const engine = await startEngine(config, shutdown, { routes: bareAuthenticated });
    const taskQueue = floorTaskQueue(config.TEMPORAL_TASK_QUEUE);
    await runFloorWorker(
      {
        connection: engine.workerConnection,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue,
        outcomes: engine.outcomes,
        deploymentName: floorDeployment(config.WORKER_DEPLOYMENT_NAME),
        client: engine.client,
      },
      shutdown,
    );
    const floor = { temporal: engine.client, taskQueue, waitMs: config.PAY_WAIT_MS, eagerStart: true, outcomes: engine.outcomes };
    const bare = await listen(createBareApp(floor).fetch, barePort, '127.0.0.1');
    shutdown.add(() => bare.close());
    console.log(
      [
        'benchmark engine is up',
        `  API:         http://127.0.0.1:${engine.api.port}/api/   (with GET /api/bench/bare/)`,
        `  admin API:   ${engine.admin.url}`,
        `  yardsticks:  ${bare.url}/bare, POST ${bare.url}/floor`,
      ].join('\n'),
    );
  },
  { error: logError },
);
