/**
 * The benchmarks' yardsticks, served by the benchmark engine (main.ts) and never by the
 * engine's own entry points:
 * - `GET /bare` (`bench:read`): a Hono JSON route with no middleware, no authentication and
 *   no database, so that each real endpoint's throughput can be read as a share of what Hono
 *   and Node give on this machine at that moment;
 * - `GET /api/bench/bare/` (`bench:read`): the same answer on the public app, behind
 *   Interface A's whole stack (request id, access log and metrics, body and text guards,
 *   authentication, rate limit, rights): what every authenticated answer costs before its own read;
 * - `POST /floor` (`bench:pay --floor`): starts the floor workflow (floor.workflows.ts) on
 *   its own worker in the engine's process and answers its result, through the same client,
 *   start options and wait as a payment, so that a payment can be read as a multiple of what
 *   one durable step costs on this Temporal.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, Runtime, Worker, type NativeConnection } from '@temporalio/worker';
import { Hono } from 'hono';
import { addOperationRights } from '../../../src/http/rights';
import type { PublicRoutes } from '../../../src/runtime/serve-http';
import type { ShutdownList } from '../../../src/platform/shutdown-list';
import type { WorkflowOutcomes } from '../../../src/temporal/outcomes';
import { awaitWorkflow, startOrJoin, inProcessOutcome } from '../../../src/temporal/workflows';
import type { WorkflowType } from '../../../workflows/registry.types';
import { requestIdActivityInterceptors } from '../../../worker/interceptors';
import { becomeCurrent, workflowCodeBuildId } from '../../../worker/deployment';
import { outcomeSinks, WORKFLOW_INTERCEPTOR_MODULES } from '../../../worker/worker';
import { floorActivities } from './floor.activities';

/** What both bare routes answer: the shape of a wallet. */
export const BARE_ANSWER = { balance: '0.00', credit_limit: '0.00', currency: 'IRT' };

/** The bare answer behind Interface A's whole stack, added to the engine's public app. */
export const bareAuthenticated: PublicRoutes = (app) => {
  // The rights of the wallet read whose shape it answers, checked as every operation's are.
  addOperationRights('GET /api/bench/bare/', ['finance']);
  app.get('/api/bench/bare/', (c) => c.json({ ok: true, data: BARE_ANSWER }));
};

/** The floor worker's task queue, beside the engine's own. */
export const floorTaskQueue = (engineTaskQueue: string) => `${engineTaskQueue}-bench-floor`;
/** The floor worker's deployment, beside the engine's. */
export const floorDeployment = (engineDeployment: string) => `${engineDeployment}-bench-floor`;

/** What the floor route starts its workflows with: the API's own client, and the API's wait and start options for payments. */
export interface FloorDeps {
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  eagerStart?: boolean;
  outcomes?: WorkflowOutcomes;
}

/** The floor is none of the engine's workflows (workflows/registry.types.ts): its worker is the benchmark's. */
const FLOOR = 'benchFloor' as WorkflowType;

/** The bare route, and with `floor` the floor route. */
export function createBareApp(floor?: FloorDeps) {
  const app = new Hono();
  app.get('/bare', (c) => c.json({ ok: true, data: BARE_ANSWER }));
  if (floor) {
    app.post('/floor', async (c) => {
      const started = await startOrJoin(floor.temporal, FLOOR, {
        workflowId: `bench-floor-${crypto.randomUUID()}`,
        taskQueue: floor.taskQueue,
        ...(floor.eagerStart ? { requestEagerStart: true } : {}),
      } as Parameters<typeof startOrJoin>[2]);
      const result = await awaitWorkflow(started.handle, floor.waitMs, () => null, { inProcess: inProcessOutcome(floor.outcomes, started) });
      const workflowId = started.handle.workflowId;
      return result ? c.json({ ok: true, data: { ...result, workflow_id: workflowId } }) : c.json({ ok: false, error: `${workflowId} still running` }, 202);
    });
  }
  return app;
}

/** What the floor worker runs with: the engine worker's connection, and what the engine's worker encrypts payloads and versions itself with. */
export interface FloorWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  outcomes?: WorkflowOutcomes;
  /** The worker deployment the floor worker is a version of (its build id: a digest of the floor's bundle). */
  deploymentName: string;
  /** The engine's client: its data converter (the engine's payload codec) is the floor worker's, and it makes the floor's version current. */
  client: Pick<Client, 'workflowService' | 'options'>;
}

/**
 * Runs the floor workflow on a worker of its own, configured as the engine's worker is
 * (worker/worker.ts): on the engine worker's connection (so a client on it starts floors
 * eagerly as it starts payments), with the engine's workflow and activity interceptors (so
 * the floor tells its outcome to the API next door as a payment does), its payloads
 * encrypted with the engine's codec, and as the current version of a worker deployment of
 * its own, its runs pinned as payments are. Stopping drains it.
 */
export async function runFloorWorker(opts: FloorWorkerOptions, shutdown: Pick<ShutdownList, 'add'>): Promise<Worker> {
  const workflowsPath = require.resolve('./floor.workflows');
  // Preloaded as the engine's workflows are (WORKFLOW_BUNDLE_OPTIONS): the floor pays what they pay.
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    preloadModules: [workflowsPath, ...WORKFLOW_INTERCEPTOR_MODULES],
    logger: Runtime.instance().logger,
  });
  const version = { deploymentName: opts.deploymentName, buildId: workflowCodeBuildId(code) };
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: floorActivities(),
    sinks: outcomeSinks(opts.outcomes),
    workflowBundle: { code },
    dataConverter: opts.client.options.dataConverter,
    interceptors: { activity: [requestIdActivityInterceptors] },
    workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
  });
  const running = worker.run();
  running.catch(() => undefined);
  shutdown.add(async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  const promotion = await becomeCurrent(opts.client, {
    namespace: opts.namespace,
    version,
    identity: `bench-floor@${process.pid}`,
    timeoutMs: 30_000,
    log: () => undefined,
  });
  if (promotion === 'superseded')
    throw new Error(`the floor's version ${version.buildId} was replaced in deployment ${version.deploymentName}: floors would run elsewhere`);
  return worker;
}
