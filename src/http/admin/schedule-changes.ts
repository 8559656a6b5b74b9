import { createRoute, z } from '@hono/zod-openapi';
import { DomainError } from '../../domain/errors';
import { pollScheduleChanges, untilRecorded } from '../../domain/flights/schedule-change-runs';
import { scheduleChangeView } from '../../domain/flights/schedule-change-view';
import { openScheduleChanges } from '../../domain/flights/schedule-changes';
import { scheduleChangeWorkflowId } from '../../../workflows/schedule-change.types';
import { ScheduleChange } from '../partner/schemas';
import type { AdminDeps } from './deps';
import { adminOperations, adminRouter } from './router';
import { errorResponse, json } from './schemas';

const { get, post } = adminOperations(['Schedule changes']);

const OpenScheduleChange = ScheduleChange.extend({
  order_id: z.number().int(),
  partner_id: z.number().int(),
  supplier: z.string(),
  workflow_id: z.string(),
  detected_at: z.string(),
}).openapi('AdminScheduleChange');

const routes = {
  list: createRoute({
    ...get('/admin/schedule-changes', "The airline's schedule changes still waiting for a partner's decision, the nearest deadline first"),
    responses: { 200: json(z.object({ count: z.number().int(), results: z.array(OpenScheduleChange) }), 'Open schedule changes') },
  }),
  poll: createRoute({
    ...post(
      '/admin/schedule-changes/poll',
      "One round of the workers' poll of the airlines, now",
      'Answered once the changes it found are recorded and told, or after PAY_WAIT_MS.',
    ),
    responses: {
      200: json(z.object({ started: z.number().int(), workflow_ids: z.array(z.string()) }), 'The workflows started'),
      502: errorResponse('This process has no supplier configuration to ask the airlines with'),
    },
  }),
};

/**
 * `admin schedule-changes`: the airline schedule changes still waiting for a partner's
 * decision, each with its order, partner and workflow. `admin schedule-changes poll`: one
 * round of the workers' poll, now.
 */
export function scheduleChangeAdminRoutes(deps: Pick<AdminDeps, 'db' | 'temporal' | 'taskQueue' | 'waitMs' | 'flightAfterSaleOf'>) {
  const { db } = deps;
  return adminRouter()
    .openapi(routes.poll, async (c) => {
      const afterSaleOf = deps.flightAfterSaleOf;
      if (!afterSaleOf) throw new DomainError('supplier_failed', 'this process has no supplier configuration to ask the airlines with');
      const started = await pollScheduleChanges({ db, temporal: deps.temporal, taskQueue: deps.taskQueue, afterSaleOf });
      await untilRecorded(deps.temporal, started, deps.waitMs);
      return c.json({ started: started.length, workflow_ids: started }, 200);
    })
    .openapi(routes.list, async (c) => {
      const open = await openScheduleChanges(db);
      return c.json(
        {
          count: open.length,
          results: open.map((r) => ({
            order_id: r.orderId,
            partner_id: r.partnerId,
            supplier: r.supplier,
            workflow_id: scheduleChangeWorkflowId(r.orderId, r.changeId),
            detected_at: r.createdAt.toISOString(),
            ...scheduleChangeView(r),
          })),
        },
        200,
      );
    });
}
