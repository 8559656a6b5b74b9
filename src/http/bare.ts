import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Hono } from 'hono';
import type { WorkflowOutcomes } from '../temporal/outcomes';
import { awaitWorkflow, startOrJoin, toldBy } from '../temporal/workflows';

/** What both bare routes answer: the shape of a wallet. */
export const BARE_ANSWER = { balance: '0.00', credit_limit: '0.00', currency: 'IRT' };

/** What the floor route starts its workflows with: the API's own client, task queue and pay settings. */
export interface FloorDeps {
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  eagerStart?: boolean;
  outcomes?: WorkflowOutcomes;
}

/**
 * The yardsticks of the benchmarks (served only when BENCH_BARE_PORT is set, on 127.0.0.1),
 * in the same process as the API:
 * - `GET /bare` (`bench:read`): a Hono JSON route with no middleware, no authentication and
 *   no database, so that each real endpoint's throughput can be read as a share of what
 *   Hono and Node give on this machine at that moment (its twin behind Interface A's whole
 *   stack, `GET /api/bench/bare/`, is served by the API itself: ApiDeps.benchRoutes);
 * - `POST /floor` (`bench:pay --floor`): starts the floor workflow (workflows/bench.workflows.ts)
 *   and answers its result, through the same client, start options and wait as a payment
 *   (src/domain/pay-request.ts), so that a payment can be read as a multiple of what one durable
 *   step costs on this Temporal.
 */
export function createBareApp(floor?: FloorDeps) {
  const app = new Hono();
  app.get('/bare', (c) => c.json({ ok: true, data: BARE_ANSWER }));
  if (floor) {
    app.post('/floor', async (c) => {
      const started = await startOrJoin(floor.temporal, 'benchFloor', {
        workflowId: `bench-floor-${crypto.randomUUID()}`,
        taskQueue: floor.taskQueue,
        ...(floor.eagerStart ? { requestEagerStart: true } : {}),
        args: [],
      });
      const result = await awaitWorkflow(started.handle, floor.waitMs, () => null, { told: toldBy(floor.outcomes, started) });
      const workflowId = started.handle.workflowId;
      return result ? c.json({ ok: true, data: { ...result, workflow_id: workflowId } }) : c.json({ ok: false, error: `${workflowId} still running` }, 202);
    });
  }
  return app;
}
