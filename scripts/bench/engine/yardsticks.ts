/**
 * The benchmarks' yardsticks, served by the benchmark engine (main.ts) and never by the
 * engine's own entry points:
 * - `GET /bare` (`bench:read`): a Hono JSON route with no middleware, no authentication and
 *   no database, so that each real endpoint's throughput can be read as a share of what Hono
 *   and Node give on this machine at that moment;
 * - `GET /api/bench/bare/` (`bench:read`): the same answer on the public app, behind
 *   Interface A's whole stack (request id, access log and metrics, body and text guards,
 *   authentication, rate limit): what every authenticated answer costs before its own read;
 * - `POST /floor` (`bench:pay --floor`): starts the floor workflow (floor.workflows.ts) on
 *   its own worker in the engine's process and answers its result, through the same client,
 *   start options and wait as a payment, so that a payment can be read as a multiple of what
 *   one durable step costs on this Temporal.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { Hono } from 'hono';
import type { PublicRoutes } from '../../../src/runtime/serve-http';
import type { Stack } from '../../../src/runtime/stack';
import type { WorkflowOutcomes } from '../../../src/temporal/outcomes';
import { awaitWorkflow, startOrJoin, toldBy } from '../../../src/temporal/workflows';
import type { WorkflowType } from '../../../workflows/registry.types';
import { requestIdActivityInterceptors } from '../../../worker/interceptors';
import { outcomeSinks, WORKFLOW_INTERCEPTOR_MODULES } from '../../../worker/worker';
import { floorActivities } from './floor.activities';

/** What both bare routes answer: the shape of a wallet. */
export const BARE_ANSWER = { balance: '0.00', credit_limit: '0.00', currency: 'IRT' };

/** The bare answer behind Interface A's whole stack, added to the engine's public app. */
export const bareAuthenticated: PublicRoutes = (app) => {
  app.get('/api/bench/bare/', (c) => c.json({ ok: true, data: BARE_ANSWER }));
};

/** The floor worker's task queue, beside the engine's own. */
export const floorTaskQueue = (engineTaskQueue: string) => `${engineTaskQueue}-bench-floor`;

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
      const result = await awaitWorkflow(started.handle, floor.waitMs, () => null, { told: toldBy(floor.outcomes, started) });
      const workflowId = started.handle.workflowId;
      return result ? c.json({ ok: true, data: { ...result, workflow_id: workflowId } }) : c.json({ ok: false, error: `${workflowId} still running` }, 202);
    });
  }
  return app;
}

/**
 * Runs the floor workflow on a worker of its own: on the engine worker's connection (so a
 * client on it starts floors eagerly as it starts payments), with the engine's workflow and
 * activity interceptors (so the floor tells its outcome to the API next door as a payment
 * does). Stopping drains it.
 */
export async function runFloorWorker(
  opts: { connection: NativeConnection; namespace: string; taskQueue: string; outcomes?: WorkflowOutcomes; workflowBundle?: { codePath: string } },
  stack: Pick<Stack, 'add'>,
): Promise<Worker> {
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: floorActivities(),
    sinks: outcomeSinks(opts.outcomes),
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle, interceptors: { activity: [requestIdActivityInterceptors] } }
      : {
          workflowsPath: require.resolve('./floor.workflows'),
          interceptors: { activity: [requestIdActivityInterceptors], workflowModules: WORKFLOW_INTERCEPTOR_MODULES },
          // Preloaded as the engine's workflows are (WORKFLOW_BUNDLE_OPTIONS): the floor pays what they pay.
          bundlerOptions: { preloadModules: [require.resolve('./floor.workflows'), ...WORKFLOW_INTERCEPTOR_MODULES] },
        }),
  });
  const running = worker.run();
  running.catch(() => undefined);
  stack.add(async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  return worker;
}
